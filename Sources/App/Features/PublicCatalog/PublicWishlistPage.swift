import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The library's wishlist for anyone when the library published its catalog: what it hopes to have,
/// each with its cover and where to find it at the store — what a shared wishlist link opens. Who
/// asked for a book is the staff's to know and is never shown here.
struct PublicWishlistPage: Sendable {
    var library: MemberPortal.PublicLibrary
    var paging: Paging
    var result: TitleList

    static func make(paging: Paging, library: MemberPortal.PublicLibrary, now: Date, on db: any Database) async throws -> PublicWishlistPage {
        var filters = TitleQuery.Filters()
        filters.wishlist = true
        filters.limit = paging.size
        filters.offset = paging.offset
        return PublicWishlistPage(library: library, paging: paging, result: try await TitleQuery.list(filters, libraryID: library.id, now: now, on: db))
    }

    @Sendable static func show(req: Request) async throws -> Response {
        let visit = try await PublicPages.visit(req)
        let page = try await make(paging: Paging(req.query[Int.self, at: "page"]), library: visit.library, now: req.now, on: req.db)
        return try await PublicPages.respond(page.render(visit.page), visit, req: req)
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, result, paging) = (library.id, result, paging)
        return Layout.page(page, title: t.format(.publicWishlistHeading, library.name)) {
            H.el(.h1, [:]) { EscapedText(t.format(.publicWishlistHeading, library.name)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.publicWishlistIntro)) }
            if result.items.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.publicWishlistEmpty)) }
            } else {
                H.el(.ul, [.class: "titles"]) {
                    for item in result.items {
                        H.el(.li, [.class: "title-row", .id: "wish-" + item.id.uuidString]) {
                            Components.cover(item.coverUrl, title: item.title, t: t)
                            H.el(.span, [.class: "meta"]) {
                                H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                                if !item.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) } }
                                // Under the name, not beside it: a phone's width is the title's.
                                if let store = TitleQuery.links(isbn13: item.isbn13, title: item.title, authors: item.authors)["amazon"] {
                                    H.el(.a, [.href: store, .class: "button quiet store-link", .rel: "noopener", .target: "_blank"]) { EscapedText(t(.findOnAmazon)) }
                                }
                            }
                        }
                    }
                }
            }
            Components.pager(paging, total: result.totalIsLowerBound ? nil : result.total, hasMore: result.items.count == paging.size, t: t,
                             step: { WebRoute.publicWishlist(library: lib).path(query: [("page", $0.number > 1 ? String($0.number) : nil)]) })
            H.el(.p, [:]) { H.link(t.format(.portalCatalogHeading, library.name), WebRoute.publicCatalog(library: lib).path) }
        }
    }
}
