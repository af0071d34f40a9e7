import Foundation
import Plot

extension MemberCardsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, q, members, total) = (libraryID, q, members, total)
        return Layout.page(page, title: t(.memberCards)) {
            H.el(.h1, [:]) { EscapedText(t(.memberCards)) }
            H.el(.form, [.method: "get", .action: WebRoute.memberCards(library: lib).path, .role: "search", .class: "search"]) {
                H.el(.label, [.for: "f-cq", .class: "visually-hidden"]) { EscapedText(t(.searchMembers)) }
                H.void(.input, [.type: "search", .id: "f-cq", .name: "q", .value: q, .placeholder: t(.cardsForClassHint)])
                H.button(t(.search), kind: "quiet")
            }
            H.el(.p, [.class: "count"]) { EscapedText(t(.membersCount, total) + (total > members.count ? " · " + t.format(.firstN, t.number(members.count)) : "")) }
            H.el(.button, [.type: "button", .class: "button primary", .dataPrint: "", .hidden: ""]) { EscapedText(t(.print)) }
            H.el(.ul, [.class: "print-sheet"]) {
                for m in members {
                    H.el(.li, [.class: "print-card"]) {
                        H.el(.span, [.class: "name"]) { EscapedText(m.name) }
                        H.el(.span, [:]) { EscapedText([libraryName, m.grade].compactMap { $0 }.joined(separator: " · ")) }
                        H.void(.img, [.src: APILink.memberBarcode(library: lib, member: m.id).path, .alt: t(.cardID) + " " + m.cardId, .loading: "lazy"])
                    }
                }
            }
        }
    }
}

extension CopyLabelsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, d) = (libraryID, detail)
        return Layout.page(page, title: t(.copyLabels) + " · " + d.title) {
            H.el(.h1, [:]) { EscapedText(t(.copyLabels)) }
            H.el(.p, [:]) { H.link(d.title, WebRoute.title(library: lib, title: d.id).path) }
            H.el(.button, [.type: "button", .class: "button primary", .dataPrint: "", .hidden: ""]) { EscapedText(t(.print)) }
            H.el(.ul, [.class: "print-sheet"]) {
                for copy in d.copies {
                    H.el(.li, [.class: "print-card"]) {
                        H.el(.span, [.class: "name"]) { EscapedText(d.title) }
                        if !d.authors.isEmpty { H.el(.span, [:]) { EscapedText(d.authors.joined(separator: ", ")) } }
                        if let location = copy.location { H.el(.span, [:]) { EscapedText(location) } }
                        H.void(.img, [.src: APILink.copyBarcode(library: lib, copy: copy.id).path, .alt: t(.barcode) + " " + copy.barcode, .loading: "lazy"])
                    }
                }
            }
        }
    }
}
