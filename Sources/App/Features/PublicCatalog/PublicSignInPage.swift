import Foundation
import Plot
import ShelfmarkCore

/// A member signs in to the public catalog: card ID and PIN, or a one-time link by email
/// (offered when the library can send mail). Neither form says whether a card exists.
struct PublicSignInPage: Sendable {
    var library: MemberPortal.PublicLibrary
    var next: String?
    var form: FormState
    var linkSent: Bool
    /// The library can send sign-in links (`MemberPortal.canSendLinks`).
    var mailReady: Bool
    /// The school's sign-in provider's name, when members may sign in with their school account.
    var school: String? = nil
    /// The PIN is switched off: the school's account is the way in.
    var pinOff = false

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = library.id
        return Layout.page(page, title: t(.portalSignIn)) {
            H.el(.h1, [:]) { EscapedText(t(.portalSignIn)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t.format(.portalSignInIntro, library.name)) }
            if let school {
                H.el(.p, [.class: "actions"]) {
                    H.link(t.format(.schoolSignInWith, school), WebRoute.publicSchoolSignIn(library: lib).path(query: [("next", next)]), cls: "button primary")
                }
            }
            if pinOff, let refused = form.errors["pin"] {
                H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(refused) }
            }
            if !pinOff {
            H.form(WebRoute.publicSignIn(library: lib).path, csrf: page.csrf, attrs: [.class: "stack"]) {
                if let next { H.void(.input, [.type: "hidden", .name: "next", .value: next]) }
                H.field(t(.portalCardField), name: "cardId", value: form["cardId"], required: true,
                        extra: [.autocomplete: "username", .autocapitalize: "characters"])
                H.field(t(.portalPinField), name: "pin", type: "password", hint: t(.portalPinHint), required: true, error: form.errors["pin"],
                        extra: [.autocomplete: "current-password", .inputmode: "numeric"])
                H.button(t(.portalSignIn), kind: school == nil ? "primary" : "quiet")
            }
            }
            if mailReady {
                H.el(.section, [.class: "card"]) {
                    H.el(.h2, [:]) { EscapedText(t(.portalByEmail)) }
                    if linkSent {
                        H.el(.p, [.role: "status"]) { EscapedText(t(.portalLinkSent)) }
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.portalByEmailHint)) }
                    H.form(WebRoute.publicEmailLink(library: lib).path, csrf: page.csrf, attrs: [.class: "stack"]) {
                        H.field(t(.portalCardField), name: "cardId", id: "f-link-card", extra: [.autocapitalize: "characters"])
                        H.button(t(.portalSendLink), kind: "quiet")
                    }
                }
            }
        }
    }
}

/// The page an emailed link opens: a button that signs in (opening the link alone uses nothing up, so a
/// mail program that looks at links first does not spend it), or why it cannot be used.
struct PublicLinkPage: Sendable {
    var library: MemberPortal.PublicLibrary
    var token: String
    var live: Bool

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = library.id
        return Layout.page(page, title: t(.portalSignIn)) {
            H.el(.h1, [:]) { EscapedText(t(.portalSignIn)) }
            if live {
                H.el(.p, [:]) { EscapedText(t.format(.portalLinkReady, library.name)) }
                H.form(WebRoute.publicLink(library: lib, token: token).path, csrf: page.csrf) { H.button(t(.portalSignIn)) }
            } else {
                H.el(.p, [.role: "alert"]) { EscapedText(t(.errPortalLinkInvalid)) }
                H.link(t(.portalSignIn), WebRoute.publicSignIn(library: lib).path, cls: "button primary")
            }
        }
    }
}
