import Foundation
import Plot
import ShelfmarkCore

/// Copies on the shelves that no stocktake has seen for a year, by shelf and title.
struct UnseenPage: Sendable {
    var libraryID: UUID
    var since: Date
    var list: Stocktakes.UnseenList
    var paging: Paging

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, since, list, paging) = (libraryID, since, list, paging)
        return Layout.page(page, title: t(.unseenTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.unseenTitle)) }
            if list.total == 0 {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.unseenNone)) }
            } else {
                H.el(.p, [.class: "count"]) { EscapedText(t.format(.unseenIntro, t.date(since), t.number(list.total))) }
                H.el(.ul, [.class: "stock-list"]) {
                    for item in list.items {
                        H.el(.li, [:]) {
                            H.link(item.title, WebRoute.title(library: lib, title: item.titleId).path)
                            EscapedText(" · " + item.barcode)
                            H.el(.span, [.class: "meta"]) {
                                EscapedText(" · " + (item.location.map { t.format(.shelfHeading, $0) } ?? t(.noPlace)) + " · "
                                            + (item.seenAt.map { t.format(.lastSeen, t.date($0)) } ?? t(.neverSeen)))
                            }
                        }
                    }
                }
                Components.pager(paging, total: list.total, t: t) { WebRoute.unseen(library: lib).path(query: [("page", String($0))]) }
            }
        }
    }
}
