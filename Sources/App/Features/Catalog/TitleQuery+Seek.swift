import Fluent
import FluentSQL
import Foundation
import SQLKit

/// Keyset (seek) paging of the catalog's lists: a page is found from a title on the page
/// before or after it, by the list order's index, so page 1,000 costs what page 2 costs at any size
/// of catalog. The page number stays in the URL for the reader; `OFFSET` remains only for a page
/// typed by number, and for searches, which are bounded (`sortedSearchLimit`).
extension TitleQuery {
    enum Seek: Sendable, Equatable {
        /// The page starts just after this title (the "next" link: the last title of the page before).
        case after(UUID)
        /// The page ends just before this title (the "previous" link: the first title of the page after).
        case before(UUID)
        /// The page starts at this title (a letter jump, aligned to a page boundary).
        case from(UUID)
        /// The last page: the list's last titles, as many as the count leaves for it.
        case end

        /// How a page's link says it (`CatalogPage.seek` reads it back): `after=<id>`, `before=`, `from=`, `end=1`.
        var queryItem: (String, String?) {
            switch self {
            case .after(let id): ("after", id.uuidString)
            case .before(let id): ("before", id.uuidString)
            case .from(let id): ("from", id.uuidString)
            case .end: ("end", "1")
            }
        }

        var anchor: UUID? {
            switch self {
            case .after(let id), .before(let id), .from(let id): id
            case .end: nil
            }
        }

        /// Whether the page is read from the far side (then put back in order by the outer query).
        var backwards: Bool {
            switch self {
            case .before, .end: true
            case .after, .from: false
            }
        }
    }

    /// The key that makes every order total, last in each: SQLite's rowid (every index of a rowid table
    /// ends in it, so the list orders' indexes need not repeat the 36 characters of the id,
    /// `LeanListIndexes`), PostgreSQL's id.
    static func tiebreak(sqlite: Bool) -> String { sqlite ? "rowid" : "id" }

    /// The columns of `sort`'s order, each with whether it ascends; the last is always the tiebreak.
    static func orderKeys(_ sort: TitleSort, sqlite: Bool) -> [(column: String, ascending: Bool)] {
        let last = tiebreak(sqlite: sqlite)
        return switch sort {
        case .title: [("sort_key", true), (last, true)]
        case .author: [("author_key", true), ("sort_key", true), (last, true)]
        case .newest: [("created_at", false), (last, false)]
        case .borrowed: [("loan_count", false), ("sort_key", true), (last, true)]
        case .shelf: [("call_number_sort", true), ("sort_key", true), (last, true)]
        }
    }

    /// `sort`'s ORDER BY, or its reverse (to read a page from its far end).
    static func orderBy(_ sort: TitleSort, reversed: Bool = false, sqlite: Bool) -> SQLQueryString {
        let keys = orderKeys(sort, sqlite: sqlite).map { "t.\($0.column)" + ($0.ascending != reversed ? "" : " DESC") }
        return " ORDER BY \(unsafeRaw: keys.joined(separator: ", "))"
    }

    /// The titles that come after (or before) `anchor` in `sort`'s order, `inclusive` of it or not: a
    /// lexicographic comparison with the anchor's keys, led by a plain range on the first key so each
    /// database walks the order's index from the anchor.
    static func seekCondition(_ sort: TitleSort, anchor: UUID, later: Bool, inclusive: Bool, sqlite: Bool) -> SQLQueryString {
        let keys = orderKeys(sort, sqlite: sqlite)
        func value(_ column: String) -> SQLQueryString { "(SELECT a.\(unsafeRaw: column) FROM titles a WHERE a.id = \(bind: anchor))" }
        func op(_ ascending: Bool, orEqual: Bool) -> String { (ascending == later ? ">" : "<") + (orEqual ? "=" : "") }
        func chain(_ i: Int) -> SQLQueryString {
            let key = keys[i]
            let last = i == keys.count - 1
            let compare: SQLQueryString = "t.\(unsafeRaw: key.column) \(unsafeRaw: op(key.ascending, orEqual: last && inclusive)) " + value(key.column)
            if last { return compare }
            return "(" + compare + " OR (t.\(unsafeRaw: key.column) = " + value(key.column) + " AND " + chain(i + 1) + "))"
        }
        let lead: SQLQueryString = "t.\(unsafeRaw: keys[0].column) \(unsafeRaw: op(keys[0].ascending, orEqual: true)) " + value(keys[0].column)
        return " AND " + lead + " AND " + chain(0)
    }

    /// Whether `id` is a title of this list (library and wishlist), so a seek from it means something.
    static func isAnchor(_ id: UUID, _ filters: Filters, libraryID: UUID, on sql: any SQLDatabase) async throws -> Bool {
        try await sql.raw("SELECT 1 AS n FROM titles t WHERE t.id = \(bind: id) AND t.library_no = \(LibraryNumber.of(libraryID))"
                          + " AND t.wishlist = \(bind: filters.wishlist)").first() != nil
    }

    /// How many titles the last page of `total` holds, `limit` to a page.
    static func lastPageCount(total: Int, limit: Int) -> Int {
        total == 0 ? 0 : total - ((total - 1) / limit) * limit
    }

    /// The first title of the A–Z page at `offset` (a page typed by its number), found from the kept
    /// counts: the part of the list the offset falls in, then the offset within that part off the A–Z
    /// sections' index. Skipping by offset walked `offset` index entries (50,000 for page 1,000: 63 ms
    /// on PostgreSQL at 100,000 titles); this walks at most one section's. Nil when the kept counts
    /// cannot say (a filter they do not hold, another order) or the offset is past the list's end.
    static func pageStart(atOffset offset: Int, _ filters: Filters, libraryID: UUID, now: Date, on sql: any SQLDatabase) async throws -> UUID? {
        guard filters.sort == .title, filters.section == nil, offset > 0, let kept = keptFilter(filters) else { return nil }
        var start = 0
        for (part, n) in try await keptParts(kept, wishlist: filters.wishlist, libraryID: libraryID, on: sql).sorted(by: { $0.key.rank < $1.key.rank }) {
            guard offset < start + n else { start += n; continue }
            var within: SQLQueryString = " AND t.section = \(bind: part.section)"
            if part.section == "#" { within += part.early ? " AND t.sort_key < 'a'" : " AND t.sort_key >= 'a'" }
            let sqlite = sql.dialect.name == "sqlite"
            return try await sql.raw("SELECT t.id FROM titles t WHERE " + whereClause(filters, libraryID: libraryID, now: now, withSection: false) + within
                                     + orderBy(.title, sqlite: sqlite) + " LIMIT 1 OFFSET \(literal: offset - start)").first()?.decode(column: "id", as: UUID.self)
        }
        return nil
    }

    /// The title a letter jump's page starts at: the page boundary at or before where section `letter`
    /// begins (its `position` in A–Z order), found by stepping back from the section's first title
    /// at most a page's length, so the page is the one a reader paging from the start would see.
    static func pageStart(ofSection letter: String, position: Int, _ filters: Filters, libraryID: UUID, now: Date,
                          on sql: any SQLDatabase) async throws -> UUID? {
        let sqlite = sql.dialect.name == "sqlite"
        var f = filters
        f.sort = .title
        let clause = whereClause(f, libraryID: libraryID, now: now, withSection: false)
        guard let first = try await sql.raw("SELECT t.id FROM titles t WHERE " + clause + " AND t.section = \(bind: letter)"
                                            + orderBy(.title, reversed: false, sqlite: sqlite) + " LIMIT 1").first() else { return nil }
        let firstID = try first.decode(column: "id", as: UUID.self)
        let back = position % f.limit
        guard back > 0 else { return firstID }
        let start = try await sql.raw("SELECT t.id FROM titles t WHERE " + clause
                                      + seekCondition(.title, anchor: firstID, later: false, inclusive: false, sqlite: sqlite)
                                      + orderBy(.title, reversed: true, sqlite: sqlite) + " LIMIT 1 OFFSET \(literal: back - 1)").first()
        return try start?.decode(column: "id", as: UUID.self) ?? firstID
    }
}
