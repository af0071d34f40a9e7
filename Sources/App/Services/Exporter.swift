import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// Exports (F2, F4): the catalog and the wishlist as the seed's CSV formats.
enum Exporter {
    /// `library_catalog.csv`: ISBN, Title, Author, Total Copies, Available Copies, Language, Publisher,
    /// Published Date, Page Count, Notes — A–Z by title. Lost and withdrawn copies are not counted.
    static func catalogCSV(libraryID: UUID, on db: any Database) async throws -> String {
        var out = CSVWriter.line(ImportFormat.catalogColumns)
        let rows = try await db.sql.raw("""
            SELECT t.isbn13, t.title, t.authors, t.language, t.publisher, t.published_date, t.page_count, t.notes,
              COALESCE(SUM(CASE WHEN c.status IN ('available', 'on_loan') THEN 1 ELSE 0 END), 0) AS total,
              COALESCE(SUM(CASE WHEN c.status = 'available' THEN 1 ELSE 0 END), 0) AS available
            FROM titles t LEFT JOIN copies c ON c.title_id = t.id
            WHERE t.library_id = \(bind: libraryID) AND t.wishlist = \(bind: false)
            GROUP BY t.id ORDER BY t.sort_key, t.id
            """).all()
        out.reserveCapacity(rows.count * 120)
        for row in rows {
            out += CSVWriter.line([
                try row.decode(column: "isbn13", as: String?.self) ?? "",
                try row.decode(column: "title", as: String.self),
                try row.decode(column: "authors", as: [String].self).joined(separator: "; "),
                String(try row.decode(column: "total", as: Int.self)),
                String(try row.decode(column: "available", as: Int.self)),
                try row.decode(column: "language", as: String?.self) ?? "",
                try row.decode(column: "publisher", as: String?.self) ?? "",
                try row.decode(column: "published_date", as: String?.self) ?? "",
                (try row.decode(column: "page_count", as: Int?.self)).map(String.init) ?? "",
                try row.decode(column: "notes", as: String?.self) ?? "",
            ])
        }
        return out
    }

    /// `library_wishlist.csv`: Title, Author, ISBN.
    static func wishlistCSV(libraryID: UUID, on db: any Database) async throws -> String {
        var out = CSVWriter.line(ImportFormat.wishlistColumns)
        let rows = try await db.sql.raw("""
            SELECT title, authors, isbn13 FROM titles WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: true) ORDER BY sort_key, id
            """).all()
        for row in rows {
            out += CSVWriter.line([
                try row.decode(column: "title", as: String.self),
                try row.decode(column: "authors", as: [String].self).joined(separator: "; "),
                try row.decode(column: "isbn13", as: String?.self) ?? "",
            ])
        }
        return out
    }
}
