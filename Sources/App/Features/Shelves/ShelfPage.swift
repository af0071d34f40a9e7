import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// One shelf: its QR code and sign, its books (in the catalog), books put on it by scanning,
/// its stocktakes, and (librarians) its name, room and code.
struct ShelfPage: Sendable {
    var libraryID: UUID
    var shelf: ShelfDTO
    var role: Role
    var open: StocktakeDTO?
    var history: [StocktakeDTO]
    var form: FormState

    static func make(_ id: UUID, library: LibraryContext, origin: String, on db: any Database) async throws -> ShelfPage {
        let shelf = try await Shelves.get(id, library: library.libraryID, on: db)
        let mayLend = library.role.may(.circulate)
        return ShelfPage(libraryID: library.libraryID, shelf: shelf, role: library.role,
                         open: mayLend ? try await Stocktakes.open(shelf: id, library: library.libraryID, on: db) : nil,
                         history: mayLend ? try await Stocktakes.history(shelf: id, library: library.libraryID, on: db) : [],
                         form: FormState(values: ["name": shelf.name, "room": shelf.room ?? "", "code": shelf.code]))
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, shelf, role, open, history, form) = (libraryID, shelf, role, open, history, form)
        return Layout.page(page, title: t.format(.shelfHeading, shelf.name)) {
            H.el(.h1, [:]) { EscapedText(t.format(.shelfHeading, shelf.name)) }
            H.el(.section, [.class: "card shelf-sign"]) {
                H.void(.img, [.src: APILink.shelfQR(library: lib, shelf: shelf.id, format: "svg").path, .alt: t(.shelfQRCodes) + ": " + shelf.name,
                              .width: "132", .height: "132", .class: "qr"])
                H.el(.dl, [.class: "facts"]) {
                    Components.fact(t(.shelfRoom), shelf.room)
                    Components.fact(t(.shelfCodeField), shelf.code)
                    Components.fact(t(.copies), t.number(shelf.copies))
                    Components.fact(t(.stocktakesHistory), shelf.lastStocktake.map { t.format(.lastStocktakeOn, t.date($0)) } ?? t(.neverStocktaken))
                }
                H.el(.p, [.class: "actions"]) {
                    H.link(t(.navCatalog), WebRoute.catalog(library: lib).path(query: [("shelf", shelf.name)]), cls: "button quiet")
                    if role.may(.circulate) {
                        H.link(t(.printShelfCode), WebRoute.shelfSigns(library: lib).path(query: [("shelf", shelf.id.uuidString)]), cls: "button quiet")
                    }
                }
            }
            if role.may(.circulate) {
                H.el(.section, [.class: "card", .id: "stocktake"]) {
                    H.el(.h2, [:]) { EscapedText(t(.stocktakesHistory)) }
                    H.form(WebRoute.shelfStocktake(library: lib, shelf: shelf.id).path, csrf: page.csrf) {
                        H.button(open == nil ? t(.startStocktake) : t(.continueStocktake))
                    }
                    if !history.isEmpty {
                        H.el(.ul, [.class: "stocktakes"]) {
                            for s in history {
                                H.el(.li, [:]) {
                                    H.link(s.finishedAt.map { t.format(.stocktakeFinishedOn, t.date($0)) } ?? t.format(.stocktakeRunning, t.date(s.startedAt)),
                                           WebRoute.stocktake(library: lib, stocktake: s.id).path)
                                    if s.finishedAt != nil {
                                        H.el(.span, [.class: "meta"]) {
                                            EscapedText(" " + t.format(.stocktakeResult, t.number(s.found), t.number(s.missing), t.number(s.misplaced), t.number(s.unknown)))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
                H.el(.section, [.class: "card scan", .id: "put", .dataScanner: ""]) {
                    H.el(.h2, [:]) { EscapedText(t(.putBooksHere)) }
                    H.el(.button, [.type: "button", .class: "button primary", .dataScanStart: "", .dataScanFor: "f-code", .dataScanKind: "any",
                                   .hidden: ""]) { Components.cameraIcon(); EscapedText(t(.scanBarcode)) }
                    Components.liveScan(t)
                    H.form(WebRoute.shelfBooks(library: lib, shelf: shelf.id).path, csrf: page.csrf) {
                        H.field(t(.stocktakeScanLabel), name: "code", hint: t(.putBooksHint), required: true,
                                extra: [.autocomplete: "off", .autocapitalize: "characters", .dataScanTarget: "", .maxlength: "300",
                                        .autofocus: open == nil && page.flash != nil ? "" : nil])
                        H.button(t(.putBooksHere), kind: "quiet")
                    }
                }
            }
            if role.may(.catalog) {
                H.el(.section, [.class: "card", .id: "edit"]) {
                    H.el(.h2, [:]) { EscapedText(t(.editShelfHeading)) }
                    if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                    H.form(WebRoute.shelf(library: lib, shelf: shelf.id).path, csrf: page.csrf) {
                        ShelfFields(form: form, t: t).body
                        H.button(t(.saveShelf))
                    }
                    H.form(WebRoute.shelfDelete(library: lib, shelf: shelf.id).path, csrf: page.csrf) {
                        H.button(t(.deleteShelf), kind: "quiet danger")
                    }
                }
            }
        }
    }
}
