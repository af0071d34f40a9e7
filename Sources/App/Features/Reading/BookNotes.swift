import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// A reader's page photos and quotes of one book, on the book's page: take or upload a photo,
/// keep a quote by hand. Private to the reader.
struct BookNotes: Sendable {
    var libraryID: UUID
    var titleID: UUID
    var photos: [PhotoDTO]
    var quotes: [QuoteDTO]

    static func make(titleID: UUID, library: LibraryContext, on db: any Database) async throws -> BookNotes {
        BookNotes(libraryID: library.libraryID, titleID: titleID,
                  photos: try await PagePhotos.list(titleID: titleID, userID: library.user.id, libraryID: library.libraryID, on: db),
                  quotes: try await Quotes.list(userID: library.user.id, titleID: titleID, query: nil, libraryID: library.libraryID,
                                                limit: 100, offset: 0, on: db).items)
    }

    func render(_ page: PageContext) -> any Component {
        let t = page.t
        let (lib, titleID, photos, quotes) = (libraryID, titleID, photos, quotes)
        return H.el(.div, [:]) {
            H.el(.section, [.id: "photos"]) {
                H.el(.h2, [:]) { EscapedText(t(.pagePhotos)) }
                if !photos.isEmpty {
                    H.el(.ul, [.class: "photo-grid"]) {
                        for photo in photos {
                            H.el(.li, [:]) {
                                H.el(.a, [.href: WebRoute.photo(library: lib, photo: photo.id).path]) {
                                    H.void(.img, [.src: photo.thumbnail, .alt: photo.page.map { t.format(.pageOnly, $0) } ?? t(.pagePhoto), .loading: "lazy",
                                                  .width: "120", .height: String(120 * photo.height / max(1, photo.width))])
                                    if let p = photo.page { H.el(.span, [:]) { EscapedText(t.format(.pageOnly, p)) } }
                                }
                            }
                        }
                    }
                }
                H.form(WebRoute.titlePhotos(library: lib, title: titleID).path, csrf: page.csrf,
                       attrs: [.enctype: "multipart/form-data", .class: "photo-upload"]) {
                    H.el(.div, [.class: "field"]) {
                        H.el(.label, [.for: "f-photo"]) { EscapedText(t(.takePagePhoto)) }
                        H.void(.input, [.type: "file", .id: "f-photo", .name: "photo", .accept: "image/*", .capture: "environment", .required: ""])
                    }
                    H.field(t(.pageField), name: "page", id: "f-photo-page", extra: [.inputmode: "numeric", .maxlength: "20", .autocomplete: "off"])
                    H.button(t(.uploadPhoto), kind: "quiet")
                }
            }
            H.el(.section, [.id: "quotes"]) {
                H.el(.h2, [:]) { EscapedText(t(.quotesHeading)) }
                QuotesPage.list(quotes, lib: lib, csrf: page.csrf, t: t, showTitle: false, back: nil)
                H.el(.details, [.class: "add-quote"]) {
                    H.el(.summary, [:]) { EscapedText(t(.addQuote)) }
                    QuoteFormPage.form(lib: lib, titleID: titleID, photoID: nil, text: "", page: nil, csrf: page.csrf, t: t)
                }
                H.el(.p, [:]) { H.link(t(.allQuotes) + " ›", WebRoute.quotes(library: lib).path) }
            }
        }
    }
}
