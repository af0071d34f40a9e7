import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup

extension AddPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.addTitle)) {
            switch state {
            case .start(let isbn, let error): Self.start(isbn: isbn, error: error, lib: lib, page: page)
            case .draft(let form, let intro, let sources): Self.draft(form, intro: intro, sources: sources, lib: lib, page: page)
            case .existing(let existing): Self.existing(existing, lib: lib, t: t, csrf: page.csrf)
            case .candidates(let records, let read): Self.candidates(records, read: read, lib: lib, t: t)
            }
        }
    }

    static func start(isbn: String?, error: String?, lib: UUID, page: PageContext) -> any Component {
        let t = page.t
        return ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.addTitle)) }
            H.el(.section, [.class: "card scan", .dataScanner: WebRoute.add(library: lib).path]) {
                H.el(.p, [:]) { EscapedText(t(.scanHint)) }
                H.el(.button, [.type: "button", .class: "button primary", .dataScanStart: "", .hidden: ""]) { Components.cameraIcon(); EscapedText(t(.scanBarcode)) }
                Components.liveScan(t)
                H.el(.form, [.method: "get", .action: WebRoute.add(library: lib).path, .class: "inline-form"]) {
                    H.field(t(.typeISBN), name: "isbn", value: isbn, required: true, error: error,
                            extra: [.inputmode: "numeric", .autocomplete: "off", .pattern: "[0-9Xx\\- ]{10,20}", .dataScanTarget: ""])
                    H.button(t(.lookUp))
                }
                H.form(WebRoute.addPhoto(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data", .class: "inline-form"]) {
                    H.field(t(.takePhoto), name: "image", type: "file", extra: [.accept: "image/*", .capture: "environment"])
                    H.button(t(.lookUp), kind: "quiet")
                }
            }
            H.el(.p, [:]) { H.link(t(.orEnterManually), WebRoute.add(library: lib).path(query: [("manual", "1")])) }
        }
    }

    /// The books found by the words of a cover, each a link to its confirmation (as if its ISBN were scanned).
    static func candidates(_ records: [BookRecord], read: String, lib: UUID, t: Strings) -> any Component {
        ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.addTitle)) }
            H.el(.p, [:]) { EscapedText(t.format(.coverRead, read)) }
            H.el(.ul, [.class: "titles"]) {
                for record in records {
                    if let isbn = record.isbn13 {
                        H.el(.li, [:]) {
                            H.el(.a, [.class: "title-row", .href: WebRoute.add(library: lib).path(query: [("isbn", isbn)])]) {
                                Components.cover(record.coverURL, title: record.title ?? isbn, t: t)
                                H.el(.span, [.class: "meta"]) {
                                    H.el(.span, [.class: "name"]) { EscapedText(record.title ?? isbn) }
                                    if let authors = record.authors, !authors.isEmpty {
                                        H.el(.span, [.class: "authors"]) { EscapedText(authors.joined(separator: ", ")) }
                                    }
                                    let facts = [record.publisher, record.publishedDate.map { String($0.prefix(4)) }].compactMap { $0 }
                                    if !facts.isEmpty { H.el(.span, [.class: "shelf"]) { EscapedText(facts.joined(separator: " · ")) } }
                                }
                            }
                        }
                    }
                }
            }
            H.el(.p, [:]) { H.link(t(.orEnterManually), WebRoute.add(library: lib).path(query: [("manual", "1")])) }
        }
    }

    static func existing(_ existing: ExistingTitleDTO, lib: UUID, t: Strings, csrf: String) -> any Component {
        H.el(.section, [.class: "card"]) {
            H.el(.h1, [:]) { EscapedText(t.format(.alreadyInLibrary, existing.title)) }
            H.el(.p, [:]) { EscapedText(t(.copiesAvailable, existing.availableCopies)) }
            H.form(WebRoute.titleCopies(library: lib, title: existing.id).path, csrf: csrf) {
                H.field(t(.copiesField), name: "count", type: "number", value: "1", required: true, extra: [.min: "1", .max: "500"])
                H.button(t(.addMoreCopies))
            }
            H.el(.p, [:]) { H.link(existing.title, WebRoute.title(library: lib, title: existing.id).path) }
        }
    }

    static func draft(_ d: FormState, intro: String?, sources: [String], lib: UUID, page: PageContext) -> any Component {
        let t = page.t
        return ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.addTitle)) }
            if let intro { H.el(.p, [:]) { EscapedText(intro) } }
            if !sources.isEmpty {
                H.el(.details, [.class: "sources"]) {
                    H.el(.summary, [:]) { EscapedText(t(.lookupSourcesHeading)) }
                    H.el(.ul, [:]) { for line in sources { H.el(.li, [:]) { EscapedText(line) } } }
                }
            }
            H.form(WebRoute.add(library: lib).path, csrf: page.csrf, attrs: [.class: "card book-form"]) {
                if let general = d.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                if let url = d["coverUrl"], !url.isEmpty { Components.cover(url, title: d["title"] ?? "", t: t, size: "large") }
                H.field(t(.title), name: "title", value: d["title"], required: true, error: d.errors["title"])
                H.field(t(.subtitle), name: "subtitle", value: d["subtitle"], error: d.errors["subtitle"])
                H.field(t(.authorsField), name: "authors", value: d["authors"], hint: t(.authorsHint), error: d.errors["authors"])
                H.field(t(.isbn), name: "isbn", value: d["isbn"], error: d.errors["isbn"], extra: [.inputmode: "numeric"])
                H.field(t(.publisher), name: "publisher", value: d["publisher"], error: d.errors["publisher"])
                H.field(t(.publishedDate), name: "publishedDate", value: d["publishedDate"], error: d.errors["publishedDate"])
                H.field(t(.pageCount), name: "pageCount", type: "number", value: d["pageCount"], error: d.errors["pageCount"], extra: [.min: "1"])
                H.field(t(.languageField), name: "language", value: d["language"], error: d.errors["language"])
                H.textarea(t(.description), name: "description", value: d["description"], rows: 5, error: d.errors["description"])
                H.field(t(.coverURL), name: "coverUrl", type: "url", value: d["coverUrl"], error: d.errors["coverUrl"])
                H.field(t(.callNumberField), name: "callNumber", value: d["callNumber"], hint: t(.callNumberHint), error: d.errors["callNumber"])
                H.field(t(.copiesField), name: "copies", type: "number", value: d["copies"] ?? "1", required: true, error: d.errors["copies"],
                        extra: [.min: "0", .max: "500"])
                H.button(t(.confirmAdd))
            }
        }
    }
}
