import Fluent
import FluentSQL
import FluentSQLiteDriver
import Foundation
import ShelfmarkCore
import SQLKit

/// Reading the catalog: filtered, searched and A–Z grouped lists, and a title's detail.
enum TitleQuery {
    struct Filters: Sendable {
        var query: String?
        var wishlist = false
        var favorites = false
        var onLoan = false
        var overdue = false
        /// Only titles with a copy that can be lent now.
        var available = false
        /// Only titles added at or after this moment.
        var addedSince: Date?
        var categoryID: UUID?
        /// At least this rating, the library's own and its readers' averaged (as the book's page shows it).
        var minRating: Double?
        /// Where `reader` (a staff account) is with the book: their own reading.
        var readStatus: ReadingFilter?
        var reader: UUID?
        var location: String?
        var series: String?
        var readingLevel: String?
        /// A reading level range ("AR 3.0–4.5"): the scheme and, optionally, the lowest and highest number.
        var levelScheme: ReadingLevel.Scheme?
        var levelMin: Double?
        var levelMax: Double?
        var section: String?
        var sort = TitleSort.title
        var limit = 50
        var offset = 0
        /// A page found from a neighbouring title instead of `offset` (lists without a search).
        var seek: Seek?
        var includeSections = false

        var hasNonSearchFilters: Bool {
            favorites || onLoan || overdue || available || addedSince != nil || categoryID != nil || minRating != nil || location != nil || series != nil
                || (readStatus != nil && reader != nil)
                || readingLevel != nil || levelScheme != nil || section != nil
        }
    }

    /// Above this many matches a search answers newest first instead of A–Z (see `list`).
    static let sortedSearchLimit = 1000
    /// How many of the newest titles PostgreSQL first seeks a newest-first page of search results among.
    static let recentSearchWindow = 5000

    /// A–Z list, or search results. A search first counts its matches in the full-text index alone,
    /// stopping past `sortedSearchLimit`. Up to that many are sorted A–Z; more than that (a user still
    /// typing a short, common prefix) come newest first straight off the index, which stays fast
    /// however many titles match, and `total` is then a lower bound.
    static func list(_ filters: Filters, libraryID: UUID, now: Date, on db: any Database) async throws -> TitleList {
        let sql = db.sql
        let sqlite = Dialect(db) == .sqlite
        let tokens = SearchText.queryWords(filters.query ?? "")
        let favoritesCount = try await kept(sql, libraryID: libraryID, wishlist: filters.wishlist, extra: " AND favorite = \(bind: true)")
        let page: SQLQueryString = " LIMIT \(literal: filters.limit) OFFSET \(literal: filters.offset)"
        var rows: [any SQLRow]
        var total: Int
        var totalIsLowerBound = false
        var order = TitleList.Order.title
        var sections: [SectionCount]?
        if tokens.isEmpty {
            let clause = whereClause(filters, libraryID: libraryID, now: now, withSection: true)
            var seek = filters.seek
            if let anchor = seek?.anchor, !(try await isAnchor(anchor, filters, libraryID: libraryID, on: sql)) { seek = nil }
            // The A–Z index of the list, when the page shows it: read first, as it also gives the count.
            var sectionTotal: Int?
            if filters.includeSections, filters.sort == .title {
                func counts(_ query: SQLQueryString) async throws -> [String: Int] {
                    var out: [String: Int] = [:]
                    for row in try await sql.raw(query).all() {
                        out[try row.decode(column: "section", as: String.self), default: 0] += try row.decode(column: "n", as: Int.self)
                    }
                    return out
                }
                func keptSections(_ kept: SQLQueryString) -> SQLQueryString {
                    "SELECT section, CAST(SUM(n) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID)"
                        + " AND wishlist = \(bind: filters.wishlist)" + kept + " GROUP BY section HAVING SUM(n) > 0"
                }
                func titleSections(_ f: Filters) -> SQLQueryString {
                    "SELECT t.section, COUNT(*) AS n FROM titles t WHERE "
                        + whereClause(f, libraryID: libraryID, now: now, withSection: false, countingOnSQLite: sqlite) + " GROUP BY t.section"
                }
                var bySection: [String: Int]
                if let kept = keptFilter(filters) {
                    bySection = try await counts(keptSections(kept))
                } else if let (kept, finished) = notFinishedComplement(filters) {
                    // The kept sections less the reader's finished books by section.
                    bySection = try await counts(keptSections(kept))
                    for (letter, n) in try await counts(titleSections(finished)) { bySection[letter, default: 0] -= n }
                } else {
                    bySection = try await counts(titleSections(filters))
                }
                sections = bySection.filter { $0.value > 0 }.map { SectionCount(letter: $0.key, count: $0.value) }
                    .sorted { ($0.letter == "#" ? "{" : $0.letter) < ($1.letter == "#" ? "{" : $1.letter) }
                // The sections add up to the list (or, narrowed to one, are its count).
                sectionTotal = filters.section.map { max(0, bySection[$0] ?? 0) } ?? bySection.values.reduce(0) { $0 + max(0, $1) }
            }
            func counted() async throws -> Int {
                if let sectionTotal { return sectionTotal }
                let section: SQLQueryString = filters.section.map { " AND section = \(bind: $0)" } ?? ""
                if let kept = keptFilter(filters) {
                    return try await self.kept(sql, libraryID: libraryID, wishlist: filters.wishlist, extra: kept + section)
                }
                if let (kept, finished) = notFinishedComplement(filters) {
                    // The kept count less the few the reader finished.
                    let all = try await self.kept(sql, libraryID: libraryID, wishlist: filters.wishlist, extra: kept + section)
                    return all - (try await count(sql, "SELECT COUNT(*) AS n FROM titles t WHERE "
                                                  + whereClause(finished, libraryID: libraryID, now: now, withSection: true, countingOnSQLite: sqlite)))
                }
                return try await count(sql, "SELECT COUNT(*) AS n FROM titles t WHERE "
                                       + whereClause(filters, libraryID: libraryID, now: now, withSection: true, countingOnSQLite: sqlite))
            }
            // The page's ids off the order's index (the rows it skips or seeks over are index entries), then its rows.
            var known: Int?
            let ids: SQLQueryString
            switch seek {
            case nil:
                if let start = try await pageStart(atOffset: filters.offset, filters, libraryID: libraryID, now: now, on: sql) {
                    ids = clause + seekCondition(.title, anchor: start, later: true, inclusive: true, sqlite: sqlite)
                        + orderBy(.title, sqlite: sqlite) + " LIMIT \(literal: filters.limit)"
                } else {
                    ids = clause + orderBy(filters.sort, sqlite: sqlite) + page
                }
            case .end:
                let all = try await counted()
                known = all
                ids = clause + orderBy(filters.sort, reversed: true, sqlite: sqlite) + " LIMIT \(literal: lastPageCount(total: all, limit: filters.limit))"
            case .after(let id), .before(let id), .from(let id):
                let later = !(seek?.backwards ?? false)
                ids = clause + seekCondition(filters.sort, anchor: id, later: later, inclusive: seek == .from(id), sqlite: sqlite)
                    + orderBy(filters.sort, reversed: !later, sqlite: sqlite) + " LIMIT \(literal: filters.limit)"
            }
            let key = tiebreak(sqlite: sqlite)
            rows = try await sql.raw("SELECT " + summaryColumns + " FROM titles t WHERE t.\(unsafeRaw: key) IN (SELECT t.\(unsafeRaw: key) FROM titles t WHERE "
                                     + ids + ")" + orderBy(filters.sort, sqlite: sqlite)).all()
            if let known {
                total = known
            } else if filters.offset == 0 && seek == nil && rows.count < filters.limit {
                total = rows.count
            } else {
                total = try await counted()
            }
        } else {
            let match = matchClause(tokens, libraryID: libraryID, wishlist: filters.wishlist, sqlite: sqlite)
            let clause = whereClause(filters, libraryID: libraryID, now: now, withSection: true)
            let matches = try await count(sql, sqlite
                ? "SELECT COUNT(*) AS n FROM (SELECT 1 FROM title_search WHERE " + match + " LIMIT \(literal: sortedSearchLimit + 1)) m"
                : "SELECT COUNT(*) AS n FROM (SELECT 1 FROM titles t WHERE " + match + " AND " + clause + " LIMIT \(literal: sortedSearchLimit + 1)) m")
            let from: SQLQueryString = sqlite
                ? "SELECT " + summaryColumns + " FROM title_search CROSS JOIN titles t ON t.rowid = title_search.rowid WHERE " + match + " AND " + clause
                : "SELECT " + summaryColumns + " FROM titles t WHERE " + match + " AND " + clause
            if matches <= sortedSearchLimit {
                rows = try await sql.raw(from + orderBy(filters.sort, sqlite: sqlite) + page).all()
                if !filters.hasNonSearchFilters {
                    total = matches
                } else if filters.offset == 0, rows.count < filters.limit {
                    total = rows.count
                } else {
                    total = try await count(sql, "SELECT COUNT(*) AS n FROM (" + from + ") m")
                }
            } else {
                order = .recent
                if sqlite {
                    rows = try await sql.raw(from + " ORDER BY title_search.rowid DESC" + page).all()
                } else {
                    // PostgreSQL answers the match from its GIN index as a bitmap of every matching title, all
                    // read and sorted for one page (a prefix of every ISBN: tens of thousands). A common word
                    // is met often among the newest titles, so the page is first sought among them, walked
                    // off the newest-first index: a page found there whole is the page, as they are the start
                    // of the same order. Only a page not found whole there reads every match.
                    let newestFirst: SQLQueryString = " ORDER BY t.created_at DESC, t.id DESC"
                    rows = try await sql.raw("SELECT " + summaryColumns + " FROM (SELECT * FROM titles t WHERE " + clause + newestFirst
                                             + " LIMIT \(literal: recentSearchWindow)) t WHERE " + match + newestFirst + page).all()
                    if rows.count < filters.limit {
                        rows = try await sql.raw(from + newestFirst + page).all()
                    }
                }
                total = sortedSearchLimit
                totalIsLowerBound = true
            }
        }
        return TitleList(items: try await summaries(try rows.map(SummaryRow.init), now: now, on: db), total: total, totalIsLowerBound: totalIsLowerBound,
                         order: order, limit: filters.limit, offset: filters.offset, favoritesCount: favoritesCount, sections: sections)
    }

    /// How many titles of the A–Z list (under `filters`, without a section) come before the first
    /// title of section `letter`: where that letter starts, at any size of catalog. Nil when no
    /// title is in that section.
    static func position(ofSection letter: String, _ filters: Filters, libraryID: UUID, now: Date, on db: any Database) async throws -> Int? {
        if SearchText.tokens(filters.query ?? "").isEmpty {
            if let kept = keptFilter(filters) {
                return try await keptPosition(ofSection: letter, kept, wishlist: filters.wishlist, libraryID: libraryID, on: db.sql)
            }
            if let (kept, finished) = notFinishedComplement(filters) {
                return try await keptPosition(ofSection: letter, kept, wishlist: filters.wishlist, libraryID: libraryID,
                                              less: whereClause(finished, libraryID: libraryID, now: now, withSection: false), on: db.sql)
            }
        }
        let clause = whereClause(filters, libraryID: libraryID, now: now, withSection: false)
        let sqlite = Dialect(db) == .sqlite
        guard let first = try await db.sql.raw("SELECT t.id FROM titles t WHERE " + clause + " AND t.section = \(bind: letter)"
                                                + orderBy(.title, sqlite: sqlite) + " LIMIT 1").first() else { return nil }
        let id = try first.decode(column: "id", as: UUID.self)
        return try await count(db.sql, "SELECT COUNT(*) AS n FROM titles t WHERE " + clause
                               + seekCondition(.title, anchor: id, later: false, inclusive: false, sqlite: sqlite))
    }

    /// Whether the filters name their titles as a set of ids found first: the books a reader has in one
    /// state (not "not finished": that is the catalog less such a set).
    static func isSetOfIDs(_ f: Filters) -> Bool {
        f.reader != nil && f.readStatus != nil && f.readStatus != .unread
    }

    /// The full-text condition: every typed word is a prefix. SQLite's MATCH also names the library
    /// and list by their scope token, which no typed word can be the start of (`TitleSearchWithoutColumns`).
    static func matchClause(_ tokens: [String], libraryID: UUID, wishlist: Bool, sqlite: Bool) -> SQLQueryString {
        if sqlite {
            let words = tokens.map { "\"\($0)\"*" }.joined(separator: " AND ")
            let scope = TitleSearchWithoutColumns.scope
            return "title_search MATCH ('\"\(unsafeRaw: scope)' || hex(\(bind: libraryID)) || \(bind: wishlist ? "W1" : "W0") || '\" AND (' || \(bind: words) || ')')"
        }
        let query = tokens.map { "\($0):*" }.joined(separator: " & ")
        return "t.search_vector @@ to_tsquery('simple', \(bind: query))"
    }

    /// `countingOnSQLite`: the condition of a count or of section counts on SQLite. Where the titles are
    /// a set of ids found first (a reader's books), the count is driven by that set:
    /// SQLite, without statistics, would rather walk the library's 100,000 index entries and test each
    /// (35 ms); the library's terms are then tests (`+`), not an index to walk.
    static func whereClause(_ f: Filters, libraryID: UUID, now: Date, withSection: Bool, countingOnSQLite: Bool = false) -> SQLQueryString {
        let driven = countingOnSQLite && isSetOfIDs(f)
        var clause: SQLQueryString = driven
            ? "+t.library_no = \(LibraryNumber.of(libraryID)) AND +t.wishlist = \(bind: f.wishlist)"
            : "t.library_no = \(LibraryNumber.of(libraryID)) AND t.wishlist = \(bind: f.wishlist)"
        // The column itself, not a bound value: so the planner knows the favourites' partial index applies.
        if f.favorites { clause += " AND t.favorite" }
        // The expression itself, not a bound value: so the planner knows the partial index of the titles
        // on loan applies (`AddOpenLoanCounts`). An overdue title is one of them.
        if f.onLoan || f.overdue { clause += " AND t.open_loans > 0" }
        if f.available {
            clause += " AND EXISTS (SELECT 1 FROM copies c WHERE c.title_id = t.id AND c.status = \(bind: CopyStatus.available.rawValue))"
        }
        if let since = f.addedSince { clause += " AND t.created_at >= \(bind: since)" }
        if f.overdue {
            clause += " AND EXISTS (SELECT 1 FROM loans l WHERE l.title_id = t.id AND l.returned_at IS NULL AND l.due_at < \(bind: now))"
        }
        if let category = f.categoryID {
            clause += " AND EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = t.id AND tc.category_id = \(bind: category))"
        }
        if let rating = f.minRating {
            // The average of the library's rating and its readers', kept by triggers (`AddRatingScores`).
            clause += " AND t.rating_score IS NOT NULL AND t.rating_score >= \(bind: rating)"
        }
        if let status = f.readStatus, let reader = f.reader {
            // The reader's books found once, as a set (a probe per title cost 35 ms at 100,000 titles).
            let theirs: SQLQueryString = "SELECT r.title_id FROM reads r WHERE r.user_id = \(bind: reader) AND r.title_id IS NOT NULL AND r.status = "
            switch status {
            case .unread:
                clause += " AND t.id NOT IN (" + theirs + "\(bind: ReadStatus.finished.rawValue))"
            default:
                clause += " AND t.id IN (" + theirs + "\(bind: status.rawValue))"
            }
        }
        if let location = f.location {
            clause += " AND EXISTS (SELECT 1 FROM copies c WHERE c.title_id = t.id AND c.location = \(bind: location))"
        }
        if let series = f.series {
            clause += " AND (t.series = \(bind: series) OR EXISTS (SELECT 1 FROM title_series ts WHERE ts.name = \(bind: series) AND ts.title_id = t.id))"
        }
        if let level = f.readingLevel { clause += " AND t.reading_level = \(bind: level)" }
        if let scheme = f.levelScheme {
            clause += " AND t.level_scheme = \(bind: scheme.rawValue)"
            if let min = f.levelMin { clause += " AND t.level_value >= \(bind: min)" }
            if let max = f.levelMax { clause += " AND t.level_value <= \(bind: max)" }
        }
        if withSection, let section = f.section { clause += " AND t.section = \(bind: section)" }
        return clause
    }

    static func count(_ sql: any SQLDatabase, _ query: SQLQueryString) async throws -> Int {
        try await sql.raw(query).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// List rows with their availability badges, in two grouped queries for the whole page.
    /// The columns a list row needs, read straight off the row: decoding whole Fluent models cost
    /// several milliseconds per page of 50.
    static let summaryColumns: SQLQueryString = "t.id, t.isbn13, t.title, t.authors, t.cover_url, t.favorite, t.rating, t.wishlist, t.section, t.call_number"

    struct SummaryRow {
        var id: UUID, isbn13: String?, title: String, authors: [String], coverURL: String?
        var favorite: Bool, rating: Double?, wishlist: Bool, section: String
        var callNumber: String?

        init(_ row: any SQLRow) throws {
            id = try row.decode(column: "id", as: UUID.self)
            isbn13 = try row.decode(column: "isbn13", as: String?.self)
            title = try row.decode(column: "title", as: String.self)
            authors = try row.decode(column: "authors", as: [String].self)
            coverURL = try row.decode(column: "cover_url", as: String?.self)
            favorite = try row.decode(column: "favorite", as: Bool.self)
            rating = try row.decode(column: "rating", as: Double?.self)
            wishlist = try row.decode(column: "wishlist", as: Bool.self)
            section = try row.decode(column: "section", as: String.self)
            callNumber = try row.decode(column: "call_number", as: String?.self)
        }

        init(_ title: Title) {
            id = title.id!
            isbn13 = title.isbn13
            self.title = title.title
            authors = title.authors
            coverURL = title.coverURL
            favorite = title.favorite
            rating = title.rating
            wishlist = title.wishlist
            section = title.section
            callNumber = title.callNumber
        }
    }

    static func summaries(_ titles: [SummaryRow], now: Date, on db: any Database) async throws -> [TitleSummary] {
        guard !titles.isEmpty else { return [] }
        let ids = titles.map(\.id)
        let statusRows = try await db.sql.raw("""
            SELECT title_id, status, location, COUNT(*) AS n FROM copies WHERE title_id IN (\(binds: ids)) GROUP BY title_id, status, location
            """).all()
        var statuses: [UUID: [CopyStatus]] = [:]
        // The shelves its copies stand on ("Shelf B3" in the results): where one can be taken first.
        var shelves: [UUID: [(String, Bool)]] = [:]
        for row in statusRows {
            let id = try row.decode(column: "title_id", as: UUID.self)
            let status = CopyStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .available
            statuses[id, default: []] += Array(repeating: status, count: try row.decode(column: "n", as: Int.self))
            if let location = try row.decode(column: "location", as: String?.self), !location.isEmpty, status != .lost, status != .withdrawn {
                shelves[id, default: []].append((location, status == .available))
            }
        }
        func places(_ id: UUID) -> [String] {
            var seen = Set<String>()
            return (shelves[id] ?? []).sorted { ($0.1 ? 0 : 1, $0.0) < ($1.1 ? 0 : 1, $1.0) }.map(\.0).filter { seen.insert($0).inserted }
        }
        let overdueRows = try await db.sql.raw("""
            SELECT DISTINCT title_id FROM loans WHERE title_id IN (\(binds: ids)) AND returned_at IS NULL AND due_at < \(bind: now)
            """).all()
        let overdue = Set(try overdueRows.map { try $0.decode(column: "title_id", as: UUID.self) })
        return titles.map { title in
            let id = title.id
            return TitleSummary(id: id, isbn13: title.isbn13, title: title.title, authors: title.authors, coverUrl: title.coverURL,
                                favorite: title.favorite, rating: title.rating, wishlist: title.wishlist, section: title.section,
                                availability: Availability(statuses: statuses[id] ?? []), overdue: overdue.contains(id), shelves: places(id),
                                callNumber: title.callNumber)
        }
    }

    /// One title with categories, copies and open loans, read with plain SQL (Fluent's models
    /// cost reflection per row, several times the queries themselves on this hot path).
    /// A title's authors as stored: a JSON array of strings.
    static func authors(_ text: String?) throws -> [String] {
        guard let text, !text.isEmpty else { return [] }
        if let names = JSONStringArray.parse(text) { return names }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// A4/C2 outbound links, from the ISBN when there is one, else from title and author.
    static func links(isbn13: String?, title: String, authors: [String]) -> [String: String] {
        let terms = isbn13 ?? ([title] + authors.prefix(1)).joined(separator: " ")
        let query = terms.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let google = isbn13.map { "https://books.google.com/books?vid=ISBN\($0)" } ?? "https://www.google.com/search?tbm=bks&q=\(query)"
        return ["googleBooks": google, "amazon": "https://www.amazon.com/s?k=\(query)&i=stripbooks"]
    }
}

extension CopyDTO {
    init(row: any SQLRow) throws {
        self.init(id: try row.decode(column: "id", as: UUID.self), titleId: try row.decode(column: "title_id", as: UUID.self),
                  copyNumber: try row.decode(column: "copy_number", as: Int.self), barcode: try row.decode(column: "barcode", as: String.self),
                  location: try row.decode(column: "location", as: String?.self), condition: try row.decode(column: "condition", as: String?.self),
                  status: CopyStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .available)
    }
}

extension Copy {
    var dto: CopyDTO {
        CopyDTO(id: id!, titleId: $title.id, copyNumber: copyNumber, barcode: barcode, location: location,
                condition: condition, status: copyStatus, statusNote: statusNote, statusAt: statusAt, callNumber: callNumber)
    }
}

extension Loan {
    func dto(now: Date, barcode: String? = nil) -> LoanDTO {
        LoanDTO(id: id!, titleId: $title.id, title: titleText, copyId: $copy.id, copyBarcode: barcode,
                memberId: $member.id, memberCardId: memberCardID, memberName: memberName, checkedOutAt: checkedOutAt,
                dueAt: dueAt, returnedAt: returnedAt, renewals: renewals,
                overdue: isOverdue(dueAt: dueAt, returnedAt: returnedAt, now: now),
                daysOverdue: returnedAt == nil ? daysOverdue(dueAt: dueAt, now: now) : daysOverdue(dueAt: dueAt, now: returnedAt!))
    }
}
