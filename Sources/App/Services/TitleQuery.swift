import Fluent
import FluentSQL
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
        var limit = 50
        var offset = 0
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
        let favoritesCount = try await count(sql, """
            SELECT COUNT(*) AS n FROM titles WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: filters.wishlist) AND favorite = \(bind: true)
            """)
        let page: SQLQueryString = " LIMIT \(literal: filters.limit) OFFSET \(literal: filters.offset)"
        var rows: [any SQLRow]
        var total: Int
        var totalIsLowerBound = false
        var order = TitleList.Order.title
        var sections: [SectionCount]?
        if tokens.isEmpty {
            let clause = whereClause(filters, libraryID: libraryID, now: now, withSection: true)
            rows = try await sql.raw("SELECT " + summaryColumns + " FROM titles t WHERE " + clause + " ORDER BY t.sort_key, t.id" + page).all()
            total = filters.offset == 0 && rows.count < filters.limit
                ? rows.count : try await count(sql, "SELECT COUNT(*) AS n FROM titles t WHERE " + clause)
            if filters.includeSections {
                let sectionRows = try await sql.raw("SELECT t.section, COUNT(*) AS n FROM titles t WHERE "
                    + whereClause(filters, libraryID: libraryID, now: now, withSection: false) + " GROUP BY t.section").all()
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
                rows = try await sql.raw(from + " ORDER BY t.sort_key, t.id" + page).all()
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

    private static func count(_ sql: any SQLDatabase, _ query: SQLQueryString) async throws -> Int {
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
    /// database: a title read was five queries, issue 15): a row per copy, each with the title's
    /// columns, its open loan if any, and the categories as a JSON array of `[id, name]`.
    static func detail(_ titleID: UUID, libraryID: UUID, now: Date, on db: any Database) async throws -> TitleDetail {
        let sql = db.sql
        let categoriesColumn: SQLQueryString = sql.dialect.name == "postgresql"
            ? """
              (SELECT COALESCE(json_agg(json_build_array(c.id, c.name) ORDER BY c.name), '[]')::text
               FROM title_categories tc JOIN categories c ON c.id = tc.category_id WHERE tc.title_id = t.id)
              """
            : """
              (SELECT COALESCE(json_group_array(json_array(x.id, x.name)), '[]') FROM
                (SELECT c.id, c.name FROM title_categories tc JOIN categories c ON c.id = tc.category_id
                 WHERE tc.title_id = t.id ORDER BY c.name) x)
              """
        // An open loan always has its copy (a copy on loan cannot be deleted), so the join finds every
        // open loan of the title.
        let rows = try await sql.raw("""
            SELECT t.id, t.isbn13, t.title, t.subtitle, t.authors, t.publisher, t.published_date, t.page_count, t.language,
                   t.description, t.cover_url, t.notes, t.favorite, t.rating, t.wishlist, t.series, t.series_number,
                   t.reading_level, t.section, t.created_at, t.updated_at, \(categoriesColumn) AS categories_json,
                   c.id AS copy_id, c.copy_number, c.barcode, c.location, c.condition, c.status,
                   l.id AS loan_id, l.member_id, l.member_card_id, l.member_name, l.title_text, l.checked_out_at, l.due_at, l.renewals
            FROM titles t LEFT JOIN copies c ON c.title_id = t.id LEFT JOIN loans l ON l.copy_id = c.id AND l.returned_at IS NULL
            WHERE t.id = \(bind: titleID) AND t.library_id = \(bind: libraryID)
            ORDER BY c.copy_number
            """).all()
        guard let t = rows.first else { throw AppError.notFound("Title") }
        let categoryPairs = try JSONDecoder().decode([[String]].self, from: Data(try t.decode(column: "categories_json", as: String.self).utf8))
        let categories = categoryPairs.compactMap { pair in
            pair.count == 2 ? UUID(uuidString: pair[0]).map { CategoryRef(id: $0, name: pair[1]) } : nil
        }
        var copies: [CopyDTO] = []
        var loans: [LoanDTO] = []
        for row in rows {
            guard let copyID = try row.decode(column: "copy_id", as: UUID?.self) else { continue }
            let copy = CopyDTO(id: copyID, titleId: titleID, copyNumber: try row.decode(column: "copy_number", as: Int.self),
                               barcode: try row.decode(column: "barcode", as: String.self),
                               location: try row.decode(column: "location", as: String?.self),
                               condition: try row.decode(column: "condition", as: String?.self),
                               status: CopyStatus(rawValue: try row.decode(column: "status", as: String.self)) ?? .available)
            copies.append(copy)
            guard let loanID = try row.decode(column: "loan_id", as: UUID?.self) else { continue }
            let dueAt = try row.decode(column: "due_at", as: Date.self)
            loans.append(LoanDTO(
                id: loanID, titleId: titleID, title: try row.decode(column: "title_text", as: String.self), copyId: copy.id,
                copyBarcode: copy.barcode, memberId: try row.decode(column: "member_id", as: UUID?.self),
                memberCardId: try row.decode(column: "member_card_id", as: String.self),
                memberName: try row.decode(column: "member_name", as: String.self),
                checkedOutAt: try row.decode(column: "checked_out_at", as: Date.self), dueAt: dueAt, returnedAt: nil,
                renewals: try row.decode(column: "renewals", as: Int.self), overdue: isOverdue(dueAt: dueAt, returnedAt: nil, now: now),
                daysOverdue: ShelfmarkCore.daysOverdue(dueAt: dueAt, now: now)))
        }
        loans.sort { $0.dueAt < $1.dueAt }
        let isbn13 = try t.decode(column: "isbn13", as: String?.self)
        let isbn = isbn13.flatMap { try? ISBN($0) }
        let title = try t.decode(column: "title", as: String.self)
        let authors = try t.decode(column: "authors", as: [String].self)
        return TitleDetail(
            id: titleID, isbn13: isbn13, isbn10: isbn?.isbn10, isbnHyphenated: isbn?.hyphenated, title: title,
            subtitle: try t.decode(column: "subtitle", as: String?.self), authors: authors,
            publisher: try t.decode(column: "publisher", as: String?.self),
            publishedDate: try t.decode(column: "published_date", as: String?.self),
            pageCount: try t.decode(column: "page_count", as: Int?.self), language: try t.decode(column: "language", as: String?.self),
            description: try t.decode(column: "description", as: String?.self), coverUrl: try t.decode(column: "cover_url", as: String?.self),
            notes: try t.decode(column: "notes", as: String?.self), favorite: try t.decode(column: "favorite", as: Bool.self),
            rating: try t.decode(column: "rating", as: Double?.self), wishlist: try t.decode(column: "wishlist", as: Bool.self),
            series: try t.decode(column: "series", as: String?.self), seriesNumber: try t.decode(column: "series_number", as: String?.self),
            readingLevel: try t.decode(column: "reading_level", as: String?.self), section: try t.decode(column: "section", as: String.self),
            categories: categories, availability: Availability(statuses: copies.map(\.status)), copies: copies, loans: loans,
            links: links(isbn13: isbn13, title: title, authors: authors),
            createdAt: try t.decode(column: "created_at", as: Date?.self), updatedAt: try t.decode(column: "updated_at", as: Date?.self))
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
