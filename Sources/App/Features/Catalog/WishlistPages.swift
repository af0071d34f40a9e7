import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The wishlist: find a book at the providers and add it; open Amazon; share; remove;
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
        return try await WishlistPage.make(q: req.query[String.self, at: "q"], paging: Paging(req.query[Int.self, at: "page"]), library: ctx,
                                           app: req.application, now: req.now)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func add(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let title: String
        do {
            let form = try req.form(WishlistForm.self)
            title = form.title ?? ""
            _ = try await Catalog.create(form.input, wishlist: true, in: req.scope(ctx))
        } catch let error where error.isFormRefusal && (try? req.form(ByHandForm.self))?.byHand != nil {
            // Entered by hand: the form again as typed, the reason next to its field.
            let typed = req.typed(WishlistPage.fields)
            let page = try await WishlistPage.make(q: nil, paging: Paging(1), form: FormState(values: typed, refusedWith: error, t: req.t,
                                                   fields: WishlistPage.fields), library: ctx, app: req.application, now: req.now)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
        req.application.enrichmentWorker?.ring()
        return req.seeOther(WebRoute.wishlist(library: ctx.libraryID).path, flash: req.t.format(.addedToWishlist, title))
    }

    @Sendable static func acquire(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        try await Catalog.acquire(id, AcquireInput(copies: (try req.form(CopiesForm.self)).copies ?? 1, location: nil), in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t.format(.acquired, title.title))
    }

    @Sendable static func remove(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard title.wishlist else { throw CatalogError.titleNotFound }
        try await Catalog.delete(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.wishlist(library: ctx.libraryID).path, flash: req.t.format(.removed, title.title))
    }
}

extension WishlistPages {
    /// A wish typed by hand or from a lookup: the API's bounds for a new title.
    struct WishlistForm: WebForm, SchemaConstrained {
        var isbn, title, subtitle, authors, publisher, publishedDate, language, coverUrl, requestedBy, byHand: String?
        var priority: Int?

        static var schemaConstraints: [String: JSONValue] {
            var fields = TitleCreate.schemaConstraints
            fields["authors"] = ["maxLength": .number(Double(50 * 302))]
            return fields
        }

        var input: TitleCreate {
            var input = TitleCreate(
                title: title ?? "", subtitle: subtitle,
                authors: authors.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } },
                isbn: isbn, publisher: publisher, publishedDate: publishedDate, pageCount: nil, language: language,
                description: nil, coverUrl: coverUrl, notes: nil, favorite: nil, rating: nil, series: nil, seriesNumber: nil,
                readingLevel: nil, categories: nil, copies: 0, location: nil)
            (input.requestedBy, input.priority) = (requestedBy, priority)
            return input
        }
    }

    struct CopiesForm: WebForm {
        var copies: Int?
    }
}

extension WishlistPages {
    /// Whether the wish was entered by hand (its form comes back with what was typed) or picked from a search.
    struct ByHandForm: WebForm {
        var byHand: String?
    }
}
