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
/// A check-out, a return and a renewal add to them in their own transaction (`lent`, `returned`,
/// `renewed`); whatever writes loans in bulk (a restore, a seed) counts its library again
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

    /// A loan lent at `at` to a member of class `grade` from a copy on `location`, of `title`.
    static func lent(library: UUID, at: Date, calendar: Calendar, title: UUID, card: String, grade: String?, location: String?,
                     on sql: any SQLDatabase) async throws {
        let d = day(at, calendar)
        func row(_ facet: Facet, _ value: String?) -> SQLQueryString {
            "SELECT \(bind: library), '\(unsafeRaw: facet.rawValue)', \(bind: d), \(bind: value ?? ""), 1, 0, 0, 0"
        }
        try await sql.raw("""
            INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late)
            \(row(.all, nil)) UNION ALL \(row(.grade, grade)) UNION ALL \(row(.shelf, location))
            UNION ALL SELECT \(bind: library), 'c', \(bind: d), '', 1, 0, 0, 0
                WHERE NOT EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = \(bind: title))
            UNION ALL SELECT \(bind: library), 'c', \(bind: d), \(unsafeRaw: categoryText("tc.category_id", sql)), 1, 0, 0, 0
                FROM title_categories tc WHERE tc.title_id = \(bind: title)
            UNION ALL SELECT \(bind: library), 'l', \(bind: d), COALESCE(t.reading_level, ''), 1, 0, 0, 0 FROM titles t WHERE t.id = \(bind: title)
            \(upsert)
            """).run()
        try await sql.raw("""
            INSERT INTO borrower_months (library_id, month, card, grade, loans)
            VALUES (\(bind: library), \(bind: month(at, calendar)), \(bind: card), \(bind: grade ?? ""), 1)
            ON CONFLICT (library_id, month, card, grade) DO UPDATE SET loans = borrower_months.loans + 1
            """).run()
    }

    /// A loan lent at `lentAt` returned at `at` (late when after `due`).
    static func returned(library: UUID, lentAt: Date, at: Date, due: Date, calendar: Calendar, grade: String?, location: String?,
                         on sql: any SQLDatabase) async throws {
        try await add(library: library, day: day(at, calendar), grade: grade, location: location, returned: 1, on: sql)
        if at > due { try await add(library: library, day: day(lentAt, calendar), grade: grade, location: location, late: 1, on: sql) }
    }

    /// A loan lent at `lentAt` renewed once more.
    static func renewed(library: UUID, lentAt: Date, calendar: Calendar, grade: String?, location: String?, on sql: any SQLDatabase) async throws {
        try await add(library: library, day: day(lentAt, calendar), grade: grade, location: location, renewed: 1, on: sql)
    }

    /// Adds to the day of the whole library, of the class and of the shelf.
    private static func add(library: UUID, day: Int, grade: String?, location: String?, returned: Int = 0, renewed: Int = 0, late: Int = 0,
                            on sql: any SQLDatabase) async throws {
        let rows = SQLList([(Facet.all, ""), (.grade, grade ?? ""), (.shelf, location ?? "")].map { facet, value in
            SQLGroupExpression([SQLBind(library), SQLBind(facet.rawValue), SQLBind(day), SQLBind(value), SQLBind(0), SQLBind(returned),
                                SQLBind(renewed), SQLBind(late)])
        })
        try await sql.raw("""
            INSERT INTO loan_days (library_id, facet, day, value, lent, returned, renewed, late) VALUES \(rows) \(upsert)
            """).run()
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
        try await sql.raw("""
            UPDATE copies SET last_lent_at = (SELECT MAX(l.checked_out_at) FROM loans l WHERE l.copy_id = copies.id) WHERE library_id = \(bind: library)
            """).run()
        struct Span: Decodable { var first: Date?; var last: Date? }
        let span = try await sql.raw("""
            SELECT MIN(checked_out_at) AS first, MAX(COALESCE(returned_at, checked_out_at)) AS last FROM loans WHERE library_id = \(bind: library)
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
                "l.library_id = \(bind: library) AND \(unsafeRaw: column) >= \(bind: from) AND \(unsafeRaw: column) < \(bind: to)"
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
                WHERE l.library_id = \(bind: library) AND l.checked_out_at >= \(bind: monthStart) AND l.checked_out_at < \(bind: next)
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
