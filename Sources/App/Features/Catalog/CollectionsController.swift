import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Smart collections: saved filters with a name; their titles now; librarians keep them.
enum CollectionsController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "collections", doc: .init(summary: "The library's smart collections, by name", tag: "Catalog",
                                               response: CollectionDTO.self, responseIsArray: true), use: list)
        lib.on(.POST, "collections", doc: .init(
            summary: "Save a smart collection: a name and any combination of search, category, shelf, series, reading level range, availability, favourites, lowest rating and days since added (librarians); 409 when the name is taken (any case) or the library has 100",
            tag: "Catalog", request: CollectionInput.self, response: CollectionDTO.self, status: .created), use: create)
        lib.on(.GET, "collections", ":collectionID", "titles", doc: .init(
            summary: "The titles of a smart collection now, A–Z (as `GET …/titles` with the collection's filter)", tag: "Catalog",
            query: [.limit, .offset], response: TitleList.self), use: titles)
        lib.on(.PATCH, "collections", ":collectionID", doc: .init(summary: "Rename a smart collection or change its filter (librarians)", tag: "Catalog",
                                                                  request: CollectionPatch.self, response: CollectionDTO.self), use: update)
        lib.on(.DELETE, "collections", ":collectionID", doc: .init(summary: "Delete a smart collection (librarians); its titles stay", tag: "Catalog",
                                                                   status: .noContent), use: delete)
    }

    @Sendable static func list(req: Request) async throws -> [CollectionDTO] {
        let ctx = try await req.library(.read)
        return try await Collections.list(library: ctx.libraryID, on: req.db)
    }

    @Sendable static func create(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        return try await req.created(try await Collections.create(try req.content.decode(CollectionInput.self), in: req.scope(ctx)))
    }

    @Sendable static func titles(req: Request) async throws -> TitleList {
        let ctx = try await req.library(.read)
        let collection = try await Collections.get(try req.uuid("collectionID"), library: ctx.libraryID, on: req.db)
        var f = TitleQuery.Filters()
        collection.filter.apply(to: &f, now: req.now, reader: ctx.user.id)
        (f.limit, f.offset) = try req.paging
        return try await TitleQuery.list(f, libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> CollectionDTO {
        let ctx = try await req.library(.catalog)
        return try await Collections.update(try req.uuid("collectionID"), try req.content.decode(CollectionPatch.self), in: req.scope(ctx))
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Collections.delete(try req.uuid("collectionID"), in: req.scope(ctx))
        return .noContent
    }
}
