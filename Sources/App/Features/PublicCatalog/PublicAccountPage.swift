import Foundation
import Plot
import ShelfmarkCore

/// A signed-in member's own page in the public catalog: their loans with due dates (overdue
/// in red) and Renew, their holds with their place in the queue (or "ready until …") and Cancel, their
/// calendar link, and Sign out.
struct PublicAccountPage: Sendable {
    var library: MemberPortal.PublicLibrary
    var member: MemberPortal.SignedIn
    var account: MemberPortal.Account
    var newCalendar: CalendarLink?

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = library.id
        return Layout.page(page, title: t(.portalMyAccount)) {
            H.el(.h1, [:]) { EscapedText(t.format(.portalHello, member.firstName.isEmpty ? member.name : member.firstName)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t.format(.portalCardLine, member.cardID, library.name)) }
            H.el(.section, [.id: "loans"]) {
                H.el(.h2, [:]) { EscapedText(t(.portalYourLoans)) }
                if account.loans.isEmpty {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.portalNoLoans)) }
                } else {
                    H.el(.ul, [.class: "loans"]) {
                        for loan in account.loans {
                            H.el(.li, [.class: loan.overdue ? "overdue" : nil]) {
                                H.el(.span, [:]) {
                                    if let id = loan.titleId { H.link(loan.title, WebRoute.publicTitle(library: lib, title: id).path) } else { EscapedText(loan.title) }
                                }
                                H.el(.span, [.class: "due"]) {
                                    EscapedText(loan.overdue ? t(.daysOverdue, loan.daysOverdue) + " · " + t.format(.dueOn, t.date(loan.dueAt))
                                                             : t.format(.dueOn, t.date(loan.dueAt)))
                                }
                                if loan.renewals < account.maxRenewals {
                                    H.form(WebRoute.publicRenew(library: lib, loan: loan.id).path, csrf: page.csrf, attrs: [.class: "inline loan-actions"]) {
                                        H.button(t(.renew), kind: "quiet", attrs: [.ariaLabel: t(.renew) + ": " + loan.title])
                                    }
                                } else {
                                    H.el(.span, [.class: "hint"]) { EscapedText(t.format(.renewalsUsed, t.number(loan.renewals), t.number(account.maxRenewals))) }
                                }
                            }
                        }
                    }
                }
            }
            H.el(.section, [.id: "holds"]) {
                H.el(.h2, [:]) { EscapedText(t(.portalYourHolds)) }
                if account.holds.isEmpty {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.portalNoHolds)) }
                } else {
                    H.el(.ul, [.class: "loans"]) {
                        for hold in account.holds {
                            H.el(.li, [:]) {
                                H.el(.span, [:]) { H.link(hold.title, WebRoute.publicTitle(library: lib, title: hold.titleId).path) }
                                H.el(.span, [.class: "due"]) {
                                    EscapedText(hold.state == .ready ? t.format(.portalYourHoldReady, hold.pickupBy.map { t.date($0) } ?? "")
                                                                     : t.format(.portalYourPlace, t.number(hold.position ?? 1)))
                                }
                                H.form(WebRoute.publicHoldCancel(library: lib, hold: hold.id).path, csrf: page.csrf, attrs: [.class: "inline loan-actions"]) {
                                    H.button(t(.portalCancelHold), kind: "quiet", attrs: [.ariaLabel: t(.portalCancelHold) + ": " + hold.title])
                                }
                            }
                        }
                    }
                }
                H.el(.p, [:]) { H.link(t(.portalFindBooks), WebRoute.publicCatalog(library: lib).path, cls: "button quiet") }
            }
            CalendarCard(since: account.calendarSince, new: newCalendar, action: .publicCalendar(library: lib), hint: .portalCalendarHint).render(page)
            H.form(WebRoute.publicSignOut(library: lib).path, csrf: page.csrf, attrs: [.class: "inline"]) { H.button(t(.signOut), kind: "quiet") }
        }
    }
}
