import Foundation
import Plot
import ShelfmarkCore

/// The library's shelves: each with its room, code, books and last stocktake; the signs to print;
/// the copies not seen for a year; librarians add shelves here.
struct ShelvesPage: Sendable {
    var libraryID: UUID
    var shelves: [ShelfDTO]
    var role: Role
    var form = FormState()

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, shelves, role, form) = (libraryID, shelves, role, form)
        return Layout.page(page, title: t(.shelvesTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.shelvesTitle)) }
            if role.may(.circulate) {
                H.el(.p, [.class: "actions"]) {
                    H.link(t(.shelfQRCodes), WebRoute.shelfSigns(library: lib).path, cls: "button quiet")
                    H.link(t(.unseenTitle), WebRoute.unseen(library: lib).path, cls: "button quiet")
                }
            }
            if shelves.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noShelves)) }
            }
            H.el(.ul, [.class: "menu shelves"]) {
                for shelf in shelves {
                    H.el(.li, [.class: "card"]) {
                        H.link(shelf.name, WebRoute.shelf(library: lib, shelf: shelf.id).path)
                        H.el(.p, [.class: "meta"]) { EscapedText(ShelvesPage.facts(shelf, t: t)) }
                    }
                }
            }
            if role.may(.catalog) {
                H.el(.section, [.class: "card", .id: "add"]) {
                    H.el(.h2, [:]) { EscapedText(t(.addShelf)) }
                    if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                    H.form(WebRoute.shelves(library: lib).path, csrf: page.csrf) {
                        ShelfFields(form: form, t: t).body
                        H.button(t(.addShelf))
                    }
                }
            }
        }
    }
}

extension ShelvesPage {
    /// "Room 12 · B3 · Books: 40 · Last stocktake: 26 Nov 2026".
    static func facts(_ shelf: ShelfDTO, t: Strings) -> String {
        let stocktake = shelf.lastStocktake.map { t.format(.lastStocktakeOn, t.date($0)) } ?? t(.neverStocktaken)
        let parts: [String?] = [shelf.room, shelf.code, t.format(.shelfBooks, t.number(shelf.copies)), stocktake]
        return parts.compactMap { $0 }.joined(separator: " · ")
    }
}

/// A shelf's name, room and code, as the add and edit forms ask for them.
struct ShelfFields {
    var form: FormState
    var t: Strings

    var body: any Component {
        let (form, t) = (form, t)
        return H.el(.div, [:]) {
            H.field(t(.shelfName), name: "name", value: form["name"], required: true, error: form.errors["name"], extra: [.maxlength: "200"])
            H.el(.div, [.class: "pair"]) {
                H.field(t(.shelfRoom), name: "room", value: form["room"], error: form.errors["room"], extra: [.maxlength: "100"])
                H.field(t(.shelfCodeField), name: "code", value: form["code"], hint: t(.shelfCodeHint), error: form.errors["code"],
                        extra: [.maxlength: "16", .autocapitalize: "characters", .autocomplete: "off"])
            }
        }
    }
}
