import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The catalog, a book's page and adding books.
enum CatalogPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.catalog(library: .pattern), use: list)
        web.get(.title(library: .pattern, title: .pattern), use: detail)
        web.post(.titleFavorite(library: .pattern, title: .pattern), use: toggleFavorite)
        web.post(.titleNotes(library: .pattern, title: .pattern), use: saveNotes)
        web.post(.titleDelete(library: .pattern, title: .pattern), use: delete)
        web.post(.titleCopies(library: .pattern, title: .pattern), use: addCopies)
        web.get(.add(library: .pattern), use: addForm)
        web.get(.labels(library: .pattern), use: labels)
        web.get(.printedCatalog(library: .pattern), use: printedCatalog)
        web.get(.series(library: .pattern), use: series)
        web.get(.collections(library: .pattern), use: collections)
        web.post(.collections(library: .pattern), use: saveCollection)
        web.post(.collectionDelete(library: .pattern, collection: .pattern), use: deleteCollection)
        web.get(.categories(library: .pattern), use: categories)
        web.post(.copyStatus(library: .pattern, copy: .pattern), use: copyStatus)
        web.post(.copyRemove(library: .pattern, copy: .pattern), use: removeCopy)
        web.post(.categories(library: .pattern), use: addCategory)
        web.post(.categoryRename(library: .pattern, category: .pattern), use: renameCategory)
        web.post(.categoryMerge(library: .pattern, category: .pattern), use: mergeCategory)
        web.post(.categoryDelete(library: .pattern, category: .pattern), use: deleteCategory)
        web.post(.categoryCallNumbers(library: .pattern, category: .pattern), use: setCategoryCallNumbers)
        web.post(.add(library: .pattern), use: add)
    }

    // MARK: - Catalog list

    @Sendable static func list(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let q = req.query[String.self, at: "q"], chip = req.query[String.self, at: "show"] ?? "all"
        let grid = req.query[String.self, at: "view"] == "grid"
        let narrow = CatalogPage.Narrowing { req.query[String.self, at: $0] }
        // A letter of the A–Z index: to the page where that letter starts, at its heading.
        if let letter = req.query[String.self, at: "letter"].map({ String($0.prefix(2)) }), !letter.isEmpty {
            let start = try await CatalogPage.page(ofSection: letter, q: q, chip: chip, narrow: narrow, library: ctx, now: req.now, on: req.db)
            let link = CatalogPage.link(ctx.libraryID, q: q?.cleanedInput, chip: chip, grid: grid, sort: .title, page: start?.number ?? 1,
                                        seek: start?.start.map { .from($0) }, narrow: narrow)
            return req.redirect(to: link + "#sec-" + (letter == "#" ? "num" : letter))
        }
        let sort = req.query[String.self, at: "sort"].flatMap(TitleSort.init(rawValue:)) ?? .title
        var page = try await CatalogPage.make(q: q, chip: chip, grid: grid, sort: sort, paging: Paging(req.query[Int.self, at: "page"]),
                                              seek: CatalogPage.seek(after: req.query["after"], before: req.query["before"], from: req.query["from"],
                                                                     end: req.query["end"]),
                                              narrow: narrow, library: ctx, now: req.now, on: req.db)
        if ctx.role.may(.catalog) {
            page.select = req.query[String.self, at: "select"].flatMap(CatalogPage.Selecting.init(rawValue:)) ?? .off
            page.lastChange = try await BulkChanges.last(library: ctx.libraryID, now: req.now, on: req.db)
        }
        return try await page.render(try await req.page(library: ctx)).encodeResponse(for: req)
    }

    // MARK: - One copy

    /// The copy a form is about (in this library) and the page of its book, where the form goes back to.
    static func copy(_ req: Request, ctx: LibraryContext) async throws -> (copy: Catalog.CopyRef, book: String) {
        let copy = try await Catalog.copy(try req.uuid("copyID"), library: ctx.libraryID, on: req.db)
        return (copy, WebRoute.title(library: ctx.libraryID, title: copy.title_id).path)
    }

    /// Marks a copy lost, damaged, withdrawn or available again, with a note; back to its book.
    @Sendable static func copyStatus(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let (copy, book) = try await copy(req, ctx: ctx)
        return try await req.seeOther(book) {
            let form = try req.form(CopyStatusForm.self)
            try await Catalog.updateCopy(copy.id, CopyPatch(barcode: nil, location: nil, condition: nil, status: form.status,
                                                            statusNote: form.statusNote), in: req.scope(ctx))
            return req.t.format(.copyStatusSaved, copy.barcode)
        }
    }

    /// Removes this copy (not "some available copy"); back to its book.
    @Sendable static func removeCopy(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let (copy, book) = try await copy(req, ctx: ctx)
        return try await req.seeOther(book) {
            try await Catalog.deleteCopy(copy.id, in: req.scope(ctx))
            return req.t.format(.copyRemoved, copy.barcode)
        }
    }

    // MARK: - Categories

    @Sendable static func categories(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        return try await CategoriesPage.make(library: ctx, on: req.db).render(try await req.page(library: ctx))
    }

    /// Runs a categories form; a refusal shows the page again with that form as typed and the reason.
    static func categoryForm(_ req: Request, category: UUID?, _ body: (LibraryContext) async throws -> String) async throws -> Response {
        let ctx = try await req.library(.catalog)
        do {
            let flash = try await body(ctx)
            return req.seeOther(WebRoute.categories(library: ctx.libraryID).path, flash: flash)
        } catch let error where error.isFormRefusal {
            let form = FormState(values: req.typed(["name", "prefix", "withDewey"]), refusedWith: error, t: req.t, fields: ["name", "prefix"])
            let page = try await CategoriesPage.make(refused: (category, form), library: ctx, on: req.db)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func addCategory(req: Request) async throws -> Response {
        try await categoryForm(req, category: nil) { ctx in
            let category = try await Catalog.createCategory(CategoryInput(name: try req.form(CategoryForm.self).name ?? ""), in: req.scope(ctx))
            return req.t.format(.categoryAdded, category.name)
        }
    }

    @Sendable static func renameCategory(req: Request) async throws -> Response {
        let id = try req.uuid("categoryID")
        return try await categoryForm(req, category: id) { ctx in
            let name = try req.form(CategoryForm.self).name ?? ""
            try await Catalog.renameCategory(id, CategoryInput(name: name), in: req.scope(ctx))
            return req.t.format(.categoryRenamed, name)
        }
    }

    @Sendable static func mergeCategory(req: Request) async throws -> Response {
        let id = try req.uuid("categoryID")
        return try await categoryForm(req, category: id) { ctx in
            let categories = try await Catalog.categories(libraryID: ctx.libraryID, on: req.db)
            guard let into = try? req.form(MergeForm.self).into, let target = categories.first(where: { $0.id == into }),
                  let source = categories.first(where: { $0.id == id }) else { throw CatalogError.categoryNotFound }
            try await Catalog.mergeCategory(id, into: into, in: req.scope(ctx))
            return req.t.format(.categoryMerged, source.name, target.name)
        }
    }

    @Sendable static func setCategoryCallNumbers(req: Request) async throws -> Response {
        let id = try req.uuid("categoryID")
        return try await categoryForm(req, category: id) { ctx in
            let form = try req.form(CallNumbersForm.self)
            let given = try await CategoryCallNumbers.set(id, CategoryCallNumbersInput(prefix: form.prefix, withDewey: form.withDewey ?? false), in: req.scope(ctx))
            let name = try await Catalog.categories(libraryID: ctx.libraryID, on: req.db).first { $0.id == id }?.name ?? ""
            return req.t.format(.categorySchemeSaved, name, req.t.number(given))
        }
    }

    @Sendable static func deleteCategory(req: Request) async throws -> Response {
        let id = try req.uuid("categoryID")
        return try await categoryForm(req, category: id) { ctx in
            let name = try await Catalog.categories(libraryID: ctx.libraryID, on: req.db).first { $0.id == id }?.name ?? ""
            try await Catalog.deleteCategory(id, in: req.scope(ctx))
            return req.t.format(.categoryDeleted, name)
        }
    }

    /// The smart collections.
    @Sendable static func collections(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return CollectionsPage(libraryID: ctx.libraryID, collections: try await Collections.list(library: ctx.libraryID, on: req.db),
                               mayEdit: ctx.role.may(.catalog)).render(try await req.page(library: ctx))
    }

    /// What the catalog shows (its chip, search, shelf and level), saved with a name; back to the catalog on its chip.
    struct CollectionForm: WebForm {
        var name: String?
        var q, show, shelf, level, levelMin, levelMax, rating, reading: String?
        var addedWithinDays: Int?
        var available: Bool?
        static var maxLength: [String: Int] { ["name": 200, "q": 500] }
    }

    @Sendable static func saveCollection(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let form = try req.form(CollectionForm.self)
        let narrow = CatalogPage.Narrowing { name in
            switch name {
            case "shelf": form.shelf
            case "level": form.level
            case "levelMin": form.levelMin
            case "levelMax": form.levelMax
            case "rating": form.rating
            case "reading": form.reading
            default: nil
            }
        }
        var filter = CollectionFilter(q: form.q?.cleanedInput, shelf: narrow.shelf, levelScheme: narrow.scheme, levelMin: narrow.levelMin,
                                      levelMax: narrow.levelMax, minRating: narrow.minRating, readStatus: narrow.reading, addedWithinDays: form.addedWithinDays)
        switch form.show ?? "all" {
        case "favorites": filter.favorites = true
        case "onloan": filter.availability = .onLoan
        case "overdue": filter.availability = .overdue
        case let chip where chip.hasPrefix("cat-"): filter.categoryId = UUID(uuidString: String(chip.dropFirst(4)))
        default: break
        }
        if form.available == true, filter.availability == nil { filter.availability = .available }
        do {
            let saved = try await Collections.create(CollectionInput(name: form.name ?? "", filter: filter), in: req.scope(ctx))
            return req.seeOther(CatalogPage.link(ctx.libraryID, q: nil, chip: "col-" + saved.id.uuidString, grid: false, sort: .title, page: 1),
                                flash: req.t.format(.collectionSaved, saved.name))
        } catch let error where error.isFormRefusal {
            var query: [(String, String?)] = [("q", form.q), ("show", form.show)]
            query += narrow.query
            return req.seeOther(WebRoute.catalog(library: ctx.libraryID).path(query: query), flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func deleteCollection(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("collectionID")
        let name = try await Collections.get(id, library: ctx.libraryID, on: req.db).name
        try await Collections.delete(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.collections(library: ctx.libraryID).path, flash: req.t.format(.collectionDeleted, name))
    }

    /// A series' volumes, or every series.
    @Sendable static func series(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let name = req.query[String.self, at: "name"]?.cleanedInput.trimmingCharacters(in: .whitespaces).prefix(300).description
        return try await SeriesPage.make(name: name?.isEmpty == false ? name : nil, library: ctx, now: req.now, on: req.db)
            .render(try await req.page(library: ctx))
    }

    /// Label sheets for copies: choose, preview, download (staff who lend print them).
    @Sendable static func labels(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let page = try await LabelsPage.make(req, library: ctx)
        return try await req.refused(page.render(try await req.page(library: ctx)), page.form.isRefused)
    }

    @Sendable static func detail(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return try await TitlePage.make(titleID: try req.uuid("titleID"), library: ctx, now: req.now, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func toggleFavorite(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        try await Catalog.toggleFavorite(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path)
    }

    @Sendable static func saveNotes(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        var patch = TitlePatch()
        patch.notes = try req.form(NotesForm.self).notes ?? ""
        try await Catalog.update(id, patch, in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.notesSaved))
    }

    @Sendable static func delete(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard try req.form(ConfirmedForm.self).confirm else {
            throw AppError(status: .conflict, code: "confirmation_required", message: req.t.format(.deleteConfirm, title.title))
        }
        try await Catalog.delete(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.catalog(library: ctx.libraryID).path, flash: req.t.format(.deleted, title.title))
    }

    @Sendable static func addCopies(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let form = try req.form(AddCopiesForm.self)
        try await Catalog.addCopies(to: id, CopiesAdd(count: form.count ?? 1, location: form.location), in: req.scope(ctx))
        return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.copiesAdded))
    }
}

/// The catalog pages' small forms, one type each.
extension CatalogPages {
    struct CopyStatusForm: WebForm, SchemaConstrained {
        var status: CopyStatus?
        var statusNote: String?
        static var schemaConstraints: [String: JSONValue] { CopyPatch.schemaConstraints }
    }

    struct CategoryForm: WebForm, SchemaConstrained {
        var name: String?
        static var schemaConstraints: [String: JSONValue] { CategoryInput.schemaConstraints }
    }

    struct CallNumbersForm: WebForm {
        var prefix: String?
        var withDewey: Bool?
        static var maxLength: [String: Int] { ["prefix": 40] }
    }

    struct MergeForm: WebForm {
        var into: UUID?
    }

    struct NotesForm: WebForm, SchemaConstrained {
        var notes: String?
        static var schemaConstraints: [String: JSONValue] { TitlePatch.schemaConstraints }
    }

    struct AddCopiesForm: WebForm, SchemaConstrained {
        var count: Int?
        var location: String?
        static var schemaConstraints: [String: JSONValue] { CopiesAdd.schemaConstraints }
    }
}
