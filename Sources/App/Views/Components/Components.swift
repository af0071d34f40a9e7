import Foundation
import Plot
import ShelfmarkCore

/// The parts pages share, in one place: filter chips, the availability badge, covers, a title's row
/// and tile in lists, a fact in a definition list. Each escapes what it writes through `H`.
enum Components {
    static func chipLink(_ title: String, _ href: String, current: Bool) -> any Component {
        H.el(.a, [.href: href, .class: current ? "chip current" : "chip", .ariaCurrent: current ? "true" : nil]) { EscapedText(title) }
    }

    /// A camera drawn inline (an emoji camera showed as an empty box where the phone or browser has
    /// no emoji font), for the buttons that open the scanner.
    static func cameraIcon() -> any Component {
        H.el(.svg, [.class: "inline-icon", .viewBox: "0 0 24 24", .fill: "currentColor", .focusable: "false", .ariaHidden: "true"]) {
            H.void(.path, [.d: "M12 15.2a3.2 3.2 0 1 0 0-6.4 3.2 3.2 0 0 0 0 6.4zM9 2 7.17 4H4c-1.1 0-2 .9-2 2v12c0 1.1.9 2 2 2h16c1.1 0 2-.9 2-2V6c0-1.1-.9-2-2-2h-3.17L15 2H9zm3 15a5 5 0 1 1 0-10 5 5 0 0 1 0 10z"])
        }
    }

    /// Under a scanner section's buttons: the live view, a button to stop the camera, where
    /// the scan says what it found, and what to do when the page is not secure (the script shows it).
    static func liveScan(_ t: Strings) -> any Component {
        ComponentGroup {
            H.el(.video, [.class: "viewfinder", .playsinline: "", .muted: "", .hidden: ""]) {}
            H.el(.button, [.type: "button", .class: "button quiet", .dataScanStop: "", .hidden: ""]) { EscapedText(t(.stopCamera)) }
            H.el(.button, [.type: "button", .class: "button quiet", .dataNfcRead: "", .dataNfcHold: t(.nfcHold), .dataNfcFailed: t(.nfcFailed), .hidden: ""]) {
                EscapedText(t(.nfcRead))
            }
            H.el(.p, [.class: "scan-warning", .dataScanInsecure: "", .hidden: ""]) { EscapedText(t(.cameraNeedsSecure)) }
            H.el(.p, [.class: "scan-status", .dataScanStatus: "", .dataNothing: t(.noCodeInPhoto), .ariaLive: "polite"]) {}
        }
    }

    /// At the desk: the list this book or member was chosen from, shown beside it by the script
    /// on wide screens (the list's last address, kept by its page, else `path`). The page's own URL still
    /// names the selection; phones never fetch the list.
    static func listBeside(_ path: String, kind: String, label: String) -> any Component {
        H.el(.div, [.dataListBeside: path, .dataListKind: kind, .ariaLabel: label, .hidden: ""]) {}
    }

    /// Web NFC, where the browser has it (Chrome on Android; the script shows the button): writes the
    /// page's link (touching the sticker opens it) and `shelfmark:member:<card>` or `shelfmark:copy:<barcode>`
    /// (what Lend and Return read into their fields) to a sticker.
    static func nfcWrite(path: String, code: String, t: Strings) -> any Component {
        H.el(.p, [.class: "nfc"]) {
            H.el(.button, [.type: "button", .class: "button quiet", .dataNfcWrite: path, .dataNfcCode: code, .dataNfcHold: t(.nfcHold),
                           .dataNfcWritten: t(.nfcWritten), .dataNfcFailed: t(.nfcFailed), .hidden: ""]) { EscapedText(t(.nfcWrite)) }
            H.el(.span, [.class: "hint", .dataNfcStatus: "", .ariaLive: "polite"]) {}
        }
    }

    static func badge(_ a: Availability, overdue: Bool, t: Strings) -> any Component {
        let cls = a.total == 0 ? "badge none" : (a.available > 0 ? "badge ok" : "badge out")
        let label = a.total == 0 ? t(.allOut) : t.format(.badgeLabel, t.number(a.available), t.number(a.total))
        return H.el(.span, [.class: overdue ? cls + " overdue" : cls, .title: label, .ariaLabel: label]) {
            EscapedText("\(t.number(a.available))/\(t.number(a.total))")
        }
    }

    /// A star control for a rating from ½ to 5: ten radio buttons, each half a star, 44 px
    /// tall; the chosen one and those before it lit. Works without JavaScript; arrow keys move it.
    static func stars(name: String, value: Double?, label: String, error: String?, t: Strings) -> any Component {
        let chosen = value.map { ($0 * 2).rounded() / 2 }
        return H.el(.fieldset, [.class: error == nil ? "stars" : "stars invalid"]) {
            H.el(.legend, [:]) { EscapedText(label) }
            H.el(.div, [.class: "star-row"]) {
                for step in stride(from: 10, through: 1, by: -1) {
                    let v = Double(step) / 2
                    let id = "f-\(name)-\(step)"
                    H.void(.input, [.type: "radio", .id: id, .name: name, .value: v == v.rounded() ? String(Int(v)) : String(v),
                                    .checked: chosen == v ? "" : nil])
                    H.el(.label, [.for: id, .class: step % 2 == 0 ? "half right" : "half left", .title: t.format(.starsOutOfFive, t.stars(v))]) {
                        H.el(.span, [.ariaHidden: "true"]) { EscapedText("★") }
                        H.el(.span, [.class: "sr-only"]) { EscapedText(t.format(.starsOutOfFive, t.stars(v))) }
                    }
                }
            }
            if let error { H.el(.p, [.class: "field-error"]) { EscapedText(error) } }
        }
    }

    static func cover(_ url: String?, title: String, t: Strings, size: String = "thumb") -> any Component {
        if let url, !url.isEmpty {
            return H.void(.img, [.class: "cover " + size, .src: url, .alt: t.format(.coverOf, title), .loading: "lazy"])
        }
        return H.el(.span, [.class: "cover placeholder " + size, .ariaHidden: "true"]) { EscapedText(String(title.prefix(1)).uppercased()) }
    }

    static func titleRow(_ item: TitleSummary, lib: UUID, t: Strings) -> any Component {
        H.el(.li, [:]) {
            H.el(.a, [.class: "title-row", .href: WebRoute.title(library: lib, title: item.id).path]) {
                cover(item.coverUrl, title: item.title, t: t)
                H.el(.span, [.class: "meta"]) {
                    H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                    if !item.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) } }
                    if let shelf = item.shelves.first {
                        H.el(.span, [.class: "shelf"]) { EscapedText(t.format(.shelfHeading, shelf) + (item.shelves.count > 1 ? " …" : "")) }
                    }
                    if let callNumber = item.callNumber { H.el(.span, [.class: "call-number"]) { EscapedText(callNumber) } }
                }
                if item.favorite { H.el(.span, [.class: "heart", .ariaLabel: t(.filterFavorites)]) { EscapedText("♥") } }
                badge(item.availability, overdue: item.overdue, t: t)
            }
        }
    }

    static func wallItem(_ item: TitleSummary, lib: UUID, t: Strings) -> any Component {
        H.el(.a, [.class: "wall-item", .href: WebRoute.title(library: lib, title: item.id).path]) {
            cover(item.coverUrl, title: item.title, t: t, size: "large")
            H.el(.span, [.class: "name"]) { EscapedText(item.title) }
            badge(item.availability, overdue: item.overdue, t: t)
        }
    }

    // MARK: - Detail

    /// A book's facts (ISBN, publisher, date, pages, language, categories, series — a link made by
    /// `seriesLink` —, reading level): the staff's book page and the public catalog's.
    static func bookFacts(_ d: TitleDetail, t: Strings, seriesLink: @escaping (String) -> String) -> any Component {
        H.el(.dl, [.class: "facts"]) {
            fact(t(.callNumberField), d.callNumber)
            fact(t(.isbn), d.isbnHyphenated)
            fact(t(.publisher), d.publisher)
            fact(t(.published), d.publishedDate)
            fact(t(.pages), d.pageCount.map { t.number($0) })
            fact(t(.languageField), d.language.map { Locale(identifier: t.lang.rawValue).localizedString(forLanguageCode: $0) ?? $0 })
            fact(t(.categories), d.categories.isEmpty ? nil : d.categories.map(\.name).joined(separator: ", "))
            if let series = d.series, !series.isEmpty {
                H.el(.dt, [:]) { EscapedText(t(.seriesField)) }
                H.el(.dd, [:]) {
                    H.link(series + (d.seriesNumber.map { " · " + t.format(.seriesVolume, $0) } ?? ""), seriesLink(series))
                    for more in d.moreSeries {
                        H.el(.span, [.class: "series-more"]) {
                            H.link(more.name + (more.number.map { " · " + t.format(.seriesVolume, $0) } ?? ""), seriesLink(more.name))
                        }
                    }
                }
            }
            fact(t(.readingLevelField), d.readingLevel)
        }
    }

    static func fact(_ label: String, _ value: String?) -> any Component {
        guard let value, !value.isEmpty else { return EmptyComponent() }
        return ComponentGroup {
            H.el(.dt, [:]) { EscapedText(label) }
            H.el(.dd, [:]) { EscapedText(value) }
        }
    }

    /// Loans as a list: the title (a link), the member when asked, due or overdue, and a button to
    /// return each (the same confirmation as scanning its barcode).
    /// What each loan of a list offers: its own Return and Renew, coming back to `back` (the page the
    /// list is on); Renew only while the library's renewal limit allows.
    struct LoanActions: Sendable {
        var back: String
        var csrf: String
        var maxRenewals: Int
    }

    static func loanList(_ loans: [LoanDTO], lib: UUID, t: Strings, showTitle: Bool = true, showMember: Bool = false,
                         actions: LoanActions? = nil) -> any Component {
        guard !loans.isEmpty else { return H.el(.p, [.class: "empty"]) { EscapedText(t(.noLoans)) } }
        return H.el(.ul, [.class: "loans"]) {
            for loan in loans {
                H.el(.li, [.class: loan.overdue ? "overdue" : nil]) {
                    H.el(.span, [:]) {
                        if showTitle {
                            if let id = loan.titleId { H.link(loan.title, WebRoute.title(library: lib, title: id).path) } else { EscapedText(loan.title) }
                        }
                        if showMember {
                            H.el(.span, [.class: "who"]) {
                                EscapedText((showTitle ? " · " : "") + "\(loan.memberName) (\(loan.memberCardId))")
                            }
                        }
                        if let barcode = loan.copyBarcode { H.el(.span, [.class: "who"]) { EscapedText(" · " + barcode) } }
                    }
                    H.el(.span, [.class: "due"]) {
                        EscapedText(loan.overdue ? t(.daysOverdue, loan.daysOverdue) : t.format(.dueOn, t.date(loan.dueAt)))
                    }
                    if let actions {
                        // One form: Return posts to its action, Renew to its own (formaction), so the token
                        // and the way back are written once per loan.
                        H.form(WebRoute.loanReturn(library: lib, loan: loan.id).path, csrf: actions.csrf, attrs: [.class: "inline loan-actions"]) {
                            H.void(.input, [.type: "hidden", .name: "back", .value: actions.back])
                            H.button(t(.returnBook), kind: "quiet", attrs: [.ariaLabel: t(.returnBook) + ": " + loan.title])
                            if loan.renewals < actions.maxRenewals {
                                H.button(t(.renew), kind: "quiet", attrs: [.ariaLabel: t(.renew) + ": " + loan.title,
                                                                           .formaction: WebRoute.loanRenew(library: lib, loan: loan.id).path])
                            } else {
                                H.el(.span, [.class: "hint"]) { EscapedText(t.format(.renewalsUsed, t.number(loan.renewals), t.number(actions.maxRenewals))) }
                            }
                        }
                    }
                }
            }
        }
    }
}
