import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// The library in numbers. Every figure is counted from the rows that outlive their members: a loan
/// keeps its borrower's card, name and class at lending (`member_grade`); fines and closed holds stay
/// when their member is deleted (`member_id` NULL). A deleted member is counted, never named.
///
/// Periods are read off indexes by the moment they start (`loans_library_lent`, `holds_library_placed`,
/// `fines_library_created`, `copies_library_created`, returns by `loans_library_returned`); each time
/// series is one query that puts every row in its month or week by a `CASE` over the buckets'
/// bounds (the library's calendar, worked out here), so SQLite and PostgreSQL count alike.
enum Reports {
    /// The most rows a table shows on the page (the CSV and the PDF have all, up to `maxRows`).
    static let shownRows = 200
    /// The most rows of any table (a weeding list of a whole 100,000-book library fits).
    static let maxRows = 100_000
    /// A smart collection narrows a report by its titles, up to this many.
    static let maxCollectionTitles = 10_000

    static func make(_ kind: ReportKind, _ options: ReportOptions, library: LibraryContext, now: Date, t: Strings,
                     on db: any Database) async throws -> ReportDTO {
        try await make(kind, options, library: library.libraryID, calendar: library.policy.calendar, now: now, t: t, on: db)
    }

    /// The report of `library` in its `calendar` (the library's time zone), on `now`.
    static func make(_ kind: ReportKind, _ options: ReportOptions, library libraryID: UUID, calendar: Calendar, now: Date, t: Strings,
                     fromLoans: Bool = false, on db: any Database) async throws -> ReportDTO {
        var t = t
        t.timeZone = calendar.timeZone
        let period = kind.hasPeriod ? try options.period(now: now, calendar: calendar) : nil
        let currency = try await db.sql.raw("SELECT currency FROM libraries WHERE id = \(bind: libraryID)").first()?
            .decode(column: "currency", as: String.self) ?? "EUR"
        var scope = Query(library: libraryID, options: options, kind: kind, now: now, calendar: calendar, t: t, db: db)
        scope.fromLoans = fromLoans
        if let id = options.collection, kind.filters.contains(.collection) {
            let collection = try await Collections.get(id, library: libraryID, on: db)
            let ids = try await Collections.titleIDs(collection.filter, library: libraryID, now: now, limit: maxCollectionTitles + 1, on: db)
            guard ids.count <= maxCollectionTitles else { throw ReportError.collectionTooLarge(max: maxCollectionTitles) }
            scope.collectionTitles = ids
        }
        let tables: [ReportTableDTO]
        switch kind {
        case .circulation: tables = try await circulation(scope, period!)
        case .collection: tables = try await collection(scope, period!)
        case .weeding: tables = try await weeding(scope)
        case .readers: tables = try await readers(scope, period!)
        case .money: tables = try await money(scope, period!)
        }
        return ReportDTO(kind: kind, title: t(kind.titleKey), from: period?.start, to: period.map { $0.lastDay(calendar) },
                         grouping: period?.grouping, currency: currency, tables: tables)
    }

    /// The filters chosen, as the reader reads them ("Class: 4A", "Shelf: Fiction"), for the page and the PDF.
    static func filterTexts(_ o: ReportOptions, kind: ReportKind, library: UUID, t: Strings, on db: any Database) async throws -> [String] {
        var texts: [String] = []
        let allowed = kind.filters
        struct Name: Decodable { var name: String }
        if allowed.contains(.grade), let grade = o.grade { texts.append(t(.sortClass) + ": " + grade) }
        if allowed.contains(.category), let id = o.category,
           let name = try await db.sql.raw("SELECT name FROM categories WHERE id = \(bind: id) AND library_id = \(bind: library)").first(decoding: Name.self) {
            texts.append(t(.reportCategory) + ": " + name.name)
        }
        if allowed.contains(.shelf), let shelf = o.shelf { texts.append(t(.location) + ": " + shelf) }
        if allowed.contains(.level), let level = o.level { texts.append(t(.readingLevelField) + ": " + level) }
        if allowed.contains(.collection), let id = o.collection,
           let name = try await db.sql.raw("SELECT name FROM collections WHERE id = \(bind: id) AND library_id = \(bind: library)").first(decoding: Name.self) {
            texts.append(t(.collectionsTitle) + ": " + name.name)
        }
        return texts
    }

    /// A borrower of a period: the card, the class at lending and the loans.
    struct Borrower: Sendable { var card: String; var grade: String; var loans: Int }

    /// What every query of one report shares.
    struct Query: Sendable {
        var library: UUID
        var options: ReportOptions
        var kind: ReportKind
        var now: Date
        var calendar: Calendar
        var t: Strings
        var db: any Database
        var collectionTitles: [UUID]? = nil
        /// Counted from the loans even where the kept counts could answer (the tests hold one to the other).
        var fromLoans = false

        var sql: any SQLDatabase { db.sql }

        /// The loans (`l`) lent in `period`, narrowed by the report's filters.
        func lent(in period: ReportPeriod) -> SQLQueryString {
            LibraryNumber.rows(of: "loans", library, alias: "l") + " AND l.checked_out_at >= \(bind: period.start) AND l.checked_out_at < \(bind: period.end)"
                + filters(title: "l.title_id", copy: "l.copy_id", grade: "l.member_grade")
        }

        /// Loans (`n`) and different borrowers (`m`) per class at lending, of the loans lent in `period`;
        /// from the counts with the period's `borrowers` when they could be counted.
        func loansByClass(_ period: ReportPeriod, borrowers counted: [Borrower]?) async throws -> [LabelCount] {
            if let counted {
                var borrowers: [String: Set<String>] = [:]
                for b in counted { borrowers[b.grade, default: []].insert(b.card) }
                return try await talliedLoans(by: .grade, period).map { row in
                    LabelCount(label: row.label, n: row.n, m: borrowers[row.label ?? ""]?.count ?? 0)
                }
            }
            return try await sql.raw("""
                SELECT l.member_grade AS label, COUNT(*) AS n, COUNT(DISTINCT l.member_card_id) AS m FROM loans l
                WHERE \(lent(in: period)) GROUP BY l.member_grade
                """).all(decoding: LabelCount.self)
        }

        /// The filters on a row with a title (`titleColumn`), a copy (`copyColumn`) and a class (`gradeColumn`).
        func filters(title titleColumn: String, copy copyColumn: String? = nil, grade gradeColumn: String? = nil) -> SQLQueryString {
            var q: SQLQueryString = ""
            let o = options, allowed = kind.filters
            if allowed.contains(.grade), let grade = o.grade, let column = gradeColumn {
                q += " AND \(unsafeRaw: column) = \(bind: grade)"
            }
            if allowed.contains(.category), let category = o.category {
                q += " AND EXISTS (SELECT 1 FROM title_categories fc WHERE fc.title_id = \(unsafeRaw: titleColumn) AND fc.category_id = \(bind: category))"
            }
            if allowed.contains(.shelf), let shelf = o.shelf {
                if let copy = copyColumn {
                    q += " AND EXISTS (SELECT 1 FROM copies fs WHERE fs.id = \(unsafeRaw: copy) AND fs.location = \(bind: shelf))"
                } else {
                    q += " AND EXISTS (SELECT 1 FROM copies fs WHERE fs.title_id = \(unsafeRaw: titleColumn) AND fs.location = \(bind: shelf))"
                }
            }
            if allowed.contains(.level), let level = o.level {
                q += " AND EXISTS (SELECT 1 FROM titles fl WHERE fl.id = \(unsafeRaw: titleColumn) AND fl.reading_level = \(bind: level))"
            }
            if let ids = collectionTitles {
                q += ids.isEmpty ? " AND 1 = 0" : " AND \(unsafeRaw: titleColumn) IN (\(binds: ids))"
            }
            return q
        }
    }

    // MARK: - Shared pieces

    /// `CASE` putting `column` (already within the period) into its bucket's index.
    static func bucketOf(_ column: String, _ buckets: [ReportPeriod.Bucket]) -> SQLQueryString {
        guard buckets.count > 1 else { return "0" }
        var q: SQLQueryString = "CASE"
        for (i, bucket) in buckets.dropLast().enumerated() { q += " WHEN \(unsafeRaw: column) < \(bind: bucket.end) THEN \(unsafeRaw: String(i))" }
        return q + " ELSE \(unsafeRaw: String(buckets.count - 1)) END"
    }

    struct BucketCount: Decodable { var b: Int; var n: Int }

    /// Counts per bucket from rows of `table` (alias `x`) whose `column` falls in the period.
    static func perBucket(_ q: Query, _ buckets: [ReportPeriod.Bucket], table: String, column: String, start: Date, end: Date,
                          where extra: SQLQueryString, sum: String? = nil) async throws -> [Int] {
        let value: SQLQueryString = sum.map { "CAST(COALESCE(SUM(\(unsafeRaw: $0)), 0) AS BIGINT)" } ?? "COUNT(*)"
        let rows = try await q.sql.raw("""
            SELECT \(bucketOf("x." + column, buckets)) AS b, \(value) AS n FROM \(unsafeRaw: table) x
            WHERE \(LibraryNumber.rows(of: table, q.library, alias: "x"))
              AND x.\(unsafeRaw: column) >= \(bind: start) AND x.\(unsafeRaw: column) < \(bind: end)
            \(extra) GROUP BY 1
            """).all(decoding: BucketCount.self)
        var counts = Array(repeating: 0, count: buckets.count)
        for row in rows where counts.indices.contains(row.b) { counts[row.b] += row.n }
        return counts
    }

    static func label(_ bucket: ReportPeriod.Bucket, _ grouping: ReportPeriod.Grouping, _ t: Strings) -> String {
        grouping == .month ? t.monthYear(bucket.start) : t.date(bucket.start)
    }

    struct LabelCount: Decodable { var label: String?; var n: Int; var m: Int? }

    /// A table of named counts, largest first, the unnamed ones last under `missing`.
    static func namedTable(key: String, title: String, columns: [ReportColumnDTO], rows: [LabelCount], missing: String,
                           chart: ReportChartKind = .bars, note: String? = nil) -> ReportTableDTO {
        var named = rows.filter { !($0.label ?? "").isEmpty }
        named.sort { $0.n != $1.n ? $0.n > $1.n : ($0.label ?? "").localizedStandardCompare($1.label ?? "") == .orderedAscending }
        let unnamed = rows.filter { ($0.label ?? "").isEmpty }
        var cells = named.map { row -> [ReportCellDTO] in
            [.text(row.label)] + [.count(row.n)] + (columns.count > 2 ? [.count(row.m ?? 0)] : [])
        }
        if !unnamed.isEmpty {
            let n = unnamed.reduce(0) { $0 + $1.n }, m = unnamed.reduce(0) { $0 + ($1.m ?? 0) }
            cells.append([.text(missing)] + [.count(n)] + (columns.count > 2 ? [.count(m)] : []))
        }
        return table(key: key, title: title, columns: columns, rows: cells, chart: chart, note: note)
    }

    /// A table with its totals summed from the count and money columns.
    static func table(key: String, title: String, columns: [ReportColumnDTO], rows: [[ReportCellDTO]], chart: ReportChartKind,
                      note: String? = nil, totals: Bool = true) -> ReportTableDTO {
        var sums: [ReportCellDTO]?
        if totals, rows.count > 1 {
            sums = columns.enumerated().map { i, column in
                switch column.kind {
                case .count, .money: .number(rows.reduce(0) { $0 + ($1[i].number ?? 0) })
                default: ReportCellDTO(text: nil, number: nil)
                }
            }
        }
        return ReportTableDTO(key: key, title: title, columns: columns, rows: rows, totals: sums, chart: chart, note: note)
    }
}

extension ReportKind {
    var titleKey: L {
        switch self {
        case .circulation: .reportCirculation
        case .collection: .reportCollection
        case .weeding: .reportWeeding
        case .readers: .reportReaders
        case .money: .reportMoney
        }
    }

    var summaryKey: L {
        switch self {
        case .circulation: .reportCirculationAbout
        case .collection: .reportCollectionAbout
        case .weeding: .reportWeedingAbout
        case .readers: .reportReadersAbout
        case .money: .reportMoneyAbout
        }
    }
}
