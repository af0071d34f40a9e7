import Foundation
import Plot
import ShelfmarkCore

extension Components {
    /// Holds as a list: who waits or has a book put aside, until when, and — for staff who
    /// lend — the buttons that move, suspend, resume or cancel each. `showTitle`: the member's page and
    /// the hold shelf name the book; `showMember`: the title's queue and the shelf name the member.
    static func holdList(_ holds: [HoldDTO], lib: UUID, t: Strings, csrf: String?, back: String, showTitle: Bool, showMember: Bool) -> any Component {
        H.el(.ol, [.class: "holds"]) {
            for (index, hold) in holds.enumerated() {
                H.el(.li, [.class: hold.state == .ready ? "hold ready" : (hold.suspended ? "hold suspended" : "hold")]) {
                    H.el(.div, [.class: "hold-head"]) {
                        if let position = hold.position, !showTitle { H.el(.span, [.class: "position"]) { EscapedText(t.number(position) + ".") } }
                        if showTitle { H.el(.a, [.href: WebRoute.title(library: lib, title: hold.titleId).path, .class: "title"]) { EscapedText(hold.title) } }
                        if showMember {
                            H.el(.a, [.href: WebRoute.member(library: lib, member: hold.memberId).path]) { EscapedText(hold.memberName + " (" + hold.cardId + ")") }
                        }
                    }
                    H.el(.p, [.class: "hold-state"]) { EscapedText(stateText(hold, t: t)) }
                    if let csrf {
                        H.el(.div, [.class: "hold-actions"]) {
                            if showMember, hold.state == .waiting || hold.state == .ready {
                                if index > 0 { holdButton(.holdUpdate(library: lib, hold: hold.id), csrf: csrf, back: back, field: ("move", "up"), label: "↑",
                                                          aria: t.format(.holdMoveUp, hold.memberName)) }
                                if index < holds.count - 1 { holdButton(.holdUpdate(library: lib, hold: hold.id), csrf: csrf, back: back, field: ("move", "down"),
                                                                        label: "↓", aria: t.format(.holdMoveDown, hold.memberName)) }
                            }
                            holdButton(.holdUpdate(library: lib, hold: hold.id), csrf: csrf, back: back, field: ("suspended", hold.suspended ? "false" : "true"),
                                       label: hold.suspended ? t(.holdResume) : t(.holdSuspend), aria: nil)
                            holdButton(.holdCancel(library: lib, hold: hold.id), csrf: csrf, back: back, field: nil, label: t(.holdCancel), aria: nil,
                                       kind: "danger small")
                        }
                    }
                }
            }
        }
    }

    /// "Waiting since 3 Dec", "Put aside (copy 0001), collect by 12 Dec", "Suspended".
    static func stateText(_ hold: HoldDTO, t: Strings) -> String {
        if hold.state == .ready, let by = hold.pickupBy {
            return t.format(.holdReadyUntil, hold.copyBarcode ?? "", t.date(by))
        }
        return hold.suspended ? t(.holdSuspended) : t.format(.holdWaitingSince, t.date(hold.createdAt))
    }

    private static func holdButton(_ route: WebRoute, csrf: String, back: String, field: (String, String)?, label: String, aria: String?,
                                   kind: String = "quiet small") -> any Component {
        H.form(route.path, csrf: csrf, attrs: [.class: "inline"]) {
            H.void(.input, [.type: "hidden", .name: "back", .value: back])
            if let field { H.void(.input, [.type: "hidden", .name: field.0, .value: field.1]) }
            H.button(label, kind: kind, attrs: Attrs(aria.map { [(Attr.ariaLabel, $0)] } ?? []))
        }
    }
}
