import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// Catalog titles, copies and categories, and the wishlist.
enum TitlesController {
    static let listQuery: [RouteDoc.Param] = [
        .init(name: "q", description: "Search as you type: every word is matched as a word prefix in title, subtitle, authors, series and ISBN; case and accents ignored."),
        .init(name: "favorites", kind: .boolean, description: "Only favorites."),
        .init(name: "onLoan", kind: .boolean, description: "Only titles with a copy on loan."),
        .init(name: "overdue", kind: .boolean, description: "Only titles with an overdue loan."),
        .init(name: "category", description: "Only titles in this category (id).", format: "uuid"),
        .init(name: "minRating", kind: .number, description: "Only titles rated at least this (0–5): the library's rating and its readers' averaged, as the book's page shows it.", schema: ["minimum": 0, "maximum": 5]),
        .init(name: "readStatus", description: "Only titles where your own reading is this: want_to_read, reading, finished, did_not_finish, or unread (not finished by you).",
              schema: ["enum": .array(ReadingFilter.allCases.map { .string($0.rawValue) })]),
        .init(name: "location", description: "Only titles with a copy at this shelf location."),
        .init(name: "series", description: "Only titles of this series."),
        .init(name: "readingLevel", description: "Only titles of this reading level, as written."),
        .init(name: "levelScheme", description: "Only titles with a reading level of this scheme (default `ar` when a range is given): Accelerated Reader, Lexile, guided reading, Antolin, or other (free text).",
              schema: ["enum": .array(ReadingLevel.Scheme.allCases.map { .string($0.rawValue) })]),
        .init(name: "levelMin", kind: .number, description: "Reading level at least this: an AR book level (3.0), a Lexile measure (BR150L is −150), a guided reading letter as 1–26, an Antolin school year.",
              schema: ["minimum": -2000, "maximum": 2500]),
        .init(name: "levelMax", kind: .number, description: "Reading level at most this (as levelMin).", schema: ["minimum": -2000, "maximum": 2500]),
        .init(name: "section", description: "Only the A–Z section with this letter (A–Z or #)."),
        .init(name: "sections", kind: .boolean, description: "Include the A–Z index: each section's letter and count."),
        .init(name: "sort", description: "The order: title (A–Z, the default), author, newest, borrowed (most lent first) or shelf (by call number, as on the shelf; titles without one last).",
              schema: ["enum": .array(TitleSort.allCases.map { .string($0.rawValue) })]),
        .limit, .offset,
    ]

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "titles", doc: .init(summary: "Catalog titles A–Z, searched and filtered (A5)", tag: "Catalog",
                                          query: listQuery, response: TitleList.self), use: list)
        lib.on(.POST, "levels", "import", doc: .init(
            summary: "Set reading levels in bulk (A12) from a CSV of ISBN and level (a header naming `ISBN` and `Level`, or ISBN first and level second; at most 2 MB): every title with that ISBN gets the level, in one transaction; each line not taken (not an ISBN, no level, not in the catalog) is named in the report (librarians)",
            tag: "Catalog", upload: ["text/csv", "application/octet-stream"], response: LevelImportReport.self),
            body: .collect(maxSize: ByteCount(value: ReadingLevels.maxBytes)), use: importLevels)
        lib.on(.POST, "titles", "bulk", doc: .init(
            summary: "Change many books at once (at most 1,000): into or out of a category, to a shelf, a reading level, a series, a call-number prefix, or delete them; one transaction. Books a change cannot take (another library's, on loan or held for a delete, readers' quotes or page photos) are listed in `skipped` (librarians)",
            tag: "Catalog", request: BulkChangeInput.self, response: BulkChangeReport.self),
            body: .collect(maxSize: "64kb"), use: bulkChange)
        lib.on(.GET, "titles", "bulk", doc: .init(
            summary: "The library's last change to many books while it can be undone (a day); 404 nothing_to_undo when there is none (librarians)",
            tag: "Catalog", response: BulkChangeReport.self), use: lastBulkChange)
        lib.on(.POST, "titles", "bulk", "undo", doc: .init(
            summary: "Undo the library's last change to many books: what it overwrote is put back, deleted books come back with their copies, categories, holds, loans and reads; 404 nothing_to_undo when there is none (librarians)",
            tag: "Catalog", response: BulkChangeReport.self), use: undoBulkChange)
        lib.on(.POST, "titles", doc: .init(summary: "Add a title with N copies (A1, A3); a known ISBN answers 409 duplicate_isbn with the existing title (A2)",
                                           tag: "Catalog", request: TitleCreate.self, response: TitleDetail.self, status: .created), use: create)
        lib.on(.GET, "titles", ":titleID", doc: .init(summary: "A title with copies, loans and availability (A4)", tag: "Catalog",
                                                      response: TitleDetail.self), use: show)
        lib.on(.PATCH, "titles", ":titleID", doc: .init(summary: "Edit any field; `totalCopies` never drops below the copies on loan (A7)",
                                                        tag: "Catalog", request: TitlePatch.self, response: TitleDetail.self), use: update)
        lib.on(.DELETE, "titles", ":titleID", doc: .init(summary: "Delete a title; refused while copies are on loan (A7)", tag: "Catalog",
                                                         status: .noContent), use: delete)
        lib.on(.GET, .titleMARC(library: .pattern, title: .pattern), doc: .init(
            summary: "The national library's MARC record kept with the title, as MARCXML as the catalogue sent it (J1); 404 no_marc_record when none is kept",
            tag: "Catalog"), use: TitleMARC.download)
        lib.on(.GET, .titleCopies(library: .pattern, title: .pattern), doc: .init(summary: "The copies of a title (A9)", tag: "Catalog",
                                                                response: CopyDTO.self, responseIsArray: true), use: copies)
        lib.on(.POST, .titleCopies(library: .pattern, title: .pattern), doc: .init(summary: "Add N more copies (A2)", tag: "Catalog",
                                                                 request: CopiesAdd.self, response: TitleDetail.self, status: .created), use: addCopies)
        lib.on(.PATCH, "copies", ":copyID", doc: .init(summary: "Edit a copy: barcode, location, condition, status (lost, withdrawn, available)",
                                                       tag: "Catalog", request: CopyPatch.self, response: CopyDTO.self), use: updateCopy)
        lib.on(.DELETE, "copies", ":copyID", doc: .init(summary: "Remove a copy that is not on loan", tag: "Catalog", status: .noContent),
               use: deleteCopy)
        lib.on(.GET, "categories", doc: .init(summary: "Categories with their title counts (A8)", tag: "Catalog",
                                              response: CategoryDTO.self, responseIsArray: true), use: categories)
        lib.on(.POST, "categories", doc: .init(summary: "Create a category", tag: "Catalog", request: CategoryInput.self,
                                               response: CategoryDTO.self, status: .created), use: createCategory)
        lib.on(.PATCH, "categories", ":categoryID", doc: .init(summary: "Rename a category", tag: "Catalog", request: CategoryInput.self,
                                                               response: Empty.self), use: renameCategory)
        lib.on(.POST, "categories", ":categoryID", "merge", doc: .init(
            summary: "Merge this category into another (`into`): its titles join that one (once each) and this one is deleted", tag: "Catalog",
            request: CategoryMerge.self, status: .noContent), use: mergeCategory)
        lib.on(.PUT, "categories", ":categoryID", "call-numbers", doc: .init(
            summary: "Set a category's call-number scheme: a prefix of one to five letters (empty: none) and whether the Dewey class follows it (\"F BYR\", \"J 590 ANI\"); its books without a call number are given one (librarians)",
            tag: "Catalog", request: CategoryCallNumbersInput.self, response: CategoryCallNumbersDTO.self), use: setCategoryCallNumbers)
        lib.on(.DELETE, "categories", ":categoryID", doc: .init(summary: "Delete a category; its titles stay, uncategorised", tag: "Catalog",
                                                                status: .noContent), use: deleteCategory)
        lib.on(.GET, "wishlist", doc: .init(summary: "Wishlist items (C2)", tag: "Wishlist",
                                            query: [listQuery[0], .limit, .offset], response: TitleList.self), use: wishlist)
        lib.on(.POST, "wishlist", doc: .init(summary: "Add a wishlist item (C1)", tag: "Wishlist", request: WishlistInput.self,
                                             response: TitleDetail.self, status: .created), use: addWishlist)
        lib.on(.POST, "wishlist", ":titleID", "acquire", doc: .init(summary: "Acquire: the item becomes a catalog title with N copies (C2)",
                                                                    tag: "Wishlist", request: AcquireInput.self, response: TitleDetail.self),
               use: acquire)
        lib.on(.DELETE, "wishlist", ":titleID", doc: .init(summary: "Delete a wishlist item", tag: "Wishlist", status: .noContent),
               use: deleteWishlist)
    }

    @Sendable static func bulkChange(req: Request) async throws -> BulkChangeReport {
        let ctx = try await req.library(.catalog)
        return try await BulkChanges.apply(try req.content.decode(BulkChangeInput.self), in: req.scope(ctx))
    }

    @Sendable static func lastBulkChange(req: Request) async throws -> BulkChangeReport {
        let ctx = try await req.library(.catalog)
        guard let last = try await BulkChanges.last(library: ctx.libraryID, now: req.now, on: req.db) else { throw BulkChangeError.nothingToUndo }
        return last
    }

    @Sendable static func undoBulkChange(req: Request) async throws -> BulkChangeReport {
        let ctx = try await req.library(.catalog)
        return try await BulkChanges.undo(in: req.scope(ctx))
    }

    @Sendable static func importLevels(req: Request) async throws -> LevelImportReport {
        let ctx = try await req.library(.catalog)
        return try await ReadingLevels.importLevels(try req.uploadedBytes(), in: req.scope(ctx))
    }

    static func filters(_ req: Request, wishlist: Bool) throws -> TitleQuery.Filters {
        var f = TitleQuery.Filters()
        f.query = req.query[String.self, at: "q"]
        f.wishlist = wishlist
        f.favorites = try req.flag("favorites")
        f.onLoan = try req.flag("onLoan")
        f.overdue = try req.flag("overdue")
        if let raw = req.query[String.self, at: "category"], !raw.isEmpty {
            guard let id = UUID(uuidString: raw) else {
                throw RequestError.notAnID(field: "category", got: raw)
            }
            f.categoryID = id
        }
        if let raw = req.query[String.self, at: "minRating"], !raw.isEmpty {
            guard let r = Double(raw), (0...5).contains(r) else {
                throw RequestError.rating(field: "minRating", got: raw)
            }
            f.minRating = r
        }
        if let raw = req.query[String.self, at: "readStatus"], !raw.isEmpty {
            guard let status = ReadingFilter(rawValue: raw) else {
                throw RequestError.oneOf(field: "readStatus", allowed: ReadingFilter.allCases.map(\.rawValue), got: raw)
            }
            f.readStatus = status
        }
        f.location = req.query[String.self, at: "location"].flatMap { $0.isEmpty ? nil : $0 }
        f.series = req.query[String.self, at: "series"].flatMap { $0.isEmpty ? nil : $0 }
        f.readingLevel = req.query[String.self, at: "readingLevel"].flatMap { $0.isEmpty ? nil : $0 }
        f.section = req.query[String.self, at: "section"].flatMap { $0.isEmpty ? nil : $0.uppercased() }
        if let raw = req.query[String.self, at: "levelScheme"], !raw.isEmpty {
            guard let scheme = ReadingLevel.Scheme(rawValue: raw) else {
                throw RequestError.oneOf(field: "levelScheme", allowed: ReadingLevel.Scheme.allCases.map(\.rawValue), got: raw)
            }
            f.levelScheme = scheme
        }
        func level(_ name: String) throws -> Double? {
            guard let raw = req.query[String.self, at: name], !raw.isEmpty else { return nil }
            guard raw.count <= 64, let n = Double(raw.replacingOccurrences(of: ",", with: ".")), n.isFinite, (-2000...2500).contains(n) else {
                throw InputProblem.notANumber(field: name)
            }
            return n
        }
        (f.levelMin, f.levelMax) = (try level("levelMin"), try level("levelMax"))
        if f.levelScheme == nil, f.levelMin != nil || f.levelMax != nil { f.levelScheme = .ar }
        f.includeSections = try req.flag("sections")
        if let raw = req.query[String.self, at: "sort"], !raw.isEmpty {
            guard let sort = TitleSort(rawValue: raw) else {
                throw RequestError.oneOf(field: "sort", allowed: TitleSort.allCases.map(\.rawValue), got: raw)
            }
            f.sort = sort
        }
        (f.limit, f.offset) = try req.paging
        return f
    }

    @Sendable static func list(req: Request) async throws -> TitleList {
        let ctx = try await req.library(.read)
        var f = try filters(req, wishlist: false)
        f.reader = ctx.user.id
        return try await TitleQuery.list(f, libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func wishlist(req: Request) async throws -> TitleList {
        let ctx = try await req.library(.read)
        return try await TitleQuery.list(try filters(req, wishlist: true), libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func create(req: Request) async throws -> Response {
        try await add(req, wishlist: false)
    }

    @Sendable static func addWishlist(req: Request) async throws -> Response {
        try await add(req, wishlist: true)
    }

    private static func add(_ req: Request, wishlist: Bool) async throws -> Response {
        let ctx = try await req.library(.catalog)
        var input = try req.content.decode(TitleCreate.self)
        if (input.title ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, let raw = input.isbn, !raw.isEmpty {
            input = try await completedFromLookup(input, isbn: try ISBN(raw), req: req)
        }
        let id = try await Catalog.create(input, wishlist: wishlist, in: req.scope(ctx))
        req.application.enrichmentWorker?.ring()
        return try await req.created(try await TitleQuery.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db))
    }

    /// Adding by ISBN alone through the API: the looked-up record fills what the body left out.
    private static func completedFromLookup(_ input: TitleCreate, isbn: ISBN, req: Request) async throws -> TitleCreate {
        let looked = try await LookupService.isbn(isbn, lookup: try await req.application.metadataLookup, now: req.now,
                                                  gate: req.application.writeGate, on: req.db)
        guard let record = looked.result.record else {
            // Not a malformed request: the book was not found (404), or the providers could not be asked (503).
            if looked.result.isDefinitelyNotFound {
                throw EdgeError.isbnUnknown(isbn: isbn.hyphenated)
            }
            throw EdgeError.providersUnavailable(reasons: looked.result.outcomes.compactMap(\.message).joined(separator: "; "))
        }
        var out = input
        out.title = record.title
        if out.subtitle == nil { out.subtitle = record.subtitle }
        if (out.authors ?? []).isEmpty { out.authors = record.authors }
        if out.publisher == nil { out.publisher = record.publisher }
        if out.publishedDate == nil { out.publishedDate = record.publishedDate }
        if out.pageCount == nil { out.pageCount = record.pageCount }
        if out.language == nil { out.language = record.language }
        if out.description == nil { out.description = record.description }
        if out.coverUrl == nil { out.coverUrl = record.coverURL }
        if out.callNumber == nil { out.callNumber = record.suggestedCallNumber }
        return out
    }

    @Sendable static func show(req: Request) async throws -> TitleDetail {
        let ctx = try await req.library(.read)
        return try await TitleQuery.detail(try req.uuid("titleID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> TitleDetail {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        try await Catalog.update(id, try req.content.decode(TitlePatch.self), in: req.scope(ctx))
        req.application.enrichmentWorker?.ring()
        return try await TitleQuery.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Catalog.delete(try req.uuid("titleID"), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func deleteWishlist(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let title = try await Catalog.find(id, library: ctx.libraryID, on: req.db)
        guard title.wishlist else { throw CatalogError.titleNotFound }
        try await Catalog.delete(id, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func copies(req: Request) async throws -> [CopyDTO] {
        let ctx = try await req.library(.read)
        let title = try await Catalog.find(try req.uuid("titleID"), library: ctx.libraryID, on: req.db)
        return try await title.$copies.query(on: req.db).sort(\.$copyNumber).all().map(\.dto)
    }

    @Sendable static func addCopies(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        try await Catalog.addCopies(to: id, try req.content.decode(CopiesAdd.self), in: req.scope(ctx))
        return try await req.created(try await TitleQuery.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db))
    }

    @Sendable static func acquire(req: Request) async throws -> TitleDetail {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        try await Catalog.acquire(id, try req.content.decode(AcquireInput.self), in: req.scope(ctx))
        return try await TitleQuery.detail(id, libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func updateCopy(req: Request) async throws -> CopyDTO {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("copyID")
        try await Catalog.updateCopy(id, try req.content.decode(CopyPatch.self), in: req.scope(ctx))
        guard let copy = try await Copy.find(id, on: req.db) else { throw CatalogError.copyNotFound }
        return copy.dto
    }

    @Sendable static func deleteCopy(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Catalog.deleteCopy(try req.uuid("copyID"), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func categories(req: Request) async throws -> [CategoryDTO] {
        let ctx = try await req.library(.read)
        return try await Catalog.categories(libraryID: ctx.libraryID, on: req.db)
    }

    @Sendable static func createCategory(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let category = try await Catalog.createCategory(try req.content.decode(CategoryInput.self), in: req.scope(ctx))
        return try await req.created(CategoryDTO(id: category.id!, name: category.name, titleCount: 0))
    }

    @Sendable static func renameCategory(req: Request) async throws -> Empty {
        let ctx = try await req.library(.catalog)
        try await Catalog.renameCategory(try req.uuid("categoryID"), try req.content.decode(CategoryInput.self), in: req.scope(ctx))
        return Empty()
    }

    @Sendable static func mergeCategory(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Catalog.mergeCategory(try req.uuid("categoryID"), into: try req.content.decode(CategoryMerge.self).into, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func setCategoryCallNumbers(req: Request) async throws -> CategoryCallNumbersDTO {
        let ctx = try await req.library(.catalog)
        let input = try req.content.decode(CategoryCallNumbersInput.self)
        let given = try await CategoryCallNumbers.set(try req.uuid("categoryID"), input, in: req.scope(ctx))
        let prefix = try CategoryCallNumbers.prefix(input.prefix)
        return CategoryCallNumbersDTO(prefix: prefix, withDewey: prefix != nil && (input.withDewey ?? false), given: given)
    }

    @Sendable static func deleteCategory(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Catalog.deleteCategory(try req.uuid("categoryID"), in: req.scope(ctx))
        return .noContent
    }
}
