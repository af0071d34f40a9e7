import Foundation
import ShelfmarkCore
import SQLKit

extension Reports {
    /// Loans and returns per month or week with renewals and overdue loans; loans by class, category
    /// and shelf; holds placed and filled and the days they took to fill.
    static func circulation(_ q: Query, _ period: ReportPeriod) async throws -> [ReportTableDTO] {
        let t = q.t, buckets = period.buckets(q.calendar)
        let (start, end) = (period.start, period.end)
        let (loans, returns, renewals, late) = q.tallied ? try await q.talliedSeries(period, buckets) : try await {
            let lent = q.filters(title: "x.title_id", copy: "x.copy_id", grade: "x.member_grade")
            return (try await perBucket(q, buckets, table: "loans", column: "checked_out_at", start: start, end: end, where: lent),
                    try await perBucket(q, buckets, table: "loans", column: "returned_at", start: start, end: end, where: lent),
                    try await perBucket(q, buckets, table: "loans", column: "checked_out_at", start: start, end: end, where: lent, sum: "x.renewals"),
                    try await perBucket(q, buckets, table: "loans", column: "checked_out_at", start: start, end: end, where: lent + """
                         AND ((x.returned_at IS NOT NULL AND x.returned_at > x.due_at) OR (x.returned_at IS NULL AND x.due_at < \(bind: q.now)))
                        """))
        }()
        func rate(_ part: Int, _ whole: Int) -> Double { whole == 0 ? 0 : (Double(part) / Double(whole) * 1000).rounded() / 10 }
        let timeRows = buckets.indices.map { i -> [ReportCellDTO] in
            [.text(label(buckets[i], period.grouping, t)), .count(loans[i]), .count(returns[i]), .count(renewals[i]), .count(late[i]),
             .number(rate(late[i], loans[i]))]
        }
        let when = period.grouping == .month ? t(.reportMonth) : t(.reportWeekOf)
        var overTime = table(key: "loansOverTime", title: t(.reportLoansOverTime),
                             columns: [.init(title: when, kind: .text), .init(title: t(.reportLoans), kind: .count),
                                       .init(title: t(.reportReturns), kind: .count), .init(title: t(.reportRenewals), kind: .count),
                                       .init(title: t(.reportOverdueLoans), kind: .count), .init(title: t(.reportOverdueRate), kind: .percent)],
                             rows: timeRows, chart: .columns, note: t(.reportOverdueNote))

        // By class (as it was when lent), category (a book in two counts in both) and shelf.
        let inPeriod = q.lent(in: period)
        let borrowers = try await q.countedBorrowers(period)
        let byClass = try await q.loansByClass(period, borrowers: borrowers)
        let byCategory: [LabelCount]
        if q.talliedFacets {
            byCategory = try await q.talliedFacet(.category, period)
        } else {
            let named = try await q.sql.raw("""
                SELECT c.name AS label, COUNT(*) AS n FROM loans l JOIN title_categories tc ON tc.title_id = l.title_id
                JOIN categories c ON c.id = tc.category_id WHERE \(inPeriod) GROUP BY c.name
                """).all(decoding: LabelCount.self)
            let uncategorised = try await q.sql.raw("""
                SELECT COUNT(*) AS n FROM loans l WHERE \(inPeriod)
                AND NOT EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = l.title_id)
                """).first(decoding: Count.self)?.n ?? 0
            byCategory = named + [LabelCount(label: nil, n: uncategorised, m: nil)].filter { $0.n > 0 }
        }
        let byShelf = q.talliedByShelf ? try await q.talliedLoans(by: .shelf, period) : try await q.sql.raw("""
            SELECT c.location AS label, COUNT(*) AS n FROM loans l LEFT JOIN copies c ON c.id = l.copy_id
            WHERE \(inPeriod) GROUP BY c.location
            """).all(decoding: LabelCount.self)

        // Holds placed in the period, and of those, filled (lent) and the days until a copy was ready.
        let hf = q.filters(title: "h.title_id")
        struct HoldRow: Decodable { var created_at: Date; var ready_at: Date?; var state: String }
        let holds = try await q.sql.raw("""
            SELECT h.created_at, h.ready_at, h.state FROM holds h
            WHERE h.library_id = \(bind: q.library) AND h.created_at >= \(bind: start) AND h.created_at < \(bind: end) \(hf)
            """).all(decoding: HoldRow.self)
        var placed = Array(repeating: 0, count: buckets.count), filled = placed
        var waits = Array(repeating: [Double](), count: buckets.count)
        for hold in holds {
            guard let i = buckets.firstIndex(where: { hold.created_at < $0.end }) else { continue }
            placed[i] += 1
            if hold.state == HoldState.fulfilled.rawValue { filled[i] += 1 }
            if let ready = hold.ready_at { waits[i].append(ready.timeIntervalSince(hold.created_at) / 86_400) }
        }
        func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : ((values.reduce(0, +) / Double(values.count)) * 10).rounded() / 10 }
        let holdRows = buckets.indices.map { i -> [ReportCellDTO] in
            [.text(label(buckets[i], period.grouping, t)), .count(placed[i]), .count(filled[i]), .number(mean(waits[i]))]
        }
        var holdTable = table(key: "holds", title: t(.holdsTitle),
                              columns: [.init(title: when, kind: .text), .init(title: t(.reportHoldsPlaced), kind: .count),
                                        .init(title: t(.reportHoldsFilled), kind: .count), .init(title: t(.reportDaysToFill), kind: .days)],
                              rows: holdRows, chart: .none)
        if holdTable.totals != nil { holdTable.totals![3] = .number(mean(waits.flatMap { $0 })) }

        let totalLoans = loans.reduce(0, +), totalLate = late.reduce(0, +)
        if overTime.totals != nil { overTime.totals![5] = .number(rate(totalLate, totalLoans)) }
        let summary = table(key: "summary", title: t(.reportSummary),
                            columns: [.init(title: t(.reportFigure), kind: .text), .init(title: t(.reportValue), kind: .count)],
                            rows: [[.text(t(.reportLoans)), .count(totalLoans)], [.text(t(.reportReturns)), .count(returns.reduce(0, +))],
                                   [.text(t(.reportRenewals)), .count(renewals.reduce(0, +))],
                                   [.text(t(.reportOverdueLoans)), .count(totalLate)],
                                   [.text(t(.reportBorrowers)), .count(try await distinctBorrowers(q, period, borrowers))],
                                   [.text(t(.reportHoldsPlaced)), .count(placed.reduce(0, +))], [.text(t(.reportHoldsFilled)), .count(filled.reduce(0, +))]],
                            chart: .none, totals: false)
        return [
            summary,
            overTime,
            namedTable(key: "loansByClass", title: t(.reportLoansByClass),
                       columns: [.init(title: t(.sortClass), kind: .text), .init(title: t(.reportLoans), kind: .count),
                                 .init(title: t(.reportBorrowers), kind: .count)],
                       rows: byClass, missing: t(.reportNoClass), note: t(.reportClassAtLendingNote)),
            namedTable(key: "loansByCategory", title: t(.reportLoansByCategory),
                       columns: [.init(title: t(.reportCategory), kind: .text), .init(title: t(.reportLoans), kind: .count)],
                       rows: byCategory, missing: t(.noCategoryGroup),
                       note: t(.reportTwoCategoriesNote)),
            namedTable(key: "loansByShelf", title: t(.reportLoansByShelf),
                       columns: [.init(title: t(.location), kind: .text), .init(title: t(.reportLoans), kind: .count)],
                       rows: byShelf, missing: t(.noPlace)),
            holdTable,
        ]
    }

    struct Count: Decodable { var n: Int }

    static func distinctBorrowers(_ q: Query, _ period: ReportPeriod, _ counted: [Borrower]?) async throws -> Int {
        if let counted { return Set(counted.map(\.card)).count }
        return try await q.sql.raw("SELECT COUNT(DISTINCT l.member_card_id) AS n FROM loans l WHERE \(q.lent(in: period))").first(decoding: Count.self)?.n ?? 0
    }
}
