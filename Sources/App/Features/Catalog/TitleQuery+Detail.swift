import Fluent
import FluentSQL
import FluentSQLiteDriver
import Foundation
import ShelfmarkCore
import SQLKit

/// A title's detail: the book page and `GET …/titles/{id}`.
extension TitleQuery {
    /// A title with its categories, copies and open loans, in one statement (one round trip to the
    /// database: a title read was five queries): a row per copy and category, each with the
    /// title's columns and the copy's open loan if any.
    /// On SQLite the rows are decoded by position on the connection's own thread (`SQLiteConnection.rows`):
    /// SQLKit hands each row to the event loop and decodes each value by name.
    static func detail(_ titleID: UUID, libraryID: UUID, now: Date, on db: any Database) async throws -> TitleDetail {
        let rows: [DetailRow]
        if let sqlite = db as? any SQLiteDatabase {
            rows = try await sqlite.withConnection { connection in
                try await connection.rows(detailSQL, [titleID.sqliteData!, libraryID.sqliteData!],
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
                                  statusNote: copy.statusNote, statusAt: copy.statusAt, callNumber: copy.callNumber))
            guard let loan = row.loan else { continue }
            loans.append(LoanDTO(
                id: loan.id, titleId: titleID, title: loan.titleText, copyId: copy.id, copyBarcode: copy.barcode, memberId: loan.memberID,
                memberCardId: loan.memberCardID, memberName: loan.memberName, checkedOutAt: loan.checkedOutAt, dueAt: loan.dueAt,
                returnedAt: nil, renewals: loan.renewals, overdue: isOverdue(dueAt: loan.dueAt, returnedAt: nil, now: now),
                daysOverdue: ShelfmarkCore.daysOverdue(dueAt: loan.dueAt, now: now)))
        }
        loans.sort { $0.dueAt < $1.dueAt }
        let isbn = t.isbn13.flatMap { try? ISBN($0) }
        // The readers' own ratings (their reads), averaged with the library's (one more vote when it has one).
        struct Votes: Decodable { var n: Int; var total: Double? }
        let votes = try await db.sql.raw("""
            SELECT COUNT(rating) AS n, SUM(rating) AS total FROM reads
            WHERE title_id = \(bind: titleID) AND library_id = \(bind: libraryID) AND rating > 0
            """).first(decoding: Votes.self) ?? Votes(n: 0, total: nil)
        let voters = votes.n + (t.rating == nil ? 0 : 1)
        var detail = TitleDetail(
            id: titleID, isbn13: t.isbn13, isbn10: isbn?.isbn10, isbnHyphenated: isbn?.hyphenated, title: t.title, subtitle: t.subtitle,
            authors: t.authors, publisher: t.publisher, publishedDate: t.publishedDate, pageCount: t.pageCount, language: t.language,
            description: t.description, coverUrl: t.coverURL, notes: t.notes, favorite: t.favorite, rating: t.rating, wishlist: t.wishlist,
            series: t.series, seriesNumber: t.seriesNumber, readingLevel: t.readingLevel, section: t.section,
            categories: categories, availability: Availability(statuses: copies.map(\.status)), copies: copies, loans: loans,
            links: links(isbn13: t.isbn13, title: t.title, authors: t.authors), createdAt: t.createdAt, updatedAt: t.updatedAt)
        detail.ratingCount = votes.n
        (detail.callNumber, detail.hasMarcRecord) = (t.callNumber, t.hasMARC)
        // Only a title with a series of its own has others (the first of a list becomes its own).
        if t.series != nil { detail.moreSeries = try await TitleSeries.of([titleID], on: db)[titleID] ?? [] }
        if voters > 0 { detail.ratingAverage = ((votes.total ?? 0) + (t.rating ?? 0)) / Double(voters) }
        return detail
    }

    /// The detail statement (numbered parameters: 1 the title, 2 the library): a row per copy and
    /// category of the title (joins, not a subquery: a nested SELECT cost SQLite as much to prepare).
    private static let detailSQL = """
        SELECT t.isbn13, t.title, t.subtitle, t.authors, t.publisher, t.published_date, t.page_count, t.language,
               t.description, t.cover_url, t.notes, t.favorite, t.rating, t.wishlist, t.series, t.series_number,
               t.reading_level, t.section, t.created_at, t.updated_at, cat.id AS category_id, cat.name AS category_name,
               c.id AS copy_id, c.copy_number, c.barcode, c.location, c.condition, c.status,
               l.id AS loan_id, l.member_id, l.member_card_id, l.member_name, l.title_text, l.checked_out_at, l.due_at, l.renewals,
               c.status_note, c.status_at, c.call_number AS copy_call_number, t.call_number AS title_call_number,
               CASE WHEN t.marc_record IS NULL THEN 0 ELSE 1 END AS has_marc
        FROM titles t
        LEFT JOIN copies c ON c.title_id = t.id LEFT JOIN loans l ON l.copy_id = c.id AND l.returned_at IS NULL
        LEFT JOIN title_categories tc ON tc.title_id = t.id LEFT JOIN categories cat ON cat.id = tc.category_id
        WHERE t.id = ?1 AND t.library_no = (SELECT no FROM libraries WHERE id = ?2)
        ORDER BY c.copy_number
        """

    /// One row of the detail statement, by position (the columns of `detailSQL`, in order).
    struct DetailRow: Sendable {
        struct CopyPart: Sendable {
            var id: UUID; var number: Int; var barcode: String; var location: String?; var condition: String?; var status: String
            var statusNote: String?; var statusAt: Date?; var callNumber: String?
        }
        struct LoanPart: Sendable {
            var id: UUID; var memberID: UUID?; var memberCardID: String; var memberName: String; var titleText: String
            var checkedOutAt: Date; var dueAt: Date; var renewals: Int
        }
        var isbn13: String?, title: String, subtitle: String?, authors: [String], publisher: String?, publishedDate: String?
        var pageCount: Int?, language: String?, description: String?, coverURL: String?, notes: String?, favorite: Bool
        var rating: Double?, wishlist: Bool, series: String?, seriesNumber: String?, readingLevel: String?, section: String
        var createdAt: Date?, updatedAt: Date?
        var callNumber: String?, hasMARC: Bool
        var category: CategoryRef?
        var copy: CopyPart?
        var loan: LoanPart?

        /// Decodes the values of one row, given how to read column `i` as each type.
        init(text: (Int) -> String?, uuid: (Int) -> UUID?, int: (Int) -> Int?, double: (Int) -> Double?, bool: (Int) -> Bool?,
             date: (Int) -> Date?, strings: (Int) throws -> [String]) throws {
            (isbn13, title, subtitle) = (text(0), text(1) ?? "", text(2))
            authors = try strings(3)
            (publisher, publishedDate, pageCount, language) = (text(4), text(5), int(6), text(7))
            (description, coverURL, notes, favorite) = (text(8), text(9), text(10), bool(11) ?? false)
            (rating, wishlist, series, seriesNumber) = (double(12), bool(13) ?? false, text(14), text(15))
            (readingLevel, section, createdAt, updatedAt) = (text(16), text(17) ?? "#", date(18), date(19))
            (callNumber, hasMARC) = (text(39), (int(40) ?? 0) == 1)
            if let categoryID = uuid(20) { category = CategoryRef(id: categoryID, name: text(21) ?? "") }
            if let copyID = uuid(22) {
                copy = CopyPart(id: copyID, number: int(23) ?? 0, barcode: text(24) ?? "", location: text(25), condition: text(26),
                                status: text(27) ?? CopyStatus.available.rawValue, statusNote: text(36), statusAt: date(37), callNumber: text(38))
            }
            if let loanID = uuid(28), let checkedOut = date(33), let due = date(34) {
                loan = LoanPart(id: loanID, memberID: uuid(29), memberCardID: text(30) ?? "", memberName: text(31) ?? "",
                                titleText: text(32) ?? "", checkedOutAt: checkedOut, dueAt: due, renewals: int(35) ?? 0)
            }
        }

        init(sqlite row: SQLiteRow) throws {
            let c = row.columns
            try self.init(text: { c[$0].data.string }, uuid: { UUID(sqliteData: c[$0].data) }, int: { c[$0].data.integer }, double: { c[$0].data.double },
                          bool: { c[$0].data.bool }, date: { Date(sqliteData: c[$0].data) },
                          strings: { try TitleQuery.authors(c[$0].data.string) })
        }

        init(sql row: any SQLRow) throws {
            let names = row.allColumns
            func value<T: Decodable>(_ i: Int, _ type: T.Type) -> T? { (try? row.decode(column: names[i], as: T?.self)) ?? nil }
            try self.init(text: { value($0, String.self) }, uuid: { value($0, UUID.self) }, int: { value($0, Int.self) },
                          double: { value($0, Double.self) }, bool: { value($0, Bool.self) }, date: { value($0, Date.self) },
                          strings: { try row.decode(column: names[$0], as: [String]?.self) ?? [] })
        }
    }
}
