import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The catalog (A5), a book's page (A4, A7) and adding books (A1–A3).
enum CatalogPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.catalog(library: .pattern), use: list)
        web.get(.title(library: .pattern, title: .pattern), use: detail)
        web.post(.titleFavorite(library: .pattern, title: .pattern), use: toggleFavorite)
        web.post(.titleNotes(library: .pattern, title: .pattern), use: saveNotes)
        web.post(.titleDelete(library: .pattern, title: .pattern), use: delete)
        web.post(.titleCopies(library: .pattern, title: .pattern), use: addCopies)
        web.get(.add(library: .pattern), use: addForm)
        web.get(.copyLabels(library: .pattern, title: .pattern), use: copyLabels)
        web.post(.add(library: .pattern), use: add)
    }

    // MARK: - Catalog list

    @Sendable static func list(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let q = req.query[String.self, at: "q"], chip = req.query[String.self, at: "show"] ?? "all"
        let grid = req.query[String.self, at: "view"] == "grid"
        // A letter of the A–Z index: to the page where that letter starts, at its heading.
        if let letter = req.query[String.self, at: "letter"].map({ String($0.prefix(2)) }), !letter.isEmpty {
            let number = try await CatalogPage.page(ofSection: letter, q: q, chip: chip, library: ctx, now: req.now, on: req.db) ?? 1
            let link = CatalogPage.link(ctx.libraryID, q: q?.cleanedInput, chip: chip, grid: grid, sort: .title, page: number)
            return req.redirect(to: link + "#sec-" + (letter == "#" ? "num" : letter))
        }
        let sort = req.query[String.self, at: "sort"].flatMap(TitleSort.init(rawValue:)) ?? .title
        let page = try await CatalogPage.make(q: q, chip: chip, grid: grid, sort: sort, paging: Paging(req.query[Int.self, at: "page"]),
                                              library: ctx, now: req.now, on: req.db)
        return try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
    }

    /// Labels for a title's copies, to print.
    @Sendable static func copyLabels(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        return try await CopyLabelsPage.make(titleID: try req.uuid("titleID"), library: ctx, now: req.now, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func detail(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return try await TitlePage.make(titleID: try req.uuid("titleID"), library: ctx, now: req.now, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func toggleFavorite(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        var patch = TitlePatch()
        patch.favorite = !title.favorite
        try await Catalog.update(id, patch, in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path)
    }

    @Sendable static func saveNotes(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        var patch = TitlePatch()
        patch.notes = req.formText("notes") ?? ""
        try await Catalog.update(id, patch, in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.notesSaved))
    }

    @Sendable static func delete(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard req.formText("confirm") == "true" else {
            throw AppError(status: .conflict, code: "confirmation_required", message: req.t.format(.deleteConfirm, title.title))
        }
        try await Catalog.delete(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.catalog(library: ctx.libraryID).path, flash: req.t.format(.deleted, title.title))
    }

    @Sendable static func addCopies(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let count = req.formText("count").flatMap(Int.init) ?? 1
        try await Catalog.addCopies(to: id, CopiesAdd(count: count, location: req.formText("location")), in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.copiesAdded))
    }
}
