import Foundation
import Plot
import ShelfmarkCore

/// Overdue at a glance: one card per member with overdue loans, the most overdue first —
/// days overdue, the books, the last reminder — and one tap to remind them now.
enum OverdueGlanceView {
    static func render(_ groups: [OverdueMemberDTO], lib: UUID, t: Strings, csrf: String?, back: String, withoutEmail: Int) -> any Component {
        H.el(.section, [.class: "overdue-glance", .id: "overdue-by-member"]) {
            H.el(.h2, [:]) { EscapedText(t(.overdueByMember)) }
            if withoutEmail > 0, csrf != nil {
                H.el(.p, [:]) {
                    H.link(t.format(.printLetters, t.number(withoutEmail)), APILink.reminderLetters(library: lib).path, cls: "button secondary")
                }
            }
            H.el(.ul, [.class: "members overdue-members"]) {
                for group in groups {
                    H.el(.li, [.class: "overdue-member"]) {
                        H.el(.div, [.class: "member-row"]) {
                            H.el(.span, [.class: "name"]) { H.link(group.name, WebRoute.member(library: lib, member: group.memberId).path) }
                            H.el(.span, [.class: "badge out"]) { EscapedText(t(.daysOverdue, group.daysOverdue)) }
                        }
                        H.el(.span, [.class: "card-id"]) { EscapedText(group.cardId + " · " + group.loans.map(\.title).joined(separator: ", ")) }
                        H.el(.span, [.class: "hint"]) { EscapedText(group.lastReminder.map { t.format(.lastReminder, t.dateTime($0)) } ?? t(.noReminderYet)) }
                        if let csrf, group.hasEmail {
                            H.form(WebRoute.memberRemind(library: lib, member: group.memberId).path, csrf: csrf, attrs: [.class: "inline-form"]) {
                                H.void(.input, [.type: "hidden", .name: "back", .value: back])
                                H.button(t(.remindNow), kind: "secondary", attrs: [.ariaLabel: t(.remindNow) + ": " + group.name])
                            }
                        }
                    }
                }
            }
        }
    }
}
