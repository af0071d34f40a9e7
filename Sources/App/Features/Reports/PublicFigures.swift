import Fluent
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import SQLKit

/// Whether the public catalog shows the library's figures (off by default).
struct PublicFigureSettings: LibrarySettings {
    var publicFigures: Bool?

    static var schemaConstraints: [String: JSONValue] { [:] }

    func apply(to library: Library) throws {
        if let shown = publicFigures { library.publicFigures = shown }
    }
}

/// The figures a library may show on its public catalog: how many books went out this school year,
/// and the titles borrowed most this month — counts and titles, never a member. Each library's are
/// counted at most every five minutes (a busy catalog's pages do not count the loans again).
enum PublicFigures {
    struct Figures: Sendable, Equatable {
        var lentThisYear: Int
        var mostBorrowed: [Title]
    }

    struct Title: Sendable, Equatable, Decodable {
        var id: UUID
        var title: String
        var n: Int
    }

    static let shown = 5
    static let keptFor: TimeInterval = 300
    private static let kept = NIOLockedValueBox<[UUID: (at: Date, figures: Figures)]>([:])

    static func get(library: UUID, calendar: Calendar, now: Date, on db: any Database) async throws -> Figures {
        if let hit = kept.withLockedValue({ $0[library] }), now.timeIntervalSince(hit.at) >= 0, now.timeIntervalSince(hit.at) < keptFor {
            return hit.figures
        }
        let figures = try await count(library: library, calendar: calendar, now: now, on: db)
        kept.withLockedValue { $0[library] = (now, figures) }
        return figures
    }

    static func count(library: UUID, calendar: Calendar, now: Date, on db: any Database) async throws -> Figures {
        let year = try ReportPeriod.resolve(.schoolYear, now: now, calendar: calendar)
        let month = try ReportPeriod.resolve(.thisMonth, now: now, calendar: calendar)
        struct Count: Decodable { var n: Int }
        let lent = try await db.sql.raw("""
            SELECT CAST(COALESCE(SUM(lent), 0) AS BIGINT) AS n FROM loan_days WHERE facet = ''
            AND library_id = \(bind: library) AND day >= \(bind: LoanTallies.day(year.start, calendar))
            """).first(decoding: Count.self)?.n ?? 0
        let most = try await db.sql.raw("""
            SELECT t.id, t.title, c.n FROM (
                SELECT title_id, COUNT(*) AS n FROM loans
                WHERE \(LibraryNumber.rows(of: "loans", library)) AND checked_out_at >= \(bind: month.start) AND title_id IS NOT NULL
                GROUP BY title_id
            ) c JOIN titles t ON t.id = c.title_id AND t.wishlist = \(bind: false)
            ORDER BY c.n DESC, t.sort_key, t.id LIMIT \(bind: shown)
            """).all(decoding: Title.self)
        return Figures(lentThisYear: lent, mostBorrowed: most)
    }
}
