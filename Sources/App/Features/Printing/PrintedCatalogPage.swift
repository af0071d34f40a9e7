import Foundation
import Plot
import ShelfmarkCore

/// The printed catalog: arranged A–Z, by shelf, category or reading level, with covers or not, one
/// shelf or all; how many books and pages, the first pages as they print, and the PDF.
struct PrintedCatalogPage: Sendable {
    var libraryID: UUID
    var shelves: [String]
    var options = CatalogSheets.Options()
    var count = 0
    var pages = 0
    var form = FormState()

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, shelves, options, count, pages, form) = (libraryID, shelves, options, count, pages, form)
        let arrangements: [(CatalogSheets.Grouping, L)] = [(.az, .arrangeAZ), (.shelf, .arrangeShelf), (.category, .arrangeCategory), (.level, .arrangeLevel),
                                                            (.callNumber, .arrangeCallNumber)]
        return Layout.page(page, title: t(.printedCatalog)) {
            H.el(.h1, [:]) { EscapedText(t(.printedCatalog)) }
            if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
            H.el(.form, [.method: "get", .action: WebRoute.printedCatalog(library: lib).path, .class: "print-options"]) {
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-group"]) { EscapedText(t(.arrangeBy)) }
                    H.el(.select, [.id: "f-group", .name: "group"]) {
                        for (grouping, name) in arrangements {
                            H.el(.option, [.value: grouping.rawValue, .selected: options.grouping == grouping ? "" : nil]) { EscapedText(t(name)) }
                        }
                    }
                }
                if !shelves.isEmpty {
                    H.el(.div, [.class: "field"]) {
                        H.el(.label, [.for: "f-shelf"]) { EscapedText(t(.shelvesTitle)) }
                        H.el(.select, [.id: "f-shelf", .name: "shelf"]) {
                            H.el(.option, [.value: ""]) { EscapedText(t(.allShelves)) }
                            for shelf in shelves { H.el(.option, [.value: shelf, .selected: options.shelf == shelf ? "" : nil]) { EscapedText(shelf) } }
                        }
                    }
                }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-paper"]) { EscapedText(t(.paperSize)) }
                    H.el(.select, [.id: "f-paper", .name: "paper"]) {
                        H.el(.option, [.value: "a4", .selected: options.paper == .a4 ? "" : nil]) { EscapedText("A4") }
                        H.el(.option, [.value: "letter", .selected: options.paper == .letter ? "" : nil]) { EscapedText(t(.paperLetter)) }
                    }
                }
                H.el(.label, [.class: "pick"]) {
                    H.void(.input, [.type: "checkbox", .name: "covers", .value: "true", .checked: options.covers ? "" : nil])
                    EscapedText(" " + t(.withCovers))
                }
                if let collection = options.collection { H.void(.input, [.type: "hidden", .name: "collection", .value: collection.uuidString]) }
                H.button(t(.showSheets), kind: "quiet")
            }
            if !form.isRefused {
                if count == 0 {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.errNothingToPrint)) }
                } else {
                    H.el(.p, [.class: "count"]) { EscapedText(t.format(.catalogCount, t.number(count), t.number(pages))) }
                    H.el(.p, [:]) {
                        H.link(t(.downloadPDF), APILink.printedCatalog(library: lib, format: "pdf").path(query: options.query), cls: "button primary")
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.catalogPreviewNote)) }
                    SheetPreviews(link: APILink.printedCatalog(library: lib, format: "png"), query: options.query, pages: pages, paper: options.paper,
                                  t: t, shown: 3).body
                }
            }
        }
    }
}
