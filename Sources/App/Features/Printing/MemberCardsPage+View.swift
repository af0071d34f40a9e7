import Foundation
import Plot
import ShelfmarkCore

extension MemberCardsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, form, options, count, pages) = (libraryID, form, options, count, pages)
        let paper = form["paper"] ?? "a4"
        return Layout.page(page, title: t(.memberCards)) {
            H.el(.h1, [:]) { EscapedText(t(.memberCards)) }
            if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
            H.el(.form, [.method: "get", .action: WebRoute.memberCards(library: lib).path, .class: "print-options"]) {
                H.field(t(.searchMembers), name: "q", type: "search", value: form["q"], hint: t(.cardsForClassHint), error: form.errors["q"])
                H.el(.div, [.class: "pair"]) {
                    H.el(.div, [.class: form.errors["paper"] == nil ? "field" : "field invalid"]) {
                        H.el(.label, [.for: "f-paper"]) { EscapedText(t(.paperSize)) }
                        H.el(.select, [.id: "f-paper", .name: "paper"]) {
                            H.el(.option, [.value: "a4", .selected: paper == "a4" ? "" : nil]) { EscapedText("A4") }
                            H.el(.option, [.value: "letter", .selected: paper == "letter" ? "" : nil]) { EscapedText(t(.paperLetter)) }
                        }
                    }
                    H.field(t(.startAtLabel), name: "start", type: "number", value: form["start"] ?? "1", error: form.errors["start"],
                            extra: [.min: "1", .max: "10", .inputmode: "numeric"])
                }
                H.button(t(.showSheets), kind: "quiet")
            }
            if let options, !form.isRefused {
                if count == 0 {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.errNothingToPrint)) }
                } else {
                    H.el(.p, [.class: "count"]) { EscapedText(t.format(.cardsAndSheets, t.number(count), t.number(pages))) }
                    H.el(.p, [:]) {
                        H.link(t(.downloadPDF), APILink.memberCards(library: lib, format: "pdf").path(query: options.query), cls: "button primary")
                    }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.cardsPreviewNote)) }
                    SheetPreviews(link: APILink.memberCards(library: lib, format: "png"), query: options.query, pages: pages,
                                  paper: options.paper, t: t).body
                }
            }
        }
    }
}
