import Foundation
import Plot
import ShelfmarkCore

/// The shelf signs to print: every shelf's QR code, or one shelf's, each sheet previewed as
/// the image of its PDF page.
struct ShelfSignsPage: Sendable {
    var libraryID: UUID
    var options: ShelfCodeSheets.Options
    var shelfName: String?
    var count: Int

    var query: [(String, String)] {
        [("paper", options.paper.rawValue)] + (options.shelf.map { [("shelf", $0.uuidString)] } ?? [])
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, options, query, count) = (libraryID, options, query, count)
        let pages = ShelfCodeSheets.layout(options.paper).pages(count: count)
        return Layout.page(page, title: t(.shelfQRCodes)) {
            H.el(.h1, [:]) { EscapedText(t(.shelfQRCodes)) }
            if let shelfName { H.el(.p, [:]) { EscapedText(t.format(.shelfHeading, shelfName)) } }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.shelfQRHint)) }
            H.el(.form, [.method: "get", .action: WebRoute.shelfSigns(library: lib).path, .class: "print-options"]) {
                if let shelf = options.shelf { H.void(.input, [.type: "hidden", .name: "shelf", .value: shelf.uuidString]) }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-paper"]) { EscapedText(t(.paperSize)) }
                    H.el(.select, [.id: "f-paper", .name: "paper"]) {
                        H.el(.option, [.value: "a4", .selected: options.paper == .a4 ? "" : nil]) { EscapedText("A4") }
                        H.el(.option, [.value: "letter", .selected: options.paper == .letter ? "" : nil]) { EscapedText(t(.paperLetter)) }
                    }
                }
                H.button(t(.showSheets), kind: "quiet")
            }
            if count == 0 {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noShelves)) }
            } else {
                H.el(.p, [:]) {
                    H.link(t(.downloadPDF), APILink.shelfSigns(library: lib, format: "pdf").path(query: query), cls: "button primary")
                }
                SheetPreviews(link: APILink.shelfSigns(library: lib, format: "png"), query: query, pages: pages, paper: options.paper, t: t).body
            }
        }
    }
}
