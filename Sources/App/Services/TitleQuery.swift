import Fluent
import FluentSQL
import FluentSQLiteDriver
import Foundation
import ShelfmarkCore
import SQLKit

/// Reading the catalog (A4, A5): filtered, searched and A–Z grouped lists, and a title's detail.
enum TitleQuery {
    struct Filters: Sendable {
        var query: String?
        var wishlist = false
        var favorites = false
        var onLoan = false
        var overdue = false
        var categoryID: UUID?
        var minRating: Double?
        var location: String?
        var series: String?
        var readingLevel: String?
        var section: String?
        var sort = TitleSort.title
        var limit = 50
        var offset = 0
        /// A page found from a neighbouring title instead of `offset` (lists without a search).
        var seek: Seek?
        var includeSections = false

        var hasNonSearchFilters: Bool {
            favorites || onLoan || overdue || categoryID != nil || minRating != nil || location != nil || series != nil
                || readingLevel != nil || section != nil
        }
    }

    /// Above this many matches a search answers newest first instead of A–Z (see `list`).
    static let sortedSearchLimit = 1000

    /// A–Z list, or search results. A search first counts its matches in the full-text index alone,
    /// stopping past `sortedSearchLimit`. Up to that many are sorted A–Z; more than that (a user still
    /// typing a short, common prefix) come newest first straight off the index, which stays fast
    /// however many titles match, and `total` is then a lower bound.
    static func list(_ filters: Filters, libraryID: UUID, now: Date, on db: any Database) async throws -> TitleList {
        let sql = db.sql
        let sqlite = db.isSQLite
        let tokens = SearchText.tokens(filters.query ?? "")
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
            func counted() async throws -> Int {
                if let kept = keptFilter(filters) {
                    return try await self.kept(sql, libraryID: libraryID, wishlist: filters.wishlist,
                                               extra: kept + (filters.section.map { " AND section = \(bind: $0)" } ?? ""))
                }
                return try await count(sql, "SELECT COUNT(*) AS n FROM titles t WHERE " + clause)
            }
            // The page's ids off the order's index (the rows it skips or seeks over are index entries), then its rows.
            var known: Int?
            let ids: SQLQueryString
            switch seek {
            case nil:
                ids = clause + orderBy(filters.sort) + page
            case .end:
                let all = try await counted()
                known = all
                ids = clause + orderBy(filters.sort, reversed: true) + " LIMIT \(literal: lastPageCount(total: all, limit: filters.limit))"
            case .after(let id), .before(let id), .from(let id):
                let later = !(seek?.backwards ?? false)
                ids = clause + seekCondition(filters.sort, anchor: id, later: later, inclusive: seek == .from(id))
                    + orderBy(filters.sort, reversed: !later) + " LIMIT \(literal: filters.limit)"
            }
            rows = try await sql.raw("SELECT " + summaryColumns + " FROM titles t WHERE t.id IN (SELECT t.id FROM titles t WHERE " + ids + ")"
                                     + orderBy(filters.sort)).all()
            if let known {
                total = known
            } else if filters.offset == 0 && seek == nil && rows.count < filters.limit {
                total = rows.count
            } else {
                total = try await counted()
            }
            if filters.includeSections, filters.sort == .title {
                let sectionQuery: SQLQueryString
                if let kept = keptFilter(filters) {
                    sectionQuery = "SELECT section, CAST(SUM(n) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID)"
                        + " AND wishlist = \(bind: filters.wishlist)" + kept + " GROUP BY section HAVING SUM(n) > 0"
                } else {
                    sectionQuery = "SELECT t.section, COUNT(*) AS n FROM titles t WHERE "
                        + whereClause(filters, libraryID: libraryID, now: now, withSection: false) + " GROUP BY t.section"
                }
                let sectionRows = try await sql.raw(sectionQuery).all()
                sections = try sectionRows.map {
                    SectionCount(letter: try $0.decode(column: "section", as: String.self), count: try $0.decode(column: "n", as: Int.self))
                }.sorted { ($0.letter == "#" ? "{" : $0.letter) < ($1.letter == "#" ? "{" : $1.letter) }
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
                rows = try await sql.raw(from + orderBy(filters.sort) + page).all()
                if !filters.hasNonSearchFilters {
                    total = matches
                } else if filters.offset == 0, rows.count < filters.limit {
                    total = rows.count
                } else {
                    total = try await count(sql, "SELECT COUNT(*) AS n FROM (" + from + ") m")
                }
            } else {
                order = .recent
                let newestFirst: SQLQueryString = sqlite ? " ORDER BY title_search.rowid DESC" : " ORDER BY t.created_at DESC, t.id"
                rows = try await sql.raw(from + newestFirst + page).all()
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
        if filters.query == nil || SearchText.tokens(filters.query ?? "").isEmpty, let kept = keptFilter(filters) {
            return try await keptPosition(ofSection: letter, kept, wishlist: filters.wishlist, libraryID: libraryID, on: db.sql)
        }
        let clause = whereClause(filters, libraryID: libraryID, now: now, withSection: false)
        guard let first = try await db.sql.raw("SELECT t.sort_key, t.id FROM titles t WHERE " + clause + " AND t.section = \(bind: letter)"
                                                + " ORDER BY t.sort_key, t.id LIMIT 1").first() else { return nil }
        let key = try first.decode(column: "sort_key", as: String.self)
        let id = try first.decode(column: "id", as: UUID.self)
        return try await count(db.sql, "SELECT COUNT(*) AS n FROM titles t WHERE " + clause
                               + " AND (t.sort_key < \(bind: key) OR (t.sort_key = \(bind: key) AND t.id < \(bind: id)))")
    }

    /// The full-text condition: every typed word is a prefix. SQLite's MATCH also names the library
    /// and list through the `scope` token (see CreateTitleSearchIndex).
    static func matchClause(_ tokens: [String], libraryID: UUID, wishlist: Bool, sqlite: Bool) -> SQLQueryString {
        if sqlite {
            let words = tokens.map { "\"\($0)\"*" }.joined(separator: " AND ")
            return "title_search MATCH ('scope:L' || hex(\(bind: libraryID)) || \(bind: wishlist ? "W1" : "W0") || ' AND search_text:(' || \(bind: words) || ')')"
        }
        let query = tokens.map { "\($0):*" }.joined(separator: " & ")
        return "t.search_vector @@ to_tsquery('simple', \(bind: query))"
    }

    static func whereClause(_ f: Filters, libraryID: UUID, now: Date, withSection: Bool) -> SQLQueryString {
        var clause: SQLQueryString = "t.library_id = \(bind: libraryID) AND t.wishlist = \(bind: f.wishlist)"
        if f.favorites { clause += " AND t.favorite = \(bind: true)" }
        if f.onLoan {
            clause += " AND EXISTS (SELECT 1 FROM copies c WHERE c.title_id = t.id AND c.status = \(bind: CopyStatus.onLoan.rawValue))"
        }
        if f.overdue {
            clause += " AND EXISTS (SELECT 1 FROM loans l WHERE l.title_id = t.id AND l.returned_at IS NULL AND l.due_at < \(bind: now))"
        }
        if let category = f.categoryID {
            clause += " AND EXISTS (SELECT 1 FROM title_categories tc WHERE tc.title_id = t.id AND tc.category_id = \(bind: category))"
        }
        if let rating = f.minRating { clause += " AND t.rating >= \(bind: rating)" }
        if let location = f.location {
            clause += " AND EXISTS (SELECT 1 FROM copies c WHERE c.title_id = t.id AND c.location = \(bind: location))"
        }
        if let series = f.series { clause += " AND t.series = \(bind: series)" }
        if let level = f.readingLevel { clause += " AND t.reading_level = \(bind: level)" }
        if withSection, let section = f.section { clause += " AND t.section = \(bind: section)" }
        return clause
    }

    static func count(_ sql: any SQLDatabase, _ query: SQLQueryString) async throws -> Int {
        try await sql.raw(query).first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// List rows with their availability badges, in two grouped queries for the whole page.
    /// The columns a list row needs, read straight off the row: decoding whole Fluent models cost
    /// several milliseconds per page of 50.
    static let summaryColumns: SQLQueryString = "t.id, t.isbn13, t.title, t.authors, t.cover_url, t.favorite, t.rating, t.wishlist, t.section"

    struct SummaryRow {
        var id: UUID, isbn13: String?, title: String, authors: [String], coverURL: String?
        var favorite: Bool, rating: Double?, wishlist: Bool, section: String

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
        }
    }

    static func summaries(_ titles: [SummaryRow], now: Date, on db: any Database) async throws -> [TitleSummary] {
        guard !titles.isEmpty else { return [] }
        let ids = titles.map(\.id)
        let statusRows = try await db.sql.raw("""
            SELECT title_id, status, COUNT(*) AS n FROM copies WHERE title_id IN (\(binds: ids)) GROUP BY title_id, status
            """).all()
        var statuses: [UUID: [CopyStatus]] = [:]
        for row in statusRows {
            let id = try row.decode(column: "title_id", as: UUID.self)
            let status = CopyStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .available
            statuses[id, default: []] += Array(repeating: status, count: try row.decode(column: "n", as: Int.self))
        }
        let overdueRows = try await db.sql.raw("""
            SELECT DISTINCT title_id FROM loans WHERE title_id IN (\(binds: ids)) AND returned_at IS NULL AND due_at < \(bind: now)
            """).all()
        let overdue = Set(try overdueRows.map { try $0.decode(column: "title_id", as: UUID.self) })
        return titles.map { title in
            let id = title.id
            return TitleSummary(id: id, isbn13: title.isbn13, title: title.title, authors: title.authors, coverUrl: title.coverURL,
                                favorite: title.favorite, rating: title.rating, wishlist: title.wishlist, section: title.section,
                                availability: Availability(statuses: statuses[id] ?? []), overdue: overdue.contains(id))
        }
    }

    /// A4: one title with categories, copies and open loans, read with plain SQL (Fluent's models
    /// cost reflection per row, several times the queries themselves on this hot path).
    /// A title with its categories, copies and open loans, in one statement (one round trip to the
    /// database: a title read was five queries, issue 15): a row per copy and category, each with the
    /// title's columns and the copy's open loan if any.
    /// On SQLite the rows are decoded by position on the connection's own thread (`SQLiteConnection.rows`):
    /// SQLKit hands each row to the event loop and decodes each value by name.
    static func detail(_ titleID: UUID, libraryID: UUID, now: Date, on db: any Database) async throws -> TitleDetail {
        let rows: [DetailRow]
        if let sqlite = db as? any SQLiteDatabase {
            rows = try await sqlite.withConnection { connection in
                try await connection.rows(detailSQL, [.text(titleID.uuidString), .text(libraryID.uuidString)],
                                          DetailRow.init(sqlite:))
            }
        } else {
            rows = try await db.sql.raw(SQLQueryString(numbered: detailSQL, [titleID, libraryID])).all().map(DetailRow.init(sql:))
        }
        guard let t = rows.first else { throw CatalogError.titleNotFound }
        // A row per copy and category: each copy and each category once, in their order.
        var seenCategories = Set<UUID>()
        let categories = rows.compactMap { row -> CategoryRef? in
            guard let category = row.category, seenCategories.insert(category.id).inserted else { return nil }
            return category
        }.sorted { $0.name < $1.name }
        var seenCopies = Set<UUID>()
        let copyRows = rows.filter { row in row.copy.map { seenCopies.insert($0.id).inserted } ?? false }
        var copies: [CopyDTO] = []
        var loans: [LoanDTO] = []
        for row in copyRows {
            guard let copy = row.copy else { continue }
            copies.append(CopyDTO(id: copy.id, titleId: titleID, copyNumber: copy.number, barcode: copy.barcode, location: copy.location,
                                  condition: copy.condition, status: CopyStatus(rawValue: copy.status) ?? .available,
                                  statusNote: copy.statusNote, statusAt: copy.statusAt))
            guard let loan = row.loan else { continue }
            loans.append(LoanDTO(
                id: loan.id, titleId: titleID, title: loan.titleText, copyId: copy.id, copyBarcode: copy.barcode, memberId: loan.memberID,
                memberCardId: loan.memberCardID, memberName: loan.memberName, checkedOutAt: loan.checkedOutAt, dueAt: loan.dueAt,
                returnedAt: nil, renewals: loan.renewals, overdue: isOverdue(dueAt: loan.dueAt, returnedAt: nil, now: now),
                daysOverdue: ShelfmarkCore.daysOverdue(dueAt: loan.dueAt, now: now)))
        }
        loans.sort { $0.dueAt < $1.dueAt }
        let isbn = t.isbn13.flatMap { try? ISBN($0) }
        return TitleDetail(
            id: titleID, isbn13: t.isbn13, isbn10: isbn?.isbn10, isbnHyphenated: isbn?.hyphenated, title: t.title, subtitle: t.subtitle,
            authors: t.authors, publisher: t.publisher, publishedDate: t.publishedDate, pageCount: t.pageCount, language: t.language,
            description: t.description, coverUrl: t.coverURL, notes: t.notes, favorite: t.favorite, rating: t.rating, wishlist: t.wishlist,
            series: t.series, seriesNumber: t.seriesNumber, readingLevel: t.readingLevel, section: t.section,
            categories: categories, availability: Availability(statuses: copies.map(\.status)), copies: copies, loans: loans,
            links: links(isbn13: t.isbn13, title: t.title, authors: t.authors), createdAt: t.createdAt, updatedAt: t.updatedAt)
    }

    /// The detail statement (numbered parameters: 1 the title, 2 the library): a row per copy and
    /// category of the title (joins, not a subquery: a nested SELECT cost SQLite as much to prepare).
    private static let detailSQL = """
        SELECT t.isbn13, t.title, t.subtitle, t.authors, t.publisher, t.published_date, t.page_count, t.language,
               t.description, t.cover_url, t.notes, t.favorite, t.rating, t.wishlist, t.series, t.series_number,
               t.reading_level, t.section, t.created_at, t.updated_at, cat.id AS category_id, cat.name AS category_name,
               c.id AS copy_id, c.copy_number, c.barcode, c.location, c.condition, c.status,
               l.id AS loan_id, l.member_id, l.member_card_id, l.member_name, l.title_text, l.checked_out_at, l.due_at, l.renewals,
               c.status_note, c.status_at
        FROM titles t
        LEFT JOIN copies c ON c.title_id = t.id LEFT JOIN loans l ON l.copy_id = c.id AND l.returned_at IS NULL
        LEFT JOIN title_categories tc ON tc.title_id = t.id LEFT JOIN categories cat ON cat.id = tc.category_id
        WHERE t.id = ?1 AND t.library_id = ?2
        ORDER BY c.copy_number
        """

    /// One row of the detail statement, by position (the columns of `detailSQL`, in order).
    struct DetailRow: Sendable {
        struct CopyPart: Sendable {
            var id: UUID; var number: Int; var barcode: String; var location: String?; var condition: String?; var status: String
            var statusNote: String?; var statusAt: Date?
        }
        struct LoanPart: Sendable {
            var id: UUID; var memberID: UUID?; var memberCardID: String; var memberName: String; var titleText: String
            var checkedOutAt: Date; var dueAt: Date; var renewals: Int
        }
        var isbn13: String?, title: String, subtitle: String?, authors: [String], publisher: String?, publishedDate: String?
        var pageCount: Int?, language: String?, description: String?, coverURL: String?, notes: String?, favorite: Bool
        var rating: Double?, wishlist: Bool, series: String?, seriesNumber: String?, readingLevel: String?, section: String
        var createdAt: Date?, updatedAt: Date?
        var category: CategoryRef?
        var copy: CopyPart?
        var loan: LoanPart?

        /// Decodes the values of one row, given how to read column `i` as each type.
        init(text: (Int) -> String?, int: (Int) -> Int?, double: (Int) -> Double?, bool: (Int) -> Bool?, date: (Int) -> Date?,
             strings: (Int) throws -> [String]) throws {
            func uuid(_ i: Int) -> UUID? { text(i).flatMap(UUID.init(uuidString:)) }
            (isbn13, title, subtitle) = (text(0), text(1) ?? "", text(2))
            authors = try strings(3)
            (publisher, publishedDate, pageCount, language) = (text(4), text(5), int(6), text(7))
            (description, coverURL, notes, favorite) = (text(8), text(9), text(10), bool(11) ?? false)
            (rating, wishlist, series, seriesNumber) = (double(12), bool(13) ?? false, text(14), text(15))
            (readingLevel, section, createdAt, updatedAt) = (text(16), text(17) ?? "#", date(18), date(19))
            if let categoryID = uuid(20) { category = CategoryRef(id: categoryID, name: text(21) ?? "") }
            if let copyID = uuid(22) {
                copy = CopyPart(id: copyID, number: int(23) ?? 0, barcode: text(24) ?? "", location: text(25), condition: text(26),
                                status: text(27) ?? CopyStatus.available.rawValue, statusNote: text(36), statusAt: date(37))
            }
            if let loanID = uuid(28), let checkedOut = date(33), let due = date(34) {
                loan = LoanPart(id: loanID, memberID: uuid(29), memberCardID: text(30) ?? "", memberName: text(31) ?? "",
                                titleText: text(32) ?? "", checkedOutAt: checkedOut, dueAt: due, renewals: int(35) ?? 0)
            }
        }

        init(sqlite row: SQLiteRow) throws {
            let c = row.columns
            try self.init(text: { c[$0].data.string }, int: { c[$0].data.integer }, double: { c[$0].data.double },
                          bool: { c[$0].data.bool }, date: { Date(sqliteData: c[$0].data) },
                          strings: { try TitleQuery.authors(c[$0].data.string) })
        }

        init(sql row: any SQLRow) throws {
            let names = row.allColumns
            func value<T: Decodable>(_ i: Int, _ type: T.Type) -> T? { (try? row.decode(column: names[i], as: T?.self)) ?? nil }
            try self.init(text: { i in value(i, String.self) ?? value(i, UUID.self)?.uuidString }, int: { value($0, Int.self) },
                          double: { value($0, Double.self) }, bool: { value($0, Bool.self) }, date: { value($0, Date.self) },
                          strings: { try row.decode(column: names[$0], as: [String]?.self) ?? [] })
        }
    }

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
                condition: condition, status: copyStatus)
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
