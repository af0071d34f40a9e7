import Fluent
import Foundation
import SQLKit

/// The pages each reader read on each day of the library's calendar (`reading_days`), kept as the
/// events' gains change, so the statistics read one row per reading day. Every change to an event's
/// gain or day goes through `ReadingLog.refreshGains`, which hands its difference here; a deleted
/// read takes its pages away; a restore counts its library again.
enum ReadingDays {
    /// Adds pages (negative to take them away) to a reader's days.
    static func add(_ delta: [Int: Int], reader: Reader, library: UUID, on sql: any SQLDatabase) async throws {
        let changes = delta.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        guard !changes.isEmpty else { return }
        for chunk in changes.chunked(200) {
            let rows = SQLList(chunk.map { day, pages in
                SQLGroupExpression([SQLBind(library), SQLBind(reader.key), SQLBind(day), SQLBind(pages)])
            })
            try await sql.raw("""
                INSERT INTO reading_days (library_id, reader_key, day, pages) VALUES \(rows)
                ON CONFLICT (library_id, reader_key, day) DO UPDATE SET pages = reading_days.pages + excluded.pages
                """).run()
        }
    }

    /// Takes a read's pages away from its reader's days (before the read is deleted).
    static func remove(readID: UUID, reader: Reader, library: UUID, on sql: any SQLDatabase) async throws {
        struct Row: Decodable { var day: Int; var pages: Int }
        let rows = try await sql.raw("""
            SELECT day, CAST(SUM(gain) AS BIGINT) AS pages FROM progress_events WHERE read_id = \(bind: readID) GROUP BY day
            """).all(decoding: Row.self)
        try await add(Dictionary(rows.map { ($0.day, -$0.pages) }, uniquingKeysWith: +), reader: reader, library: library, on: sql)
    }

    /// A deleted member's days stay counted under a key of no one (`x:` and a new id): their reads went
    /// with them, the library's pages logged did not change.
    static func keepUnnamed(reader: Reader, library: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("""
            UPDATE reading_days SET reader_key = \(bind: "x:" + UUID().uuidString)
            WHERE library_id = \(bind: library) AND reader_key = \(bind: reader.key)
            """).run()
    }

    /// Counts a library's days again from its events (after a restore or a seed); the days of deleted
    /// members have no events left and stay as they are.
    static func recount(library: UUID, on sql: any SQLDatabase) async throws {
        try await sql.raw("DELETE FROM reading_days WHERE library_id = \(bind: library) AND reader_key NOT LIKE 'x:%'").run()
        try await sql.raw("""
            UPDATE reads SET covered = COALESCE((SELECT SUM(e.gain) FROM progress_events e WHERE e.read_id = reads.id), 0)
            WHERE library_id = \(bind: library)
            """).run()
        struct Day: Decodable { var user_id: UUID?; var member_id: UUID?; var day: Int; var pages: Int }
        let days = try await sql.raw("""
            SELECT r.user_id, r.member_id, e.day, CAST(SUM(e.gain) AS BIGINT) AS pages
            FROM progress_events e JOIN reads r ON r.id = e.read_id WHERE r.library_id = \(bind: library)
            GROUP BY r.user_id, r.member_id, e.day HAVING SUM(e.gain) <> 0
            """).all(decoding: Day.self)
        for (reader, rows) in Dictionary(grouping: days, by: { $0.user_id.map(Reader.user) ?? $0.member_id.map(Reader.member) }) {
            guard let reader else { continue }
            try await add(Dictionary(rows.map { ($0.day, $0.pages) }, uniquingKeysWith: +), reader: reader, library: library, on: sql)
        }
    }
}
