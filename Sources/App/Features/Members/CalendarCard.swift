import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkImaging

/// A calendar link's card: on a member's page (their loans) and the loans page (the
/// staff's): make it, see it once with a QR code to scan with the phone, make a new one, stop it.
struct CalendarCard: Sendable {
    /// When the active link was made; nil when there is none.
    var since: Date?
    /// The link just made, shown this once.
    var new: CalendarLink?
    var action: WebRoute
    var hint: L

    func render(_ page: PageContext) -> any Component {
        let t = page.t
        return H.el(.section, [.id: "calendar", .class: "calendar-card"]) {
            H.el(.h2, [:]) { EscapedText(t(.calendarHeading)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(hint)) }
            if let new {
                H.field(t(.calendarLinkField), name: "calendar-link", value: new.url, id: "f-calendar-link", extra: [.readonly: ""])
                H.el(.p, [:]) { H.link(t(.calendarAdd), new.webcalUrl, cls: "button primary") }
                if let svg = try? BarcodeRenderer.render(.qr, new.webcalUrl, scale: 4).svg {
                    H.void(.img, [.src: "data:image/svg+xml;base64," + Data(svg.utf8).base64EncodedString(), .alt: t(.calendarQR),
                                   .class: "calendar-qr", .width: "200", .height: "200"])
                }
            } else if let since {
                H.el(.p, [:]) { EscapedText(t.format(.calendarSince, t.date(since))) }
            }
            H.el(.div, [.class: "actions"]) {
                H.form(action.path, csrf: page.csrf, attrs: [.class: "inline"]) {
                    H.button(since == nil ? t(.calendarMake) : t(.calendarRemake), kind: since == nil ? "primary" : "quiet")
                }
                if since != nil {
                    H.form(action.path, csrf: page.csrf, attrs: [.class: "inline"]) {
                        H.void(.input, [.type: "hidden", .name: "stop", .value: "1"])
                        H.button(t(.calendarStop), kind: "danger small")
                    }
                }
            }
        }
    }
}
