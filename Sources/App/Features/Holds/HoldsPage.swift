import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// The hold shelf: books put aside, soonest deadline first, then the members waiting.
struct HoldsPage: Sendable {
    var libraryID: UUID
    var show: HoldState?
    var paging: Paging
    var holds: [HoldDTO]
    var mayLend: Bool

    static func make(show: HoldState?, paging: Paging, library: LibraryContext, on db: any Database) async throws -> HoldsPage {
        HoldsPage(libraryID: library.libraryID, show: show, paging: paging,
                  holds: try await Holds.library(library.libraryID, state: show, limit: paging.size + 1, offset: paging.offset, on: db),
                  mayLend: library.role.may(.circulate))
    }

    func url(page: Int) -> String {
        WebRoute.holds(library: libraryID).path(query: [("show", show?.rawValue), ("page", page > 1 ? String(page) : nil)])
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let shown = Array(holds.prefix(paging.size))
        return Layout.page(page, title: t(.holdsTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.holdsTitle)) }
            H.el(.nav, [.class: "chips"]) {
                Components.chipLink(t(.filterAll), WebRoute.holds(library: lib).path, current: show == nil)
                Components.chipLink(t(.holdsReady), WebRoute.holds(library: lib).path(query: [("show", HoldState.ready.rawValue)]), current: show == .ready)
                Components.chipLink(t(.holdsWaiting), WebRoute.holds(library: lib).path(query: [("show", HoldState.waiting.rawValue)]),
                                    current: show == .waiting)
            }
            if shown.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noHolds)) }
            } else {
                Components.holdList(shown, lib: lib, t: t, csrf: mayLend ? page.csrf : nil, back: url(page: paging.number), showTitle: true,
                                    showMember: true)
            }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.holdsHint)) }
            Components.pager(paging, total: nil, hasMore: holds.count > paging.size, t: t) { self.url(page: $0) }
        }
    }
}
