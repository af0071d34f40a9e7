import Foundation
import Plot
import ShelfmarkCore

extension LabelsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, form, options, count, pages, locations) = (libraryID, form, options, count, pages, locations)
        let layouts: [(LabelLayout, L)] = [(.averyL7160, .layoutAveryL7160), (.a4x24, .layoutA4x24), (.avery5160, .layoutAvery5160), (.spine, .layoutSpine)]
        let chosen = form["layout"] ?? LabelLayout.averyL7160.rawValue
        return Layout.page(page, title: t(.copyLabels)) {
            H.el(.h1, [:]) { EscapedText(t(.copyLabels)) }
            if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
            if let titleName {
                H.el(.p, [:]) { EscapedText(t.format(.onlyCopiesOf, titleName)) }
            }
            if let collectionName {
                H.el(.p, [:]) { EscapedText(t.format(.onlyCopiesOf, collectionName)) }
            }
            H.el(.form, [.method: "get", .action: WebRoute.labels(library: lib).path, .class: "print-options"]) {
                if let title = form["title"], !title.isEmpty { H.void(.input, [.type: "hidden", .name: "title", .value: title]) }
                if let collection = form["collection"], !collection.isEmpty { H.void(.input, [.type: "hidden", .name: "collection", .value: collection]) }
                H.el(.div, [.class: form.errors["layout"] == nil ? "field" : "field invalid"]) {
                    H.el(.label, [.for: "f-layout"]) { EscapedText(t(.labelSheet)) }
                    H.el(.select, [.id: "f-layout", .name: "layout"]) {
                        for (layout, name) in layouts {
                            H.el(.option, [.value: layout.rawValue, .selected: chosen == layout.rawValue ? "" : nil]) { EscapedText(t(name)) }
                        }
                    }
                }
                if form["title"]?.isEmpty ?? true, form["collection"]?.isEmpty ?? true {
                    H.field(t(.copiesAddedSince), name: "since", type: "date", value: form["since"], error: form.errors["since"])
                    H.field(t(.location), name: "location", value: form["location"], error: form.errors["location"], extra: [.list: "f-locations"])
                    H.el(.datalist, [.id: "f-locations"]) {
                        for location in locations { H.el(.option, [.value: location]) }
                    }
                }
                H.field(t(.startAtLabel), name: "start", type: "number", value: form["start"] ?? "1", hint: t(.startAtHint), error: form.errors["start"],
                        extra: [.min: "1", .max: "51", .inputmode: "numeric"])
                H.el(.div, [.class: "pair"]) {
                    H.field(t(.offsetAcross), name: "offsetX", type: "number", value: form["offsetX"] ?? "0", error: form.errors["offsetX"],
                            extra: [.min: "-10", .max: "10", .step: "0.5", .inputmode: "decimal"])
                    H.field(t(.offsetDown), name: "offsetY", type: "number", value: form["offsetY"] ?? "0", error: form.errors["offsetY"],
                            extra: [.min: "-10", .max: "10", .step: "0.5", .inputmode: "decimal"])
                }
                H.el(.p, [.class: "hint"]) { EscapedText(t(.offsetHint)) }
                H.button(t(.showSheets), kind: "quiet")
            }
            if let options, !form.isRefused {
                if count == 0 {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.errNothingToPrint)) }
                } else {
                    H.el(.p, [.class: "count"]) { EscapedText(t.format(.labelsAndSheets, t.number(count), t.number(pages))) }
                    H.el(.p, [:]) {
                        H.link(t(.downloadPDF), APILink.labels(library: lib, format: "pdf").path(query: options.query), cls: "button primary")
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.labelsPreviewNote)) }
                    SheetPreviews(link: APILink.labels(library: lib, format: "png"), query: options.query, pages: pages,
                                  paper: options.layout.sheet.paper, t: t).body
                }
            }
        }
    }
}

/// Each sheet of a PDF as the image of its page, lazily loaded, in the page's width.
struct SheetPreviews {
    var link: APILink
    var query: [(String, String)]
    var pages: Int
    var paper: SheetLayout.Paper
    var t: Strings
    /// Show only the first pages (a printed catalog of hundreds).
    var shown = PrintController.maxPage

    var body: any Component {
        let (width, height) = (Int((paper.width / 25.4 * 96).rounded()), Int((paper.height / 25.4 * 96).rounded()))
        return H.el(.ol, [.class: "sheets"]) {
            for n in 1...max(1, min(pages, shown, PrintController.maxPage)) {
                H.el(.li, [:]) {
                    H.void(.img, [.src: link.path(query: query + [("page", String(n))]), .alt: t.format(.sheetPreview, t.number(n), t.number(pages)),
                                  .width: String(width), .height: String(height), .loading: n > 2 ? "lazy" : nil])
                }
            }
        }
    }
}
