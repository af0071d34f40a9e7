import Foundation
import ShelfmarkCore
import ShelfmarkLookup

/// Adding a book: scan or type an ISBN (or send a photo of its barcode), confirm what the
/// providers found or type it in, or — when the library has the ISBN — add copies to that title.
struct AddPage: Sendable {
    static let fields: Set<String> = ["title", "subtitle", "authors", "isbn", "publisher", "publishedDate", "pageCount", "language",
                                      "description", "coverUrl", "copies", "callNumber"]

    enum State: Sendable {
        /// The scanner and ISBN field; `error`: why the last ISBN or photo led nowhere.
        case start(isbn: String?, error: String?)
        /// The form to confirm or fill in, as found or as typed (with a refusal next to its field).
        /// `sources`: which source gave which fields, one line each ("Deutsche Nationalbibliothek: title, authors").
        case draft(FormState, intro: String?, sources: [String] = [])
        case existing(ExistingTitleDTO)
        /// A photo of a cover without a barcode: the words read from it and the books the sources found.
        case candidates([BookRecord], read: String)
    }

    var libraryID: UUID
    var state: State
}
