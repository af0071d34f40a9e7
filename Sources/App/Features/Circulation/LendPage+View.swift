import Foundation
import Plot
import ShelfmarkCore

extension LendPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.checkOutTitle)) {
            switch state {
            case .form(let form): Self.form(form, lib: lib, defaultDays: defaultDays, page: page)
            case .choose(let matches, let values): Self.chooser(matches, values: values, lib: lib, page: page)
            case .confirm(let confirmation): Self.confirmation(confirmation, lib: lib, page: page)
            }
        }
    }

    static func form(_ form: FormState, lib: UUID, defaultDays: Int, page: PageContext) -> any Component {
        let t = page.t
        let values = form.values
        let chosen = values["days"].flatMap(Int.init) ?? defaultDays
        return ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.checkOutTitle)) }
            H.el(.section, [.class: "scan", .dataScanner: ""]) {
                H.el(.div, [.class: "actions"]) {
                    H.el(.button, [.type: "button", .class: "button quiet", .dataScanStart: "", .dataScanFor: "f-card", .dataScanKind: "any", .hidden: ""]) {
                        Components.cameraIcon(); EscapedText(t(.memberCard))
                    }
                    if values["titleId"] == nil {
                        H.el(.button, [.type: "button", .class: "button quiet", .dataScanStart: "", .dataScanFor: "f-book", .dataScanKind: "any", .hidden: ""]) {
                            Components.cameraIcon(); EscapedText(t(.bookField))
                        }
                    }
                }
                Components.liveScan(t)
                // At the desk: the member's current loans, shown here once the card is known.
                H.el(.div, [.class: "member-loans", .dataMemberLoans: WebRoute.members(library: lib).path, .hidden: ""]) {
                    H.el(.h2, [:]) { EscapedText(t(.currentLoans)) }
                }
            }
            H.form(WebRoute.checkout(library: lib).path, csrf: page.csrf, attrs: [.class: "card"]) {
                if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                // The first thing to do is say who borrows: the field has the focus, and suggests members
                // (card ID, name or class) as one types.
                H.field(t(.memberCard), name: "card", value: values["card"], hint: t(.memberCardHint), required: true, error: form.errors["card"],
                        extra: [.autocomplete: "off", .autocapitalize: "characters", .dataScanTarget: "",
                                .autofocus: values["card"] == nil || form.errors["card"] != nil ? "" : nil,
                                .list: "member-suggestions", .dataSuggestMembers: APILink.members(library: lib).path])
                H.el(.datalist, [.id: "member-suggestions"]) {}
                if let titleID = values["titleId"] {
                    H.void(.input, [.type: "hidden", .name: "titleId", .value: titleID])
                    H.el(.p, [.class: "chosen-book"]) { EscapedText(t(.bookField) + ": " + (values["titleName"] ?? "")) }
                    if let error = form.errors["book"] { H.el(.p, [.class: "field-error", .role: "alert"]) { EscapedText(error) } }
                } else {
                    H.field(t(.bookField), name: "book", value: values["book"], hint: t(.bookHint), required: true, error: form.errors["book"],
                            extra: [.autocomplete: "off", .dataScanTarget: ""])
                }
                H.el(.fieldset, [.class: "quick-picks"]) {
                    H.el(.legend, [:]) { EscapedText(t(.dueDate)) }
                    for days in Array(Set([7, 14, 21, 30, defaultDays])).sorted() {
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "radio", .name: "days", .value: String(days), .checked: days == chosen && values["dueDate"] == nil ? "" : nil])
                            EscapedText(" " + t(.days, days))
                        }
                    }
                    H.field(t(.orChooseADay), name: "dueDate", type: "date", value: values["dueDate"], error: form.errors["dueDate"])
                }
                H.button(t(.checkOut))
            }
            // No Wi-Fi in the hall: the page that lends from the phone's copy of the library.
            H.el(.p, [.class: "hint"]) { H.link(t(.offlineLendingTitle), WebRoute.offlineLending(library: lib).path) }
        }
    }

    static func chooser(_ matches: [TitleSummary], values: [String: String], lib: UUID, page: PageContext) -> any Component {
        let t = page.t
        return ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.chooseBook)) }
            H.el(.ul, [.class: "titles"]) {
                for item in matches {
                    H.el(.li, [.class: "title-row"]) {
                        Components.cover(item.coverUrl, title: item.title, t: t)
                        H.el(.span, [.class: "meta"]) {
                            H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                            H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) }
                        }
                        Components.badge(item.availability, overdue: item.overdue, t: t)
                        H.form(WebRoute.checkout(library: lib).path, csrf: page.csrf, attrs: [.class: "inline"]) {
                            for (name, value) in [("card", values["card"]), ("days", values["days"]), ("dueDate", values["dueDate"]), ("titleId", item.id.uuidString)] {
                                if let value { H.void(.input, [.type: "hidden", .name: name, .value: value]) }
                            }
                            H.button(t(.checkOut), kind: "quiet", attrs: [.ariaLabel: t(.checkOut) + ": " + item.title,
                                                                          .disabled: item.availability.available == 0 ? "" : nil])
                        }
                    }
                }
            }
        }
    }

    static func confirmation(_ c: Confirmation, lib: UUID, page: PageContext) -> any Component {
        let t = page.t
        return ComponentGroup {
            H.el(.h1, [:]) { EscapedText(t(.checkOutTitle)) }
            H.el(.section, [.class: "card confirm"]) {
                Components.cover(c.coverURL, title: c.titleName, t: t, size: "large")
                H.el(.dl, [.class: "facts"]) {
                    Components.fact(t(.bookField), c.titleName)
                    Components.fact(t(.member), c.memberName + " (" + c.cardID + ")")
                    Components.fact(t(.dueDate), t.date(c.due))
                    Components.fact(t(.handOver), c.handOver)
                }
                if let heldFor = c.heldFor { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(heldFor) } }
                if c.collectsHold { H.el(.p, [.class: "note"]) { EscapedText(t(.lendCollectsHold)) } }
                if c.waiting > 0 { H.el(.p, [.class: "note"]) { EscapedText(t.format(.lendWaitingNote, t.number(c.waiting))) } }
                H.form(WebRoute.checkoutConfirm(library: lib).path, csrf: page.csrf) {
                    H.void(.input, [.type: "hidden", .name: "memberId", .value: c.input.memberId?.uuidString])
                    H.void(.input, [.type: "hidden", .name: "titleId", .value: c.input.titleId?.uuidString])
                    H.void(.input, [.type: "hidden", .name: "isbn", .value: c.input.isbn])
                    H.void(.input, [.type: "hidden", .name: "copyBarcode", .value: c.input.copyBarcode])
                    H.void(.input, [.type: "hidden", .name: "days", .value: c.input.days.map(String.init)])
                    H.void(.input, [.type: "hidden", .name: "dueDate", .value: c.dueDateText])
                    if c.input.lendHeld == true { H.void(.input, [.type: "hidden", .name: "lendHeld", .value: "true"]) }
                    H.button(c.input.lendHeld == true ? t(.lendAnyway) : t(.confirmCheckout), attrs: [.autofocus: ""])
                }
            }
        }
    }
}
