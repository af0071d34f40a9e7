import Foundation
import ShelfmarkCore
import SQLKit

extension Reports {
    /// The collection as it is now: titles and copies (withdrawn ones left out) by category, shelf,
    /// reading level and decade of publication; copies added per month or week of the period.
    static func collection(_ q: Query, _ period: ReportPeriod) async throws -> [ReportTableDTO] {
        let t = q.t, buckets = period.buckets(q.calendar)
        let tf = q.filters(title: "t.id")
        let cf = q.filters(title: "x.title_id", copy: "x.id")
        let titles: SQLQueryString = "t.library_no = \(LibraryNumber.of(q.library)) AND t.wishlist = \(bind: false) \(tf)"
        let copies: SQLQueryString = "x.library_no = \(LibraryNumber.of(q.library)) AND x.status <> 'withdrawn' \(cf)"
        let titleCount = try await q.sql.raw("SELECT COUNT(*) AS n FROM titles t WHERE \(titles)").first(decoding: Count.self)?.n ?? 0
        struct Copies: Decodable { var n: Int; var lost: Int }
        let copyCounts = try await q.sql.raw("""
            SELECT COUNT(*) AS n, CAST(COALESCE(SUM(CASE WHEN x.status IN ('lost', 'damaged') THEN 1 ELSE 0 END), 0) AS BIGINT) AS lost
            FROM copies x WHERE \(copies)
            """).first(decoding: Copies.self)
        let (copyCount, lostCount) = (copyCounts?.n ?? 0, copyCounts?.lost ?? 0)

        // A title is in a category once (names are unique in a library), so titles are rows, not a
        // DISTINCT over a join with the copies; each title's copies are counted off `copies_title_status`.
        let copiesOfTitle: SQLQueryString = "(SELECT COUNT(*) FROM copies x WHERE x.title_id = t.id AND x.status <> 'withdrawn')"
        let byCategory = try await q.sql.raw("""
            SELECT c.name AS label, COUNT(*) AS n, CAST(COALESCE(SUM(\(copiesOfTitle)), 0) AS BIGINT) AS m FROM titles t
            JOIN title_categories tc ON tc.title_id = t.id JOIN categories c ON c.id = tc.category_id
            WHERE \(titles) GROUP BY c.name
            """).all(decoding: LabelCount.self)
        // The titles of no category and their copies are what the titles in one leave of the totals
        // (counting the copies of the others title by title cost a probe per title); a wish has no copies.
        // Narrowed by shelf, the copies counted are the shelf's, a title's copies are all of them: counted.
        let inNone = q.has(.shelf)
        let counted = try await q.sql.raw("""
            SELECT NULL AS label, COUNT(*) AS n, CAST(COALESCE(SUM(\(copiesOfTitle)), 0) AS BIGINT) AS m FROM titles t
            WHERE \(titles) AND \(unsafeRaw: inNone ? "NOT EXISTS" : "EXISTS") (SELECT 1 FROM title_categories tc WHERE tc.title_id = t.id)
            """).first(decoding: LabelCount.self)
        let noCategory = [inNone ? LabelCount(label: nil, n: counted?.n ?? 0, m: counted?.m ?? 0)
                          : LabelCount(label: nil, n: titleCount - (counted?.n ?? 0), m: copyCount - (counted?.m ?? 0))].filter { $0.n > 0 }
        let byShelf = try await q.sql.raw("""
            SELECT x.location AS label, COUNT(DISTINCT x.title_id) AS n, COUNT(*) AS m FROM copies x WHERE \(copies) GROUP BY x.location
            """).all(decoding: LabelCount.self)
        let byLevel = try await q.sql.raw("""
            SELECT t.reading_level AS label, COUNT(*) AS n FROM titles t WHERE \(titles) GROUP BY t.reading_level
            """).all(decoding: LabelCount.self)
        struct Decade: Decodable { var y: String?; var n: Int }
        let years = try await q.sql.raw("""
            SELECT SUBSTR(t.published_date, 1, 3) AS y, COUNT(*) AS n FROM titles t WHERE \(titles) GROUP BY SUBSTR(t.published_date, 1, 3)
            """).all(decoding: Decade.self)
        var decades: [Int: Int] = [:], unknownYear = 0
        for row in years {
            if let y = row.y, y.count == 3, let d = Int(y) { decades[d * 10, default: 0] += row.n } else { unknownYear += row.n }
        }
        var decadeRows = decades.keys.sorted().map { [ReportCellDTO.text(t.format(.reportDecade, String($0))), .count(decades[$0]!)] }
        if unknownYear > 0 { decadeRows.append([.text(t(.reportYearUnknown)), .count(unknownYear)]) }

        let added = try await perBucket(q, buckets, table: "copies", column: "created_at", start: period.start, end: period.end,
                                        where: q.filters(title: "x.title_id", copy: "x.id"))
        let when = period.grouping == .month ? t(.reportMonth) : t(.reportWeekOf)
        let titlesCopies: [ReportColumnDTO] = [.init(title: t(.reportTitles), kind: .count), .init(title: t(.reportCopies), kind: .count)]
        return [
            table(key: "summary", title: t(.reportSummary),
                  columns: [.init(title: t(.reportFigure), kind: .text), .init(title: t(.reportValue), kind: .count)],
                  rows: [[.text(t(.reportTitles)), .count(titleCount)], [.text(t(.reportCopies)), .count(copyCount)],
                         [.text(t(.reportLostOrDamaged)), .count(lostCount)],
                         [.text(t(.reportCopiesAdded)), .count(added.reduce(0, +))]],
                  chart: .none, totals: false),
            namedTable(key: "byCategory", title: t(.reportByCategory), columns: [.init(title: t(.reportCategory), kind: .text)] + titlesCopies,
                       rows: byCategory + noCategory, missing: t(.noCategoryGroup), note: t(.reportTwoCategoriesNote)),
            namedTable(key: "byShelf", title: t(.reportByShelf), columns: [.init(title: t(.location), kind: .text)] + titlesCopies,
                       rows: byShelf, missing: t(.noPlace)),
            namedTable(key: "byLevel", title: t(.reportByLevel),
                       columns: [.init(title: t(.readingLevelField), kind: .text), .init(title: t(.reportTitles), kind: .count)],
                       rows: byLevel, missing: t(.noLevelGroup)),
            table(key: "byDecade", title: t(.reportByDecade),
                  columns: [.init(title: t(.reportPublished), kind: .text), .init(title: t(.reportTitles), kind: .count)],
                  rows: decadeRows, chart: .columns),
            table(key: "acquisitions", title: t(.reportAcquisitions),
                  columns: [.init(title: when, kind: .text), .init(title: t(.reportCopiesAdded), kind: .count)],
                  rows: buckets.indices.map { [.text(label(buckets[$0], period.grouping, t)), .count(added[$0])] }, chart: .columns),
        ]
    }

    /// Copies on the shelves (not lost or withdrawn) that nobody borrowed for `notLentYears` and that
    /// were published (or, the year unknown, acquired) at least `olderThanYears` ago, by shelf and
    /// title: the list to take to the shelf (each copy's last loan is kept on it, `copies.last_lent_at`).
    /// And the copies lost or damaged this year.
    static func weeding(_ q: Query) async throws -> [ReportTableDTO] {
        let t = q.t, o = q.options, cal = q.calendar
        let notLentSince = cal.date(byAdding: .year, value: -o.notLentYears, to: q.now)!
        let olderThan = cal.date(byAdding: .year, value: -o.olderThanYears, to: q.now)!
        let lastYear = String(format: "%04d", cal.component(.year, from: q.now) - o.olderThanYears)
        let cf = q.filters(title: "x.title_id", copy: "x.id")
        struct Row: Decodable {
            var title: String; var authors: [String]; var location: String?; var barcode: String; var published_date: String?
            var created_at: Date?; var last_lent: Date?
        }
        let rows = try await q.sql.raw("""
            SELECT t.title, t.authors, x.location, x.barcode, t.published_date, x.created_at, x.last_lent_at AS last_lent
            FROM copies x JOIN titles t ON t.id = x.title_id
            WHERE x.library_no = \(LibraryNumber.of(q.library)) AND x.status IN ('available', 'on_loan', 'damaged') AND t.wishlist = \(bind: false) \(cf)
              AND (x.last_lent_at IS NULL OR x.last_lent_at < \(bind: notLentSince))
              AND (SUBSTR(t.published_date, 1, 4) <= \(bind: lastYear)
                   OR ((t.published_date IS NULL OR t.published_date = '') AND x.created_at < \(bind: olderThan)))
            ORDER BY x.location, t.sort_key, x.barcode
            LIMIT \(bind: maxRows + 1)
            """).all(decoding: Row.self)
        // A title's year sorts as text; a "year" that is not four digits (a typo, "c1990") is not old by it.
        let old = rows.filter { r in
            guard let d = r.published_date, !d.isEmpty else { return true }
            return d.count >= 4 && d.prefix(4).allSatisfy(\.isNumber)
        }
        let list = table(key: "weedingList", title: t(.reportWeedingList),
                         columns: [.init(title: t(.location), kind: .text), .init(title: t(.title), kind: .text),
                                   .init(title: t(.authorsField), kind: .text), .init(title: t(.barcode), kind: .text),
                                   .init(title: t(.reportPublished), kind: .text), .init(title: t(.reportAcquired), kind: .date),
                                   .init(title: t(.reportLastLent), kind: .date)],
                         rows: old.prefix(maxRows).map { r in
                             [.text(r.location), .text(r.title), .text(r.authors.joined(separator: ", ")), .text(r.barcode),
                              .text(r.published_date.map { String($0.prefix(4)) }), .number(r.created_at?.timeIntervalSince1970),
                              .number(r.last_lent?.timeIntervalSince1970)]
                         }, chart: .none,
                         note: t.format(.reportWeedingNote, t.number(o.notLentYears), t.number(o.olderThanYears)), totals: false)
        let yearStart = cal.date(from: cal.dateComponents([.year], from: q.now))!
        struct Gone: Decodable { var title: String; var barcode: String; var location: String?; var status: String; var status_at: Date? }
        let gone = try await q.sql.raw("""
            SELECT t.title, x.barcode, x.location, x.status, x.status_at FROM copies x JOIN titles t ON t.id = x.title_id
            WHERE x.library_no = \(LibraryNumber.of(q.library)) AND x.status IN ('lost', 'damaged') AND x.status_at >= \(bind: yearStart) \(cf)
            ORDER BY x.status_at DESC LIMIT \(bind: maxRows)
            """).all(decoding: Gone.self)
        let goneTable = table(key: "lostAndDamaged", title: t(.reportLostThisYear),
                              columns: [.init(title: t(.title), kind: .text), .init(title: t(.barcode), kind: .text),
                                        .init(title: t(.location), kind: .text), .init(title: t(.status), kind: .text),
                                        .init(title: t(.reportSince), kind: .date)],
                              rows: gone.map { g in
                                  [.text(g.title), .text(g.barcode), .text(g.location),
                                   .text(g.status == CopyStatus.lost.rawValue ? t(.statusLost) : t(.statusDamaged)), .number(g.status_at?.timeIntervalSince1970)]
                              }, chart: .none, totals: false)
        return [list, goneTable]
    }
}
