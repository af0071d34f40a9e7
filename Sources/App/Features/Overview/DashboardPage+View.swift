import Foundation
import Plot

extension DashboardPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, d) = (libraryID, dashboard)
        return Layout.page(page, title: t(.dashboard)) {
            H.el(.h1, [:]) { EscapedText(t(.dashboard)) }
            if diskFull {
                H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(t(.diskFullBanner)) }
            }
            if failedMessages > 0 {
                H.el(.p, [.class: "flash error", .role: "alert"]) {
                    H.link(t.format(.mailFailedBanner, t.number(failedMessages)), WebRoute.mailLog(library: lib).path(query: [("failed", "1")]))
                }
            }
            if let backups {
                for warning in backups.warnings {
                    H.el(.p, [.class: "flash error", .role: "alert"]) { H.link(BackupsPage.warning(warning, t), WebRoute.backups(library: lib).path) }
                }
            }
            H.el(.ul, [.class: "stats"]) {
                Self.stat(t(.titlesStat), d.titles, WebRoute.catalog(library: lib).path, t)
                Self.stat(t(.copiesStat), d.copies, WebRoute.catalog(library: lib).path, t)
                Self.stat(t(.onLoanStat), d.onLoan, WebRoute.loans(library: lib).path, t)
                Self.stat(t(.overdueStat), d.overdue, WebRoute.loans(library: lib).path(query: [("show", "overdue")]), t, alarm: d.overdue > 0)
                Self.stat(t(.membersStat), d.members, WebRoute.members(library: lib).path, t)
                Self.stat(t(.wishlistStat), d.wishlist, WebRoute.wishlist(library: lib).path, t)
            }
            if mayReport {
                // Titles and copies are counted by the collection report, loans by circulation, members by readers.
                H.el(.p, [.class: "hint report-links"]) {
                    EscapedText(t(.reportsBehind) + " ")
                    H.link(t(.reportCollection), WebRoute.report(library: lib, kind: .collection).path)
                    EscapedText(" · ")
                    H.link(t(.reportCirculation), WebRoute.report(library: lib, kind: .circulation).path)
                    EscapedText(" · ")
                    H.link(t(.reportReaders), WebRoute.report(library: lib, kind: .readers).path)
                }
            }
            if let backups, backups.warnings.isEmpty, let last = backups.lastGood {
                H.el(.p, [.class: "hint"]) { H.link(t.format(.backupLastGood, t.dateTime(last)), WebRoute.backups(library: lib).path) }
            }
            if !overdueGroups.isEmpty {
                OverdueGlanceView.render(overdueGroups, lib: lib, t: t, csrf: mayRemind ? page.csrf : nil, back: WebRoute.dashboard(library: lib).path,
                                        withoutEmail: withoutEmail)
            }
            if !d.lastAdded.isEmpty {
                H.el(.h2, [:]) { EscapedText(t(.lastAdded)) }
                H.el(.ul, [.class: "titles"]) {
                    for item in d.lastAdded { Components.titleRow(item, lib: lib, t: t) }
                }
            }
            H.el(.h2, [:]) { EscapedText(t(.recentActivity)) }
            ActivityPage.list(d.recentActivity, lib: lib, t: t)
            if let phone {
                H.el(.section, [.class: "card phone-access"]) {
                    H.el(.h2, [:]) { EscapedText(t(.phoneHeading)) }
                    H.void(.img, [.src: "data:image/svg+xml;base64," + Data(phone.qrSVG.utf8).base64EncodedString(), .alt: phone.url,
                                  .width: "176", .height: "176", .class: "qr"])
                    H.el(.p, [:]) { H.link(phone.url, phone.url) }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.phoneHelp)) }
                    H.el(.dl, [.class: "facts"]) {
                        Components.fact(t(.phoneFingerprint), phone.fingerprint)
                    }
                    if phone.offersAuthority {
                        H.el(.p, [:]) { H.link(t(.phoneCertificate), HTTPS.authorityPath, cls: "button quiet") }
                    }
                }
            }
        }
    }

    static func stat(_ label: String, _ n: Int, _ href: String, _ t: Strings, alarm: Bool = false) -> any Component {
        H.el(.li, [:]) {
            H.el(.a, [.href: href, .class: alarm ? "stat alarm" : "stat"]) {
                H.el(.strong, [:]) { EscapedText(t.number(n)) }
                H.el(.span, [:]) { EscapedText(label) }
            }
        }
    }
}
