import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore

/// A class's reading (for teachers), from the reading logs staff keep for members.
enum ClassReading {
    /// A member of the class with the books finished since a day, their pages, and how many they are reading now.
    struct Row: Sendable, Decodable {
        var id: UUID
        var first_name: String
        var last_name: String
        var card_id: String
        var finished: Int?
        var pages: Int?
        var reading: Int?
    }

    /// The members' classes, in natural order ("Grade 2" before "Grade 10").
    static func grades(library: UUID, on db: any Database) async throws -> [String] {
        struct GradeRow: Decodable { var grade: String }
        return try await db.sql.raw("""
            SELECT DISTINCT grade FROM members WHERE library_id = \(bind: library) AND grade IS NOT NULL AND grade <> '' AND archived_at IS NULL ORDER BY grade
            """).all(decoding: GradeRow.self).map(\.grade)
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
    }

    /// The class `grade` (any case), by name, at most `limit` members.
    static func term(grade: String, since: Date, library: UUID, limit: Int, on db: any Database) async throws -> [Row] {
        try await db.sql.raw("""
            SELECT m.id, m.first_name, m.last_name, m.card_id,
              (SELECT COUNT(*) FROM reads r WHERE r.member_id = m.id AND r.status = 'finished' AND r.finished_at >= \(bind: since)) AS finished,
              (SELECT CAST(SUM(r.page_count) AS BIGINT) FROM reads r WHERE r.member_id = m.id AND r.status = 'finished' AND r.finished_at >= \(bind: since)) AS pages,
              (SELECT COUNT(*) FROM reads r WHERE r.member_id = m.id AND r.status = 'reading') AS reading
            FROM members m WHERE m.library_id = \(bind: library) AND LOWER(m.grade) = LOWER(\(bind: grade)) AND m.archived_at IS NULL
            ORDER BY m.last_name, m.first_name, m.card_id LIMIT \(literal: limit)
            """).all(decoding: Row.self)
    }
}
