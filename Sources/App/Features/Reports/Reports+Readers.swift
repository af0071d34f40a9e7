import Foundation
import ShelfmarkCore
import SQLKit

extension Reports {
    /// Borrowing by class (as it was when lent) with how many of the class's members borrowed, by
    /// member (a deleted member counted as "former members", not named), by reading level; and the
    /// pages members logged per month or week.
    static func readers(_ q: Query, _ period: ReportPeriod) async throws -> [ReportTableDTO] {
        let t = q.t, buckets = period.buckets(q.calendar)
        let inPeriod = q.lent(in: period)
        let borrowers = try await q.countedBorrowers(period)
        let byClass = try await q.loansByClass(period, borrowers: borrowers)
        struct Size: Decodable { var grade: String?; var n: Int }
        let sizes = Dictionary(try await q.sql.raw("""
            SELECT grade, COUNT(*) AS n FROM members WHERE library_id = \(bind: q.library) AND archived_at IS NULL GROUP BY grade
            """).all(decoding: Size.self).map { ($0.grade ?? "", $0.n) }, uniquingKeysWith: +)
        var classRows = byClass.filter { !($0.label ?? "").isEmpty }
            .sorted { ($0.label ?? "").localizedStandardCompare($1.label ?? "") == .orderedAscending }
        if let grade = q.options.grade, classRows.isEmpty { classRows = [LabelCount(label: grade, n: 0, m: 0)] }
        let unclassed = byClass.filter { ($0.label ?? "").isEmpty }
        var classCells = classRows.map { row -> [ReportCellDTO] in
            let members = sizes[row.label ?? ""] ?? 0
            return [.text(row.label), .count(row.n), .count(row.m ?? 0), .count(members),
                    .number(members == 0 ? nil : min(100, (Double(row.m ?? 0) / Double(members) * 1000).rounded() / 10))]
        }
        if !unclassed.isEmpty {
            classCells.append([.text(t(.reportNoClass)), .count(unclassed.reduce(0) { $0 + $1.n }), .count(unclassed.reduce(0) { $0 + ($1.m ?? 0) }),
                               .count(sizes[""] ?? 0), .number(nil)])
        }
        let classTable = table(key: "byClass", title: t(.reportReadingByClass),
                               columns: [.init(title: t(.sortClass), kind: .text), .init(title: t(.reportLoans), kind: .count),
                                         .init(title: t(.reportBorrowers), kind: .count), .init(title: t(.members), kind: .count),
                                         .init(title: t(.reportShareBorrowed), kind: .percent)],
                               rows: classCells, chart: .bars, note: t(.reportClassAtLendingNote))

        // Per member: their card and name now; loans of deleted members together, unnamed. A loan
        // keeps its borrower's card; a card no member holds any more is a former member's.
        struct MemberRow: Decodable { var card: String; var n: Int }
        let perMember: [MemberRow]
        if let borrowers {
            perMember = Dictionary(borrowers.map { ($0.card, $0.loans) }, uniquingKeysWith: +)
                .map { MemberRow(card: $0.key, n: $0.value) }
        } else {
            perMember = try await q.sql.raw("""
                SELECT l.member_card_id AS card, COUNT(*) AS n FROM loans l WHERE \(inPeriod) GROUP BY l.member_card_id
                """).all(decoding: MemberRow.self)
        }
        struct Who: Decodable { var card_id: String; var first_name: String; var last_name: String; var grade: String? }
        var who: [String: Who] = [:]
        for chunk in perMember.map(\.card).chunked(500) {
            for w in try await q.sql.raw("""
                SELECT card_id, first_name, last_name, grade FROM members WHERE library_id = \(bind: q.library) AND card_id IN (\(binds: chunk))
                """).all(decoding: Who.self) { who[w.card_id] = w }
        }
        // Most loans first, then by name.
        let named: [(name: String, w: Who, n: Int)] = perMember.compactMap { row in
            who[row.card].map { w in (Member.fullName(first: w.first_name, last: w.last_name), w, row.n) }
        }
        let ranked = named.sorted { a, b in a.n != b.n ? a.n > b.n : a.name.localizedStandardCompare(b.name) == .orderedAscending }
        var memberCells: [[ReportCellDTO]] = ranked.prefix(maxRows).map { row in
            [.text(row.name), .text(row.w.card_id), .text(row.w.grade), .count(row.n)]
        }
        let former = perMember.filter { who[$0.card] == nil }.reduce(0) { $0 + $1.n }
        if former > 0 { memberCells.append([.text(t(.reportFormerMembers)), .text(nil), .text(nil), .count(former)]) }
        let memberTable = table(key: "byMember", title: t(.reportReadingByMember),
                                columns: [.init(title: t(.member), kind: .text), .init(title: t(.cardID), kind: .text),
                                          .init(title: t(.sortClass), kind: .text), .init(title: t(.reportLoans), kind: .count)],
                                rows: memberCells, chart: .none)

        let byLevel = q.talliedFacets ? try await q.talliedFacet(.level, period) : try await q.sql.raw("""
            SELECT t.reading_level AS label, COUNT(*) AS n FROM loans l LEFT JOIN titles t ON t.id = l.title_id
            WHERE \(inPeriod) GROUP BY t.reading_level
            """).all(decoding: LabelCount.self)

        // Pages logged by members (and by members since deleted) on the days of each bucket.
        let firstDay = ReadingRules.dayNumber(period.start, in: q.calendar.timeZone)
        let dayAfter = ReadingRules.dayNumber(period.end, in: q.calendar.timeZone)
        struct Day: Decodable { var day: Int; var pages: Int }
        let days = try await q.sql.raw("""
            SELECT day, CAST(SUM(pages) AS BIGINT) AS pages FROM reading_days
            WHERE library_id = \(bind: q.library) AND day >= \(bind: firstDay) AND day < \(bind: dayAfter)
              AND (reader_key LIKE 'm:%' OR reader_key LIKE 'x:%') GROUP BY day
            """).all(decoding: Day.self)
        let bucketDays = buckets.map { ReadingRules.dayNumber($0.end, in: q.calendar.timeZone) }
        var pages = Array(repeating: 0, count: buckets.count)
        for d in days { if let i = bucketDays.firstIndex(where: { d.day < $0 }) { pages[i] += d.pages } }
        let when = period.grouping == .month ? t(.reportMonth) : t(.reportWeekOf)
        let pageTable = table(key: "pagesLogged", title: t(.reportPagesLogged),
                              columns: [.init(title: when, kind: .text), .init(title: t(.reportPages), kind: .count)],
                              rows: buckets.indices.map { [.text(label(buckets[$0], period.grouping, t)), .count(pages[$0])] },
                              chart: .columns, note: t(.reportPagesNote))
        return [
            classTable,
            memberTable,
            namedTable(key: "byLevel", title: t(.reportReadingByLevel),
                       columns: [.init(title: t(.readingLevelField), kind: .text), .init(title: t(.reportLoans), kind: .count)],
                       rows: byLevel, missing: t(.noLevelGroup)),
            pageTable,
        ]
    }

    /// Fines charged, paid and waived per month or week (members deleted since included), and what is
    /// owed now.
    static func money(_ q: Query, _ period: ReportPeriod) async throws -> [ReportTableDTO] {
        let t = q.t, buckets = period.buckets(q.calendar)
        var sums: [FineKind: [Int]] = [:]
        for kind in FineKind.allCases {
            sums[kind] = try await perBucket(q, buckets, table: "fines", column: "created_at", start: period.start, end: period.end,
                                             where: " AND x.kind = \(bind: kind.rawValue)", sum: "x.amount")
        }
        let owed = try await q.sql.raw("""
            SELECT CAST(COALESCE(SUM(CASE WHEN kind = 'charge' THEN amount ELSE -amount END), 0) AS BIGINT) AS n FROM fines
            WHERE library_id = \(bind: q.library) AND member_id IS NOT NULL
            """).first(decoding: Count.self)?.n ?? 0
        let when = period.grouping == .month ? t(.reportMonth) : t(.reportWeekOf)
        let (charged, paid, waived) = (sums[.charge]!, sums[.payment]!, sums[.waiver]!)
        return [
            table(key: "summary", title: t(.reportSummary),
                  columns: [.init(title: t(.reportFigure), kind: .text), .init(title: t(.reportAmount), kind: .money)],
                  rows: [[.text(t(.reportCharged)), .count(charged.reduce(0, +))], [.text(t(.reportPaid)), .count(paid.reduce(0, +))],
                         [.text(t(.reportWaived)), .count(waived.reduce(0, +))], [.text(t(.reportOwedNow)), .count(max(0, owed))]],
                  chart: .none, totals: false),
            table(key: "finesOverTime", title: t(.reportFinesOverTime),
                  columns: [.init(title: when, kind: .text), .init(title: t(.reportCharged), kind: .money),
                            .init(title: t(.reportPaid), kind: .money), .init(title: t(.reportWaived), kind: .money)],
                  rows: buckets.indices.map { [.text(label(buckets[$0], period.grouping, t)), .count(charged[$0]), .count(paid[$0]), .count(waived[$0])] },
                  chart: .columns, note: t(.reportFormerFinesNote)),
        ]
    }
}
