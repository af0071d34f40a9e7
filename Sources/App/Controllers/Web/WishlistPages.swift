import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The wishlist (C1, C2): find a book at the providers and add it; open Amazon; share; remove;
/// acquire it with a number of copies.
enum WishlistPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.wishlist(library: .pattern), use: list)
        web.post(.wishlist(library: .pattern), use: add)
        web.post(.wishlistAcquire(library: .pattern, title: .pattern), use: acquire)
        web.post(.wishlistDelete(library: .pattern, title: .pattern), use: remove)
    }

    @Sendable static func list(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        var filters = TitleQuery.Filters()
        filters.wishlist = true
        filters.limit = 200
        let items = try await TitleQuery.list(filters, libraryID: ctx.libraryID, now: req.now, on: req.db).items
        let q = req.query[String.self, at: "q"]?.trimmingCharacters(in: .whitespaces)
        var candidates: [BookRecord] = []
        if let q, !q.isEmpty, ctx.role.may(.catalog) {
            candidates = await req.application.metadataLookup.search(SearchQuery(text: String(q.prefix(300)), limit: 10)).candidates
        }
        let page = try await req.page(library: ctx)
        let t = page.t
        let lib = ctx.libraryID
        let canEdit = ctx.role.may(.catalog)
        return Layout.page(page, title: t(.wishlist)) {
            H.el("h1", [:]) { Text(t(.wishlist)) }
            if canEdit {
                H.el("form", ["method": "get", "action": WebRoute.wishlist(library: lib).path, "role": "search", "class": "search"]) {
                    H.el("label", ["for": "f-wq", "class": "visually-hidden"]) { Text(t(.searchProviders)) }
                    H.void("input", ["type": "search", "id": "f-wq", "name": "q", "value": q, "placeholder": t(.searchProvidersHint)])
                    H.button(t(.searchProviders), kind: "quiet")
                }
            }
            if let q, !q.isEmpty {
                H.el("section", ["class": "card"]) {
                    H.el("h2", [:]) { Text(t(.providerResults)) }
                    if candidates.isEmpty {
                        H.el("p", ["class": "empty"]) { Text(t.format(.noMatches, q)) }
                    } else {
                        H.el("ul", ["class": "titles"]) {
                            for c in candidates {
                                H.el("li", ["class": "title-row"]) {
                                    Components.cover(c.coverURL, title: c.title ?? "", t: t)
                                    H.el("span", ["class": "meta"]) {
                                        H.el("span", ["class": "name"]) { Text(c.title ?? "") }
                                        H.el("span", ["class": "authors"]) { Text((c.authors ?? []).joined(separator: ", ")) }
                                    }
                                    H.form(WebRoute.wishlist(library: lib).path, csrf: page.csrf, attrs: ["class": "inline"]) {
                                        for (name, value) in [("title", c.title), ("subtitle", c.subtitle), ("authors", c.authors?.joined(separator: ", ")),
                                                              ("isbn", c.isbn13), ("publisher", c.publisher), ("publishedDate", c.publishedDate),
                                                              ("coverUrl", c.coverURL), ("language", c.language)] {
                                            if let value { H.void("input", ["type": "hidden", "name": name, "value": value]) }
                                        }
                                        H.button(t(.addToWishlist), kind: "quiet", attrs: ["aria-label": t(.addToWishlist) + ": " + (c.title ?? "")])
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if items.isEmpty {
                H.el("p", ["class": "empty"]) { Text(t(.wishlistEmpty)) }
            } else {
                H.el("ul", ["class": "wishlist"]) {
                    for item in items {
                        H.el("li", ["class": "card wish"]) {
                            Components.cover(item.coverUrl, title: item.title, t: t)
                            H.el("div", ["class": "meta"]) {
                                H.el("span", ["class": "name"]) { Text(item.title) }
                                H.el("span", ["class": "authors"]) { Text(item.authors.joined(separator: ", ")) }
                                H.el("div", ["class": "actions"]) {
                                    let links = TitleQuery.links(isbn13: item.isbn13, title: item.title, authors: item.authors)
                                    if let amazon = links["amazon"] {
                                        H.el("a", ["href": amazon, "class": "button quiet", "rel": "noopener", "target": "_blank"]) { Text(t(.findOnAmazon)) }
                                    }
                                    H.el("button", ["type": "button", "class": "button quiet", "hidden": "",
                                                    "data-share": item.title,
                                                    "data-share-text": t.format(.shareText, item.title, item.authors.joined(separator: ", "))]) { Text(t(.share)) }
                                    if canEdit {
                                        H.form(WebRoute.wishlistAcquire(library: lib, title: item.id).path, csrf: page.csrf, attrs: ["class": "inline-form"]) {
                                            H.field(t(.copiesField), name: "copies", type: "number", value: "1", required: true,
                                                    id: "f-copies-" + item.id.uuidString, extra: ["min": "1", "max": "500"])
                                            H.button(t(.acquire))
                                        }
                                        H.form(WebRoute.wishlistDelete(library: lib, title: item.id).path, csrf: page.csrf, attrs: ["class": "inline"]) {
                                            H.button(t(.removeFromWishlist), kind: "danger")
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Sendable static func add(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let d = CatalogPages.Draft(form: req)
        let input = TitleCreate(
            title: d.title ?? "", subtitle: d.subtitle,
            authors: d.authors.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } },
            isbn: d.isbn, publisher: d.publisher, publishedDate: d.publishedDate, pageCount: nil, language: d.language,
            description: nil, coverUrl: d.coverUrl, notes: nil, favorite: nil, rating: nil, series: nil, seriesNumber: nil,
            readingLevel: nil, categories: nil, copies: 0, location: nil)
        _ = try await Catalog.create(input, wishlist: true, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        req.application.enrichmentWorker?.nudge()
        return req.seeOther(WebRoute.wishlist(library: ctx.libraryID).path, flash: req.t.format(.addedToWishlist, d.title ?? ""))
    }

    @Sendable static func acquire(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        try await Catalog.acquire(id, AcquireInput(copies: req.formText("copies").flatMap(Int.init) ?? 1, location: nil), library: ctx,
                                  now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t.format(.acquired, title.title))
    }

    @Sendable static func remove(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard title.wishlist else { throw AppError.notFound("Wishlist item") }
        try await Catalog.delete(id, library: ctx, now: req.now, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.wishlist(library: ctx.libraryID).path, flash: req.t.format(.removed, title.title))
    }
}
