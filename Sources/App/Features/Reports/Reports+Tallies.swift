import Foundation
import ShelfmarkCore
import SQLKit

/// Circulation and reading figures read from the counts kept by day (`LoanTallies`) where the
/// report's filters are among what they are counted by, and from the loans where not (a category,
/// a reading level or a collection narrows the loans themselves). Both ways count the same: a
/// test holds one to the other.
extension Reports.Query {
    /// A filter of this report that is set.
    func has(_ filter: ReportFilter) -> Bool {
        guard kind.filters.contains(filter) else { return false }
        switch filter {
        case .grade: return options.grade != nil
        case .category: return options.category != nil
        case .shelf: return options.shelf != nil
        case .level: return options.level != nil
        case .collection: return options.collection != nil
        }
    }

    /// Nothing narrows the loans but their class and shelf (the counts are cut by nothing else).
    private var cutByDayOnly: Bool { !fromLoans && !has(.category) && !has(.level) && !has(.collection) }
    /// The loans, returns and renewals over time: narrowed by class or by shelf, not both.
    var tallied: Bool { cutByDayOnly && !(has(.grade) && has(.shelf)) }
    /// Loans by shelf: nothing narrows but the shelf.
    var talliedByShelf: Bool { cutByDayOnly && !has(.grade) }
    /// Loans by category and by reading level: nothing narrows.
    var talliedFacets: Bool { cutByDayOnly && !has(.grade) && !has(.shelf) }
    /// The counts by borrower and month, and loans by class (read with them): nothing narrows but the class.
    var talliedBorrowers: Bool { cutByDayOnly && !has(.shelf) }

    func days(_ period: ReportPeriod) -> (first: Int, after: Int) {
        (LoanTallies.day(period.start, calendar), LoanTallies.day(period.end, calendar))
    }

    /// The facet the series reads: the class or the shelf filtered on, else the whole library.
    private var seriesFacet: (LoanTallies.Facet, String) {
        if has(.grade), let grade = options.grade { return (.grade, grade) }
        if has(.shelf), let shelf = options.shelf { return (.shelf, shelf) }
        return (.all, "")
    }

    /// Loans, returns, renewals and late loans per bucket, from the day counts and the open overdue loans.
    func talliedSeries(_ period: ReportPeriod, _ buckets: [ReportPeriod.Bucket])
        async throws -> (loans: [Int], returns: [Int], renewals: [Int], late: [Int]) {
        let (first, after) = days(period)
        let (facet, value) = seriesFacet
        struct Row: Decodable { var day: Int; var lent: Int; var returned: Int; var renewed: Int; var late: Int }
        let rows = try await sql.raw("""
            SELECT d.day, d.lent, d.returned, d.renewed, d.late FROM loan_days d
            WHERE d.library_id = \(bind: library) AND d.facet = \(bind: facet.rawValue) AND d.day >= \(bind: first) AND d.day < \(bind: after)
              AND d.value = \(bind: value)
            """).all(decoding: Row.self)
        let ends = buckets.map { LoanTallies.day($0.end, calendar) }
        func index(_ day: Int) -> Int? { ends.firstIndex { day < $0 } }
        var loans = Array(repeating: 0, count: buckets.count), returns = loans, renewals = loans, late = loans
        for row in rows {
            guard let i = index(row.day) else { continue }
            loans[i] += row.lent; returns[i] += row.returned; renewals[i] += row.renewed; late[i] += row.late
        }
        // Still out and past due: not a count yet, read from the open loans by `loans_open` (a
        // condition on when they were lent would lead SQLite to the period's loans instead), the
        // period's picked here.
        var open: SQLQueryString = """
            SELECT l.checked_out_at FROM loans l WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.returned_at IS NULL AND l.due_at < \(bind: now)
            """
        if has(.grade), let grade = options.grade { open += " AND l.member_grade = \(bind: grade)" }
        if has(.shelf), let shelf = options.shelf { open += " AND EXISTS (SELECT 1 FROM copies fs WHERE fs.id = l.copy_id AND fs.location = \(bind: shelf))" }
        struct Open: Decodable { var checked_out_at: Date }
        for loan in try await sql.raw(open).all(decoding: Open.self) where loan.checked_out_at >= period.start {
            if let i = buckets.firstIndex(where: { loan.checked_out_at < $0.end }) { late[i] += 1 }
        }
        return (loans, returns, renewals, late)
    }

    /// Loans lent in the period per class (`.grade`) or shelf (`.shelf`), the one filtered on only.
    func talliedLoans(by facet: LoanTallies.Facet, _ period: ReportPeriod) async throws -> [Reports.LabelCount] {
        let (first, after) = days(period)
        var q: SQLQueryString = """
            SELECT d.value AS label, CAST(SUM(d.lent) AS BIGINT) AS n FROM loan_days d
            WHERE d.library_id = \(bind: library) AND d.facet = \(bind: facet.rawValue) AND d.day >= \(bind: first) AND d.day < \(bind: after)
            """
        if facet == .grade, has(.grade), let grade = options.grade { q += " AND d.value = \(bind: grade)" }
        if facet == .shelf, has(.shelf), let shelf = options.shelf { q += " AND d.value = \(bind: shelf)" }
        return try await sql.raw(q + " GROUP BY d.value HAVING SUM(d.lent) > 0").all(decoding: Reports.LabelCount.self)
    }

    /// Loans lent in the period by category (the category's name; `nil` for none or a category since
    /// deleted) or by reading level at lending.
    func talliedFacet(_ facet: LoanTallies.Facet, _ period: ReportPeriod) async throws -> [Reports.LabelCount] {
        let (first, after) = days(period)
        if facet == .level {
            return try await sql.raw("""
                SELECT d.value AS label, CAST(SUM(d.lent) AS BIGINT) AS n FROM loan_days d
                WHERE d.library_id = \(bind: library) AND d.facet = 'l' AND d.day >= \(bind: first) AND d.day < \(bind: after) GROUP BY d.value
                """).all(decoding: Reports.LabelCount.self)
        }
        let id = LoanTallies.categoryText("c.id", sql)
        let rows = try await sql.raw("""
            SELECT c.name AS label, k.n FROM (
                SELECT d.value, CAST(SUM(d.lent) AS BIGINT) AS n FROM loan_days d
                WHERE d.library_id = \(bind: library) AND d.facet = 'c' AND d.day >= \(bind: first) AND d.day < \(bind: after) GROUP BY d.value
            ) k LEFT JOIN categories c ON \(unsafeRaw: id) = k.value AND c.library_id = \(bind: library)
            """).all(decoding: Reports.LabelCount.self)
        // A category since deleted counts with the loans of no category.
        var byName: [String: Int] = [:], none = 0
        for row in rows { if let name = row.label { byName[name, default: 0] += row.n } else { none += row.n } }
        return byName.map { Reports.LabelCount(label: $0.key, n: $0.value, m: nil) } + (none > 0 ? [Reports.LabelCount(label: nil, n: none, m: nil)] : [])
    }

    /// The borrowers of the period (their cards) with the classes they borrowed in and their loans:
    /// whole months from the counts by month, the days of a month cut by the period from the loans;
    /// nil where the counts cannot answer (a report narrowed by more than the class). Read once per
    /// report: the borrowers by class, their number and the loans per member all come from it.
    func countedBorrowers(_ period: ReportPeriod) async throws -> [Reports.Borrower]? {
        guard talliedBorrowers else { return nil }
        struct Row: Decodable { var card: String; var grade: String; var n: Int }
        var rows: [Row] = []
        let gradeFilter: String? = has(.grade) ? options.grade : nil
        var cursor = calendar.date(from: calendar.dateComponents([.year, .month], from: period.start))!
        var whole: [Int] = []
        while cursor < period.end {
            let next = calendar.date(byAdding: .month, value: 1, to: cursor)!
            // A month whose days after the period are still to come holds no loans of them yet.
            if cursor >= period.start, next <= period.end || period.end > now {
                whole.append(LoanTallies.month(cursor, calendar))
            } else {
                let (from, to) = (max(cursor, period.start), min(next, period.end))
                var q: SQLQueryString = """
                    SELECT l.member_card_id AS card, COALESCE(l.member_grade, '') AS grade, COUNT(*) AS n FROM loans l
                    WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.checked_out_at >= \(bind: from) AND l.checked_out_at < \(bind: to)
                    """
                if let grade = gradeFilter { q += " AND l.member_grade = \(bind: grade)" }
                rows += try await sql.raw(q + " GROUP BY l.member_card_id, l.member_grade").all(decoding: Row.self)
            }
            cursor = next
        }
        if let firstMonth = whole.first, let lastMonth = whole.last {
            var q: SQLQueryString = """
                SELECT b.card, b.grade, CAST(SUM(b.loans) AS BIGINT) AS n FROM borrower_months b
                WHERE b.library_id = \(bind: library) AND b.month >= \(bind: firstMonth) AND b.month <= \(bind: lastMonth)
                """
            if let grade = gradeFilter { q += " AND b.grade = \(bind: grade)" }
            rows += try await sql.raw(q + " GROUP BY b.card, b.grade").all(decoding: Row.self)
        }
        var merged: [String: [String: Int]] = [:]
        for row in rows { merged[row.card, default: [:]][row.grade, default: 0] += row.n }
        return merged.flatMap { card, grades in grades.map { Reports.Borrower(card: card, grade: $0.key, loans: $0.value) } }
    }
}
