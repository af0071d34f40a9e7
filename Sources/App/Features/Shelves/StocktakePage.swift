import Foundation
import Plot
import ShelfmarkCore

/// A stocktake at one shelf: scan the books one after another (the field keeps the focus, as a
/// keyboard-wedge scanner needs); the page shows what belongs elsewhere (move it here, one or all),
/// what is recorded as on loan, what the catalog does not know, what is still to scan (missing, once
/// finished) and what was found.
struct StocktakePage: Sendable {
    var libraryID: UUID
    var report: StocktakeReport

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, report) = (libraryID, report)
        let s = report.stocktake
        let running = s.finishedAt == nil
        return Layout.page(page, title: t.format(.stocktakeTitle, s.shelfName)) {
            H.el(.h1, [:]) { EscapedText(t.format(.stocktakeTitle, s.shelfName)) }
            H.el(.p, [.class: "meta"]) {
                EscapedText(s.finishedAt.map { t.format(.stocktakeFinishedOn, t.date($0)) } ?? t.format(.stocktakeRunning, t.dateTime(s.startedAt)))
                EscapedText(" · ")
                H.link(t.format(.shelfHeading, s.shelfName), WebRoute.shelf(library: lib, shelf: s.shelfId).path)
            }
            H.el(.p, [.class: "count", .ariaLive: "polite"]) {
                EscapedText(running ? t.format(.stocktakeProgress, t.number(report.here.count), t.number(report.expected))
                            : t.format(.stocktakeResult, t.number(s.found), t.number(s.missing), t.number(s.misplaced), t.number(s.unknown)))
            }
            if running {
                H.el(.section, [.class: "card scan", .id: "scan", .dataScanner: ""]) {
                    H.el(.button, [.type: "button", .class: "button primary", .dataScanStart: "", .dataScanFor: "f-code", .dataScanKind: "any",
                                   .hidden: ""]) { Components.cameraIcon(); EscapedText(t(.scanBarcode)) }
                    Components.liveScan(t)
                    H.form(WebRoute.stocktakeScan(library: lib, stocktake: s.id).path, csrf: page.csrf) {
                        H.field(t(.stocktakeScanLabel), name: "code", hint: t(.stocktakeScanHint), required: true,
                                extra: [.autocomplete: "off", .autocapitalize: "characters", .dataScanTarget: "", .maxlength: "300", .autofocus: ""])
                        H.button(t(.stocktakeScanLabel), kind: "quiet")
                    }
                }
            }
            if !report.misplaced.isEmpty {
                H.el(.section, [.class: "card", .id: "misplaced"]) {
                    H.el(.h2, [:]) { EscapedText(t(.stocktakeMisplaced) + " (" + t.number(report.misplaced.count) + ")") }
                    H.el(.ul, [.class: "stock-list"]) {
                        for item in report.misplaced {
                            H.el(.li, [:]) {
                                StocktakePage.describe(item, lib: lib, t: t, place: true)
                                H.form(WebRoute.stocktakeMove(library: lib, stocktake: s.id).path, csrf: page.csrf) {
                                    H.void(.input, [.type: "hidden", .name: "copy", .value: item.copyId?.uuidString])
                                    H.button(t(.moveHere), kind: "quiet")
                                }
                            }
                        }
                    }
                    if report.misplaced.count > 1 {
                        H.form(WebRoute.stocktakeMove(library: lib, stocktake: s.id).path, csrf: page.csrf) { H.button(t(.moveAllHere)) }
                    }
                }
            }
            StocktakePage.group(t(.stocktakeOnLoan), report.onLoan, id: "on-loan", lib: lib, t: t)
            StocktakePage.group(t(.stocktakeUnknown), report.unknown, id: "unknown", lib: lib, t: t)
            StocktakePage.group(running ? t(.stocktakeNotScanned) : t(.stocktakeMissing), report.notScanned, id: "not-scanned", lib: lib, t: t)
            StocktakePage.group(t(.stocktakeHere), report.here, id: "here", lib: lib, t: t)
            StocktakePage.group(t(.stocktakeLent), report.lent, id: "lent", lib: lib, t: t)
            if running {
                H.form(WebRoute.stocktakeFinish(library: lib, stocktake: s.id).path, csrf: page.csrf) { H.button(t(.finishStocktake)) }
            }
        }
    }

    static func group(_ heading: String, _ items: [StocktakeItem], id: String, lib: UUID, t: Strings) -> any Component {
        guard !items.isEmpty else { return EmptyComponent() }
        return H.el(.section, [.class: "card", .id: id]) {
            H.el(.h2, [:]) { EscapedText(heading + " (" + t.number(items.count) + ")") }
            H.el(.ul, [.class: "stock-list"]) {
                for item in items { H.el(.li, [:]) { describe(item, lib: lib, t: t, place: false) } }
            }
        }
    }

    /// A copy by its title (linked), barcode and, for one placed elsewhere, where it belongs.
    static func describe(_ item: StocktakeItem, lib: UUID, t: Strings, place: Bool) -> any Component {
        H.el(.span, [:]) {
            if let title = item.title, let id = item.titleId {
                H.link(title, WebRoute.title(library: lib, title: id).path)
                EscapedText(" · " + item.code)
            } else {
                EscapedText(item.code)
            }
            if place {
                H.el(.span, [.class: "meta"]) { EscapedText(" · " + (item.location.map { t.format(.shelfHeading, $0) } ?? t(.noPlace))) }
            }
        }
    }
}
