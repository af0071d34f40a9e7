import Foundation
import Plot

extension EditMemberPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let form = form
        return Layout.page(page, title: t(.editMember)) {
            H.el(.h1, [:]) { EscapedText(t(.editMember)) }
            H.form(WebRoute.editMember(library: libraryID, member: memberID).path, csrf: page.csrf, attrs: [.class: "card"]) {
                if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.cardID), name: "cardId", value: form["cardId"], required: true, error: form.errors["cardId"])
                H.field(t(.firstName), name: "firstName", value: form["firstName"], required: true, error: form.errors["firstName"])
                H.field(t(.lastName), name: "lastName", value: form["lastName"], error: form.errors["lastName"])
                H.field(t(.grade), name: "grade", value: form["grade"], error: form.errors["grade"])
                H.field(t(.email), name: "email", type: "email", value: form["email"], error: form.errors["email"])
                H.el(.div, [.class: form.errors["language"] == nil ? "field" : "field invalid"]) {
                    H.el(.label, [.for: "f-language"]) { EscapedText(t(.memberLanguageField)) }
                    H.el(.select, [.id: "f-language", .name: "language"]) {
                        H.el(.option, [.value: "", .selected: (form["language"] ?? "").isEmpty ? "" : nil]) { EscapedText(t(.memberLanguageLibrary)) }
                        for lang in page.languages {
                            H.el(.option, [.value: lang.rawValue, .selected: form["language"] == lang.rawValue ? "" : nil, .lang: lang.rawValue]) {
                                EscapedText(lang.nativeName)
                            }
                        }
                    }
                    if let error = form.errors["language"] { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
                }
                H.textarea(t(.memberNotes), name: "notes", value: form["notes"], error: form.errors["notes"])
                // The public catalog's PIN: typed, never shown; set or removed with the rest.
                H.field(t(.memberPinField), name: "pin", type: "password", hint: hasPIN ? t(.memberPinSet) + " · " + t(.memberPinHint) : t(.memberPinHint),
                        error: form.errors["pin"], extra: [.autocomplete: "new-password", .inputmode: "numeric"])
                if hasPIN {
                    H.el(.div, [.class: "field"]) {
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "checkbox", .name: "removePin", .value: "true"])
                            EscapedText(" " + t(.memberPinRemove))
                        }
                    }
                }
                H.button(t(.save))
            }
            H.el(.section, [.class: "danger"]) {
                H.form(WebRoute.deleteMember(library: libraryID, member: memberID).path, csrf: page.csrf) {
                    if loansOut > 0 {
                        H.el(.p, [.class: "warning"]) { EscapedText(t(.loansOut, loansOut)) }
                    }
                    // Without JavaScript the librarian confirms with this box.
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "confirm", .value: "true", .required: ""])
                        EscapedText(" " + t.format(.deleteMemberConfirm, name))
                    }
                    H.button(t(.deleteMember), kind: "danger")
                }
            }
        }
    }
}
