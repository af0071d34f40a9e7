import Foundation
import Plot

extension SetupPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let form = form
        return Layout.page(page, title: t(.setupTitle)) {
            H.el(.section, [.class: "card narrow"]) {
                H.el(.h1, [:]) { EscapedText(t(.setupTitle)) }
                H.el(.p, [:]) { EscapedText(t(.setupIntro)) }
                H.form(WebRoute.setup.path, csrf: page.csrf) {
                    if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                    H.field(t(.libraryName), name: "libraryName", value: form["libraryName"], required: true, error: form.errors["libraryName"],
                            extra: [.autocomplete: "organization"])
                    H.field(t(.yourName), name: "displayName", value: form["displayName"], error: form.errors["displayName"], extra: [.autocomplete: "name"])
                    H.field(t(.username), name: "username", value: form["username"], required: true, error: form.errors["username"],
                            extra: [.autocomplete: "username", .autocapitalize: "none"])
                    H.field(t(.password), name: "password", type: "password", hint: t(.passwordHint), required: true, error: form.errors["password"],
                            extra: [.autocomplete: "new-password", .minlength: "8"])
                    H.button(t(.createLibrary))
                }
            }
        }
    }
}
