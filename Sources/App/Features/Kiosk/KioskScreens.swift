import Foundation
import Plot
import ShelfmarkCore

/// Starting a self-service kiosk: what it does, and the button that makes this device one.
struct KioskSetupPage: Sendable {
    var libraryID: UUID
    /// The library's kiosks: each can be ended from here (a tablet lost, given away or broken).
    var kiosks: [Kiosks.Listed] = []

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.kioskTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.kioskTitle)) }
            H.el(.p, [:]) { EscapedText(t(.kioskSetupIntro)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.kioskSignsOut)) }
            H.form(WebRoute.kioskSetup(library: libraryID).path, csrf: page.csrf) { H.button(t(.kioskStart)) }
            H.el(.h2, [.id: "kiosks"]) { EscapedText(t(.kioskListHeading)) }
            if kiosks.isEmpty {
                H.el(.p, [.class: "hint"]) { EscapedText(t(.kioskListEmpty)) }
            } else {
                H.el(.ul, [.class: "plain-list kiosk-list"]) {
                    for kiosk in kiosks {
                        H.el(.li, [:]) {
                            H.el(.span, [.class: "name"]) { EscapedText(t.format(.kioskListItem, kiosk.started_by, t.date(kiosk.created_at))) }
                            H.el(.span, [.class: "hint"]) { EscapedText(t.format(.kioskLastUsed, t.dateTime(kiosk.last_used_at ?? kiosk.created_at))) }
                            H.form(WebRoute.kioskSetup(library: libraryID).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                H.void(.input, [.type: "hidden", .name: "end", .value: kiosk.id.uuidString])
                                H.button(t(.kioskEndThis), kind: "secondary")
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A kiosk page opened on a device that is not a kiosk.
struct KioskNotHerePage: Sendable {
    var libraryID: UUID

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.kioskTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.kioskTitle)) }
            H.el(.p, [:]) { EscapedText(t(.kioskNotHere)) }
            H.link(t(.signIn), WebRoute.login.path(query: [("next", WebRoute.kioskSetup(library: libraryID).path)]), cls: "button primary")
        }
    }
}

/// The kiosk's start screen: scan your card.
struct KioskStartPage: Sendable {
    var kiosk: Kiosks.Kiosk
    var error: String?

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.kioskTitle)) {
            H.el(.div, [.class: "kiosk"]) {
                H.el(.h1, [:]) { EscapedText(t.format(.kioskWelcome, kiosk.name)) }
                H.el(.p, [.class: "lead"]) { EscapedText(t(.kioskScanCard)) }
                H.form(WebRoute.kiosk(library: kiosk.libraryID).path, csrf: page.csrf, attrs: [.class: "kiosk-scan"]) {
                    H.field(t(.portalCardField), name: "card", error: kiosk.asksPIN ? nil : error,
                            extra: [.autofocus: "", .autocomplete: "off", .autocapitalize: "characters"])
                    if kiosk.asksPIN {
                        H.field(t(.portalPinField), name: "pin", type: "password", required: true, error: error,
                                extra: [.autocomplete: "off", .inputmode: "numeric"])
                    }
                    H.button(t(.kioskGo))
                }
            }
            H.el(.p, [.class: "kiosk-end"]) { H.link(t(.kioskEndLink), WebRoute.kioskEnd(library: kiosk.libraryID).path) }
        }
    }
}

/// A member's turn at the kiosk: scan books (one they have goes back, one from the shelf is lent),
/// their books with due dates, "I'm done". In the member's language; back to the start by itself.
struct KioskMemberPage: Sendable {
    var kiosk: Kiosks.Kiosk
    var member: Kiosks.Member
    var loans: [LoanDTO]

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = kiosk.libraryID
        return Layout.page(page, title: t(.kioskTitle)) {
            H.el(.div, [.class: "kiosk"]) {
                H.el(.h1, [:]) { EscapedText(t.format(.kioskHello, member.firstName.isEmpty ? member.name : member.firstName)) }
                H.form(WebRoute.kioskMember(library: lib).path, csrf: page.csrf, attrs: [.class: "kiosk-scan"]) {
                    H.field(t(.kioskBookField), name: "barcode", hint: t(.kioskScanHint),
                            extra: [.autofocus: "", .autocomplete: "off", .autocapitalize: "characters"])
                    H.button(t(.kioskBorrowOrReturn))
                }
                H.el(.section, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.portalYourLoans)) }
                    if loans.isEmpty {
                        H.el(.p, [.class: "empty"]) { EscapedText(t(.portalNoLoans)) }
                    } else {
                        H.el(.ul, [.class: "loans"]) {
                            for loan in loans {
                                H.el(.li, [.class: loan.overdue ? "overdue" : nil]) {
                                    H.el(.span, [:]) { EscapedText(loan.title) }
                                    H.el(.span, [.class: "due"]) {
                                        EscapedText(loan.overdue ? t(.daysOverdue, loan.daysOverdue) : t.format(.dueOn, t.date(loan.dueAt)))
                                    }
                                }
                            }
                        }
                    }
                }
                H.el(.p, [:]) { H.link(t(.kioskDone), WebRoute.kiosk(library: lib).path, cls: "button primary") }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.kioskIdleHint)) }
            }
        }
    }
}

/// Ending kiosk mode: a librarian's username and password.
struct KioskEndPage: Sendable {
    var kiosk: Kiosks.Kiosk
    var form: FormState

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.kioskEndLink)) {
            H.el(.h1, [:]) { EscapedText(t(.kioskEndLink)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.kioskEndIntro)) }
            H.form(WebRoute.kioskEnd(library: kiosk.libraryID).path, csrf: page.csrf, attrs: [.class: "stack"]) {
                H.field(t(.username), name: "username", value: form["username"], required: true, extra: [.autocomplete: "username"])
                H.field(t(.password), name: "password", type: "password", required: true, error: form.errors["password"],
                        extra: [.autocomplete: "current-password"])
                H.button(t(.kioskEndLink), kind: "danger")
            }
            H.el(.p, [:]) { H.link(t(.kioskBack), WebRoute.kiosk(library: kiosk.libraryID).path, cls: "button quiet") }
        }
    }
}
