import Foundation
import Plot

extension SignInPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        var page = page
        if let error { (page.flash, page.flashIsError) = (error, true) }
        let (username, next) = (username, next)
        return Layout.page(page, title: t(.signInTitle)) {
            H.el(.section, [.class: "card narrow"]) {
                H.el(.h1, [:]) { EscapedText(t(.signInTitle)) }
                H.el(.p, [:]) { EscapedText(t(.signInIntro)) }
                if let school = self.school {
                    H.el(.p, [.class: "actions"]) {
                        H.link(t.format(.schoolSignInWith, school), WebRoute.schoolSignIn.path(query: [("next", next)]), cls: "button primary")
                    }
                }
                H.form(WebRoute.login.path(query: [("next", next)]), csrf: page.csrf) {
                    H.field(t(.username), name: "username", value: username, required: true, extra: [.autocomplete: "username", .autocapitalize: "none"])
                    H.field(t(.password), name: "password", type: "password", required: true, extra: [.autocomplete: "current-password"])
                    H.button(t(.signIn), kind: school == nil ? "primary" : "quiet")
                }
            }
        }
    }
}
