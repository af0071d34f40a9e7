import Crypto
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Keeping who borrowed what no longer than needed. A library that sets a retention (in months; off
/// by default, 24 recommended) has, each night, its loans closed before then lose their borrower: the
/// member, their name and card go from the loan and from the counts of borrowers, leaving an
/// anonymous key (the same for one card, so "how many borrowed" stays true) and the title, class and
/// dates the reports count. The activity log's entries of then forget the member the same way, the
/// messages sent then go, and members archived before then lose their reading log (their days of
/// reading stay, unnamed).
enum Retention {
    static let range = 6...120
    static let recommended = 24

    struct Outcome: Codable, Sendable { var loans: Int; var reads: Int }

    /// The anonymous key for `card` in `library`: keyed by the installation's secret, so it cannot be
    /// worked back from a list of cards, and the same each night.
    static func key(card: String, library: UUID, secret: SymmetricKey) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((library.uuidString + "|" + card.uppercased()).utf8), using: secret)
        return "anon-" + mac.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    static func run(library: UUID, app: Application) async throws -> RecurringJobs.Outcome {
        struct Setting: Decodable { var retention_months: Int? }
        guard let months = try await app.db.sql.raw("SELECT retention_months FROM libraries WHERE id = \(bind: library)")
            .first(decoding: Setting.self)?.retention_months, range.contains(months) else { return .init(removed: 0) }
        let outcome = try await apply(library: library, months: months, now: app.clock.now(), secret: try app.secretBox().key,
                                      gate: app.writeGate, on: app.db)
        return .init(removed: outcome.loans + outcome.reads)
    }

    /// Forgets the borrowers of loans closed more than `months` months before `now`, a few thousand
    /// loans per transaction.
    static func apply(library: UUID, months: Int, now: Date, secret: SymmetricKey, gate: WriteGate, on db: any Database) async throws -> Outcome {
        let cutoff = Calendar(identifier: .gregorian).date(byAdding: .month, value: -months, to: now) ?? now
        var loans = 0
        while true {
            let done = try await gate.transaction(on: db) { db -> Int in
                struct Row: Decodable { var id: UUID; var member_card_id: String }
                let rows = try await db.sql.raw("""
                    SELECT id, member_card_id FROM loans WHERE \(LibraryNumber.rows(of: "loans", library)) AND returned_at IS NOT NULL
                      AND returned_at < \(bind: cutoff) AND member_card_id NOT LIKE 'anon-%' AND member_card_id NOT LIKE 'erased-%'
                    LIMIT 2000
                    """).all(decoding: Row.self)
                for (card, group) in Dictionary(grouping: rows, by: \.member_card_id) {
                    try await db.sql.raw("""
                        UPDATE loans SET member_id = NULL, member_name = '', member_card_id = \(bind: key(card: card, library: library, secret: secret))
                        WHERE id IN (\(binds: group.map(\.id)))
                        """).run()
                }
                return rows.count
            }
            loans += done
            if done < 2000 { break }
        }
        let monthNumber = LoanTallies.month(cutoff, Calendar(identifier: .gregorian))
        let reads = try await gate.transaction(on: db) { db -> Int in
            // The borrowers counted in months wholly before then, by the same keys.
            struct Card: Decodable { var card: String }
            for row in try await db.sql.raw("""
                SELECT DISTINCT card FROM borrower_months WHERE library_id = \(bind: library) AND month < \(bind: monthNumber)
                  AND card NOT LIKE 'anon-%' AND card NOT LIKE 'erased-%'
                """).all(decoding: Card.self) {
                try await db.sql.raw("""
                    UPDATE borrower_months SET card = \(bind: key(card: row.card, library: library, secret: secret))
                    WHERE library_id = \(bind: library) AND month < \(bind: monthNumber) AND card = \(bind: row.card)
                    """).run()
            }
            struct Entry: Decodable { var member_card_id: String }
            for row in try await db.sql.raw("""
                SELECT DISTINCT member_card_id FROM activities WHERE library_id = \(bind: library) AND at < \(bind: cutoff)
                  AND member_card_id IS NOT NULL AND member_card_id NOT LIKE 'anon-%' AND member_card_id NOT LIKE 'erased-%'
                """).all(decoding: Entry.self) {
                try await db.sql.raw("""
                    UPDATE activities SET member_card_id = \(bind: key(card: row.member_card_id, library: library, secret: secret)), info = NULL
                    WHERE library_id = \(bind: library) AND at < \(bind: cutoff) AND member_card_id = \(bind: row.member_card_id)
                    """).run()
            }
            try await db.sql.raw("""
                DELETE FROM mail_messages WHERE library_id = \(bind: library) AND created_at < \(bind: cutoff) AND status NOT IN ('queued', 'sending')
                """).run()
            // Members archived before then: their reading log goes, their days of reading stay unnamed.
            struct Member: Decodable { var id: UUID }
            var removed = 0
            for member in try await db.sql.raw("""
                SELECT id FROM members WHERE library_id = \(bind: library) AND archived_at IS NOT NULL AND archived_at < \(bind: cutoff)
                  AND EXISTS (SELECT 1 FROM reads r WHERE r.member_id = members.id)
                """).all(decoding: Member.self) {
                struct N: Decodable { var n: Int }
                removed += try await db.sql.raw("SELECT COUNT(*) AS n FROM reads WHERE member_id = \(bind: member.id)").first(decoding: N.self)?.n ?? 0
                try await ReadingDays.keepUnnamed(reader: .member(member.id), library: library, on: db.sql)
                try await db.sql.raw("DELETE FROM reads WHERE member_id = \(bind: member.id)").run()
            }
            return removed
        }
        let detail = ["months": String(months), "loans": String(loans), "reads": String(reads)]
        try await gate.transaction(on: db) { db in
            try await AuditLog.record(.init(action: .retention, detail: detail),
                                      library: library, by: nil, at: now, on: db)
        }
        return Outcome(loans: loans, reads: reads)
    }
}

/// The school year's settings: how long the library keeps who borrowed what (6 to 120 months, 0 for
/// ever), and whether it reads the school's roster from its drop folder each night.
struct SchoolYearSettings: LibrarySettings {
    var retentionMonths: Int?
    var rosterNightly: Bool?

    static var schemaConstraints: [String: JSONValue] {
        ["retentionMonths": ["anyOf": [["enum": [0]], Rule.range(Retention.range)]]]
    }

    func apply(to library: Library) throws {
        if let nightly = rosterNightly { library.rosterNightly = nightly }
        guard let months = retentionMonths else { return }
        if months == 0 {
            library.retentionMonths = nil
        } else {
            guard Retention.range.contains(months) else {
                throw InputProblem.outOfRange(field: "retentionMonths", min: Retention.range.lowerBound, max: Retention.range.upperBound, got: months)
            }
            library.retentionMonths = months
        }
    }
}
