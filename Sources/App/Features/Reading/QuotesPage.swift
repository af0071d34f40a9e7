import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// All of a reader's quotes and notes across books, searchable, 50 at a time.
struct QuotesPage: Sendable {
    var libraryID: UUID
    var q: String?
    var paging: Paging
    var quotes: [QuoteDTO]
    var total: Int

    static func make(q: String?, paging: Paging, library: LibraryContext, on db: any Database) async throws -> QuotesPage {
        let (items, total) = try await Quotes.list(userID: library.user.id, titleID: nil, query: q, libraryID: library.libraryID,
                                                   limit: paging.size, offset: paging.offset, on: db)
        return QuotesPage(libraryID: library.libraryID, q: q, paging: paging, quotes: items, total: total)
    }

    static func list(_ quotes: [QuoteDTO], lib: UUID, csrf: String, t: Strings, showTitle: Bool, back: String?) -> any Component {
        H.el(.ul, [.class: "quotes"]) {
            for quote in quotes {
                H.el(.li, [:]) {
                    H.el(.blockquote, [:]) {
                        for line in quote.text.split(separator: "\n", omittingEmptySubsequences: false) { H.el(.p, [:]) { EscapedText(String(line)) } }
                    }
                    H.el(.p, [.class: "meta"]) {
                        if showTitle {
                            H.el(.a, [.href: WebRoute.title(library: lib, title: quote.titleId).path]) { EscapedText(quote.title) }
                            EscapedText(quote.authors.first.map { " · " + $0 } ?? "")
                        }
                        if let page = quote.page { EscapedText((showTitle ? " · " : "") + t.format(.pageOnly, page)) }
                        if let photo = quote.photoId {
                            EscapedText(" · ")
                            H.link(t(.pagePhoto), WebRoute.photo(library: lib, photo: photo).path)
                        }
                    }
                    if let note = quote.note { H.el(.p, [.class: "note"]) { EscapedText(note) } }
                    H.form(WebRoute.quoteDelete(library: lib, quote: quote.id).path, csrf: csrf, attrs: [.class: "inline"]) {
                        H.void(.input, [.type: "hidden", .name: "titleId", .value: quote.titleId.uuidString])
                        if let back { H.void(.input, [.type: "hidden", .name: "back", .value: back]) }
                        H.button(t(.removeFromLog), kind: "quiet small", attrs: [.ariaLabel: t(.removeFromLog) + ": " + String(quote.text.prefix(40))])
                    }
                }
            }
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let here = WebRoute.quotes(library: lib)
        return Layout.page(page, title: t(.allQuotes)) {
            H.el(.div, [.class: "page-head"]) {
                H.el(.h1, [:]) { EscapedText(t(.allQuotes)) }
                H.link(t(.navReading), WebRoute.reading(library: lib).path, cls: "button quiet")
            }
            H.el(.form, [.method: "get", .action: here.path, .role: "search", .class: "inline-form"]) {
                H.field(t(.search), name: "q", type: "search", value: q, extra: [.placeholder: t(.searchQuotes)])
                H.button(t(.search), kind: "quiet")
            }
            if quotes.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(q == nil ? t(.noQuotesYet) : t(.noMatches)) }
            } else {
                Self.list(quotes, lib: lib, csrf: page.csrf, t: t, showTitle: true, back: "quotes")
                Components.pager(paging, total: total, t: t) { n in here.path(query: [("q", q), ("page", n > 1 ? String(n) : nil)]) }
            }
        }
    }
}

/// A quote's form: by hand on a book's page, or with the text OCR read from a page photo, to trim.
struct QuoteFormPage: Sendable {
    var libraryID: UUID
    var titleID: UUID
    var title: String
    var photo: PhotoDTO
    var text: String
    var page: String?

    static func form(lib: UUID, titleID: UUID, photoID: UUID?, text: String, page: String?, csrf: String, t: Strings) -> any Component {
        H.form(WebRoute.quotes(library: lib).path, csrf: csrf, attrs: [.class: "quote-form"]) {
            H.void(.input, [.type: "hidden", .name: "titleId", .value: titleID.uuidString])
            if let photoID { H.void(.input, [.type: "hidden", .name: "photoId", .value: photoID.uuidString]) }
            H.textarea(t(.quoteText), name: "text", value: text, rows: max(4, min(14, text.split(separator: "\n").count + 1)))
            H.field(t(.pageField), name: "page", value: page, id: photoID == nil ? "f-quote-page" : nil, extra: [.maxlength: "20"])
            H.textarea(t(.quoteNote), name: "note", value: nil, rows: 2)
            H.button(t(.saveQuote))
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.makeQuote)) {
            H.el(.h1, [:]) { EscapedText(t(.makeQuote)) }
            H.el(.p, [:]) { H.link(title, WebRoute.title(library: libraryID, title: titleID).path) }
            H.void(.img, [.src: photo.thumbnail, .alt: t(.pagePhoto), .class: "quote-photo"])
            H.el(.p, [.class: "hint"]) { EscapedText(text.isEmpty ? t(.ocrFoundNothing) : t(.ocrTrimHint)) }
            Self.form(lib: libraryID, titleID: titleID, photoID: photo.id, text: text, page: self.page, csrf: page.csrf, t: t)
        }
    }
}
