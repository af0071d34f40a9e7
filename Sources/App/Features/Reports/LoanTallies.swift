import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// The loans counted by day as they happen, so a report over a year reads a few thousand count rows
/// instead of its 200,000 loans. Two tables, each a library's:
///
/// - `loan_days`: per day of the library's calendar and facet, the loans lent that day, returned that
///   day, their renewals and those of them returned late. A facet is one way of cutting the day: `''`
///   the whole library, `g` by class at lending, `s` by shelf, `c` by category (a title in two counts
///   in both, `''` none; lent only) and `l` by reading level at lending (lent only). A report reads the
///   one facet its filter or breakdown names: a year is a few thousand rows however the loans spread;
///   a day cut by class *and* shelf is not kept (those reports count the loans);
/// - `borrower_months`: per month, card and class the loans of each borrower, for "how many borrowed"
///   (distinct borrowers do not add up over days) and the loans per member.
///
/// And each copy's last loan (`copies.last_lent_at`), set by the check-out that claims the copy.
///
/// A check-out, a return and a renewal add to them in their own transaction (`Changes`; a sync push
/// once for all its mutations); whatever writes loans in bulk (a restore, a seed) counts its library again
/// (`recount`), which the migration that made them did first. A loan still out and overdue is not a
/// count: reports read those few from the open loans.
enum LoanTallies {
    static let tables = ["loan_days", "borrower_months"]

    /// The facets of `loan_days`.
    enum Facet: String {
        case all = "", grade = "g", shelf = "s", category = "c", level = "l"
    }

    /// The month number of `date` in `calendar`: years × 12 + the month's index.
    static func month(_ date: Date, _ calendar: Calendar) -> Int {
        let c = calendar.dateComponents([.year, .month], from: date)
        return c.year! * 12 + c.month! - 1
    }

    static func day(_ date: Date, _ calendar: Calendar) -> Int { ReadingRules.dayNumber(date, in: calendar.timeZone) }

    static let upsert: SQLQueryString = """
        ON CONFLICT (library_id, facet, day, value) DO UPDATE SET lent = loan_days.lent + excluded.lent,
            returned = loan_days.returned + excluded.returned, renewed = loan_days.renewed + excluded.renewed, late = loan_days.late + excluded.late
        """

    /// What check-outs, returns and renewals add to the tallies, gathered as they happen and written
    /// by `write` in a statement per table: a check-out writes its own when it commits, a sync push
    /// all of its mutations' once at its end (`PushBatch`).
    struct Changes: Sendable {
        private struct DayKey: Hashable { var facet: Facet; var day: Int; var value: String }
        private struct Counts { var lent = 0, returned = 0, renewed = 0, late = 0 }
        private struct TitleDay: Hashable { var title: UUID; var day: Int }
        private struct Borrower: Hashable { var month: Int; var card: String; var grade: String }
        /// The facets known without reading the title: the whole library, the class, the shelf.
        private var days: [DayKey: Counts] = [:]
        /// Loans lent by title and day, for the facets read from the title (its categories, its level).
        private var lentTitles: [TitleDay: Int] = [:]
        private var borrowers: [Borrower: Int] = [:]

        /// A loan lent at `at` to a member of class `grade` from a copy on `location`, of `title`.
        mutating func lent(at: Date, calendar: Calendar, title: UUID, card: String, grade: String?, location: String?) {
            let d = LoanTallies.day(at, calendar)
            add(day: d, grade: grade, location: location) { $0.lent += 1 }
            lentTitles[TitleDay(title: title, day: d), default: 0] += 1
            borrowers[Borrower(month: LoanTallies.month(at, calendar), card: card, grade: grade ?? ""), default: 0] += 1
        }

        /// A loan lent at `lentAt` returned at `at` (late when after `due`).
        mutating func returned(lentAt: Date, at: Date, due: Date, calendar: Calendar, grade: String?, location: String?) {
            add(day: LoanTallies.day(at, calendar), grade: grade, location: location) { $0.returned += 1 }
            if at > due { add(day: LoanTallies.day(lentAt, calendar), grade: grade, location: location) { $0.late += 1 } }
        }

        /// A loan lent at `lentAt` renewed once more.
        mutating func renewed(lentAt: Date, calendar: Calendar, grade: String?, location: String?) {
            add(day: LoanTallies.day(lentAt, calendar), grade: grade, location: location) { $0.renewed += 1 }
        }

        /// Adds another transaction's changes (of the same library).
        mutating func add(_ other: Changes) {
            for (key, c) in other.days {
                add(key) { $0.lent += c.lent; $0.returned += c.returned; $0.renewed += c.renewed; $0.late += c.late }
            }
            lentTitles.merge(other.lentTitles, uniquingKeysWith: +)
            borrowers.merge(other.borrowers, uniquingKeysWith: +)
        }

        private mutating func add(day: Int, grade: String?, location: String?, _ change: (inout Counts) -> Void) {
            for key in [DayKey(facet: .all, day: day, value: ""), DayKey(facet: .grade, day: day, value: grade ?? ""),
                        DayKey(facet: .shelf, day: day, value: location ?? "")] { add(key, change) }
        }

        private mutating func add(_ key: DayKey, _ change: (inout Counts) -> Void) {
            change(&days[key, default: Counts()])
        }

        /// Adds it all to `library`'s tables: per chunk of rows one statement for the days (the category
        /// and level facets read from the titles in it) and one for the borrowers.
        func write(library: UUID, on sql: any SQLDatabase) async throws {
            let dayRows = Array(days), titleRows = Array(lentTitles)
            let chunk = 1_000   // rows per statement: at most 8 binds each, well within either database's limit
            for start in stride(from: 0, to: max(dayRows.count, titleRows.count), by: chunk) {
                var parts: [SQLQueryString] = []
                var ctes: [SQLQueryString] = []
                let someDays = dayRows.dropFirst(start).prefix(chunk)
                if !someDays.isEmpty {
                    let values = SQLList(someDays.map { key, c in
                        SQLGroupExpression([SQLBind(key.facet.rawValue), SQLBind(key.day), SQLBind(key.value), SQLBind(c.lent), SQLBind(c.returned),
                                            SQLBind(c.renewed), SQLBind(c.late)])
                    })
                    ctes.append("d (facet, day, value, lent, returned, renewed, late) AS (VALUES \(values))")
                    // (`WHERE`: SQLite would read an `ON CONFLICT` right after `FROM d` as the join's `ON`.)
                    parts.append("SELECT \(bind: library), facet, day, value, lent, returned, renewed, late FROM d WHERE 1 = 1")
                }
                let someTitles = titleRows.dropFirst(start).prefix(chunk)
                if !someTitles.isEmpty {
                    let values = SQLList(someTitles.map { key, n in SQLGroupExpression([SQLBind(key.title), SQLBind(key.day), SQLBind(n)]) })
                    ctes.append("t (title_id, day, n) AS (VALUES \(values))")
                    parts.append("""
                        SELECT \(bind: library), 'c', t.day, \(unsafeRaw: categoryText("tc.category_id", sql)), CAST(SUM(t.n) AS BIGINT), 0, 0, 0
                        FROM t JOIN title_categories tc ON tc.title_id = t.title_id GROUP BY t.day, tc.category_id
                        """)
                    parts.append("""
                        SELECT \(bind: library), 'c', t.day, '', CAST(SUM(t.n) AS BIGINT), 0, 0, 0 FROM t
                        WHERE NOT EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = t.title_id) GROUP BY t.day
                        """)
                    parts.append("""
                        SELECT \(bind: library), 'l', t.day, COALESCE(ti.reading_level, ''), CAST(SUM(t.n) AS BIGINT), 0, 0, 0
                        FROM t JOIN titles ti ON ti.id = t.title_id GROUP BY t.day, COALESCE(ti.reading_level, '')
                        """)
                }
                // The facets of the two parts differ, and each part has a row per key: no row is met twice.
                try await sql.raw("WITH " + ctes.joined(separator: ", ")
                                  + " INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late) "
                                  + parts.joined(separator: " UNION ALL ") + " " + upsert).run()
            }
            for some in Array(borrowers).chunked(chunk) {
                let values = SQLList(some.map { key, n in
                    SQLGroupExpression([SQLBind(library), SQLBind(key.month), SQLBind(key.card), SQLBind(key.grade), SQLBind(n)])
                })
                try await sql.raw("""
                    INSERT INTO borrower_months (library_id, month, card, grade, loans) VALUES \(values)
                    ON CONFLICT (library_id, month, card, grade) DO UPDATE SET loans = borrower_months.loans + excluded.loans
                    """).run()
            }
        }
    }

    /// Writes `changes` in the transaction `db` has open, or keeps them for the end of a sync push.
    static func add(_ changes: Changes, in scope: Scope, on db: any Database) async throws {
        if let batch = scope.batch {
            batch.tally(changes)
        } else {
            try await changes.write(library: scope.libraryID, on: db.sql)
        }
    }

    /// A category id as the facet keeps it: SQLite's as it is stored, PostgreSQL's uuid as text.
    static func categoryText(_ column: String, _ sql: any SQLDatabase) -> String {
        sql.dialect.name == "sqlite" ? column : "\(column)::text"
    }

    /// Counts `library`'s loans again from the loans, in set-based statements: for each stretch of
    /// time the library's zone keeps one offset from UTC (a day is then the moment plus the offset,
    /// divided by a day) one per facet and measure, and one per month for the borrowers.
    static func recount(library: UUID, on sql: any SQLDatabase) async throws {
        for table in tables { try await sql.raw("DELETE FROM \(ident: table) WHERE library_id = \(bind: library)").run() }
        // The migration that made the tallies runs this before the loans named their library by number
        // (`LoansByLibraryNumber`): the loans are found as their table names them today.
        let loansByNumber = try await LibraryNumber.numbered("loans", on: sql)
        let libraryLoans: SQLQueryString = loansByNumber ? LibraryNumber.rows(of: "loans", library, alias: "l") : "l.library_id = \(bind: library)"
        try await sql.raw("""
            -- The library's lent copies found by their loans (the copies did not always name their library by number).
            -- A copy never lent has no time to correct.
            UPDATE copies SET last_lent_at = (SELECT MAX(l.checked_out_at) FROM loans l WHERE l.copy_id = copies.id)
            WHERE id IN (SELECT l.copy_id FROM loans l WHERE \(libraryLoans))
            """).run()
        struct Span: Decodable { var first: Date?; var last: Date? }
        let span = try await sql.raw("""
            SELECT MIN(l.checked_out_at) AS first, MAX(COALESCE(l.returned_at, l.checked_out_at)) AS last FROM loans l WHERE \(libraryLoans)
            """).first(decoding: Span.self)
        guard let first = span?.first, let last = span?.last else { return }
        struct Zone: Decodable { var time_zone: String? }
        let zone = Library.zone(try await sql.raw("SELECT time_zone FROM libraries WHERE id = \(bind: library)").first(decoding: Zone.self)?.time_zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let sqlite = sql.dialect.name == "sqlite"
        func dayOf(_ column: String, _ offset: Int) -> SQLQueryString {
            sqlite ? "CAST((\(unsafeRaw: column) + \(unsafeRaw: String(offset))) / 86400 AS INTEGER)"
                : "CAST(FLOOR((EXTRACT(EPOCH FROM \(unsafeRaw: column)) + \(unsafeRaw: String(offset))) / 86400) AS BIGINT)"
        }
        let cuts: [(Facet, String)] = [(.all, "''"), (.grade, "COALESCE(l.member_grade, '')"), (.shelf, "COALESCE(c.location, '')")]
        // From a second before the first loan: a moment read back from SQLite can come back a bit after the
        // one stored, and the first loan would fall outside its own range.
        for (from, to) in offsetSpans(from: first.addingTimeInterval(-1), through: last, zone: zone) {
            let offset = zone.secondsFromGMT(for: from)
            func range(_ column: String) -> SQLQueryString {
                libraryLoans + " AND \(unsafeRaw: column) >= \(bind: from) AND \(unsafeRaw: column) < \(bind: to)"
            }
            for (facet, value) in cuts {
                try await sql.raw("""
                    INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
                    SELECT \(bind: library), '\(unsafeRaw: facet.rawValue)', \(dayOf("l.checked_out_at", offset)), \(unsafeRaw: value), COUNT(*), 0,
                           CAST(SUM(l.renewals) AS BIGINT), CAST(SUM(CASE WHEN l.returned_at > l.due_at THEN 1 ELSE 0 END) AS BIGINT)
                    FROM loans l LEFT JOIN copies c ON c.id = l.copy_id WHERE \(range("l.checked_out_at"))
                    GROUP BY 3, 4 \(upsert)
                    """).run()
                try await sql.raw("""
                    INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
                    SELECT \(bind: library), '\(unsafeRaw: facet.rawValue)', \(dayOf("l.returned_at", offset)), \(unsafeRaw: value), 0, COUNT(*), 0, 0
                    FROM loans l LEFT JOIN copies c ON c.id = l.copy_id WHERE \(range("l.returned_at"))
                    GROUP BY 3, 4 \(upsert)
                    """).run()
            }
            let lentIn = range("l.checked_out_at")
            try await sql.raw("""
                INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
                SELECT \(bind: library), 'c', \(dayOf("l.checked_out_at", offset)), \(unsafeRaw: categoryText("tc.category_id", sql)), COUNT(*), 0, 0, 0
                FROM loans l JOIN title_categories tc ON tc.title_id = l.title_id WHERE \(lentIn) GROUP BY 3, 4 \(upsert)
                """).run()
            try await sql.raw("""
                INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
                SELECT \(bind: library), 'c', \(dayOf("l.checked_out_at", offset)), '', COUNT(*), 0, 0, 0 FROM loans l
                WHERE \(lentIn) AND NOT EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = l.title_id) GROUP BY 3, 4 \(upsert)
                """).run()
            try await sql.raw("""
                INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
                SELECT \(bind: library), 'l', \(dayOf("l.checked_out_at", offset)), COALESCE(t.reading_level, ''), COUNT(*), 0, 0, 0
                FROM loans l LEFT JOIN titles t ON t.id = l.title_id WHERE \(lentIn) GROUP BY 3, 4 \(upsert)
                """).run()
        }
        var monthStart = calendar.date(from: calendar.dateComponents([.year, .month], from: first))!
        while monthStart <= last {
            let next = calendar.date(byAdding: .month, value: 1, to: monthStart)!
            try await sql.raw("""
                INSERT INTO borrower_months (library_id, month, card, grade, loans)
                SELECT \(bind: library), \(bind: month(monthStart, calendar)), l.member_card_id, COALESCE(l.member_grade, ''), COUNT(*) FROM loans l
                WHERE \(libraryLoans) AND l.checked_out_at >= \(bind: monthStart) AND l.checked_out_at < \(bind: next)
                GROUP BY 3, 4
                """).run()
            monthStart = next
        }
    }

    /// The stretches from `first` through `last` in which `zone` keeps one offset from UTC, as
    /// half-open ranges covering them all.
    static func offsetSpans(from first: Date, through last: Date, zone: TimeZone) -> [(Date, Date)] {
        var spans: [(Date, Date)] = []
        var start = first
        let end = last.addingTimeInterval(1)
        while start < end {
            let next = zone.nextDaylightSavingTimeTransition(after: start).map { min($0, end) } ?? end
            spans.append((start, next))
            start = next
        }
        return spans
    }
}
