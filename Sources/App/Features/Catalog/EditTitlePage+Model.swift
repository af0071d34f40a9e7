import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// The form that edits a title: every field, filled with what is stored, or after a refusal
/// with what the person typed and the refusal next to its field.
struct EditTitlePage: Sendable {
    static let fields: Set<String> = ["title", "subtitle", "authors", "isbn", "publisher", "publishedDate", "pageCount", "language",
                                      "rating", "categories", "description", "coverUrl", "totalCopies",
                                      "series", "seriesNumber", "moreSeries", "readingLevel", "callNumber"]

    var libraryID: UUID
    var titleID: UUID
    /// The title as stored (the heading says which book this is, whatever was typed).
    var storedTitle: String
    var isWishlist: Bool
    var copiesOnLoan: Int
    var form: FormState

    /// The page for title `titleID` as stored.
    static func make(titleID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> EditTitlePage {
        let d = try await TitleQuery.detail(titleID, libraryID: library.libraryID, now: now, on: db)
        let values: [String: String?] = [
            "title": d.title, "subtitle": d.subtitle, "authors": d.authors.joined(separator: ", "), "isbn": d.isbn13,
            "publisher": d.publisher, "publishedDate": d.publishedDate, "pageCount": d.pageCount.map(String.init),
            "language": d.language, "rating": d.rating.map { String(format: "%g", $0) },
            "categories": d.categories.map(\.name).joined(separator: ", "), "description": d.description, "coverUrl": d.coverUrl,
            "totalCopies": String(d.availability.total), "series": d.series, "seriesNumber": d.seriesNumber, "readingLevel": d.readingLevel,
            "callNumber": d.callNumber, "moreSeries": d.moreSeries.isEmpty ? nil : SeriesEntry.text(d.moreSeries),
        ]
        return EditTitlePage(libraryID: library.libraryID, titleID: titleID, storedTitle: d.title, isWishlist: d.wishlist,
                             copiesOnLoan: d.availability.onLoan, form: FormState(values: values.compactMapValues { $0 }))
    }

    /// The page again after `error` refused what was typed (`typed`), which it keeps.
    static func refused(_ error: any Error, typed: [String: String], titleID: UUID, library: LibraryContext, now: Date,
                        t: Strings, on db: any Database) async throws -> EditTitlePage {
        var page = try await make(titleID: titleID, library: library, now: now, on: db)
        page.form = FormState(values: typed, refusedWith: error, t: t, fields: fields)
        return page
    }
}
