import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Health, the OpenAPI document and the public read-only catalog (G2, G3).
enum SystemController {
    static let version = "0.1.0"

    static func register(_ api: APIRoutes) {
        api.on(.GET, "health", doc: .init(summary: "Liveness and database check", tag: "System", authenticated: false, response: Health.self),
               use: health)
        api.on(.GET, "openapi.json", doc: .init(summary: "This document (OpenAPI 3.1)", tag: "System", authenticated: false), use: openAPI)
        api.on(.GET, "public", "libraries", ":libraryID", "titles", doc: .init(
            summary: "A library's catalog without member data, when the owner made it public", tag: "Public", authenticated: false,
            query: [TitlesController.listQuery[0], .init(name: "sections", kind: .boolean, description: "Include the A–Z index."), .limit, .offset],
            response: TitleList.self), use: publicTitles)
    }

    @Sendable static func health(req: Request) async throws -> Health {
        _ = try await req.sql.raw("SELECT 1 AS ok").first()
        return Health(status: "ok", database: req.db.isSQLite ? "sqlite" : "postgresql")
    }

    @Sendable static func openAPI(req: Request) async throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .withoutEscapingSlashes]
        let data = try encoder.encode(req.application.openAPI.document(version: version))
        var headers = HTTPHeaders()
        headers.contentType = .json
        return Response(status: .ok, headers: headers, body: .init(data: data))
    }

    @Sendable static func publicTitles(req: Request) async throws -> TitleList {
        let id = try req.uuid("libraryID")
        guard let library = try await Library.find(id, on: req.db), library.publicCatalog else { throw AppError.notFound("Library") }
        var filters = TitleQuery.Filters()
        filters.query = req.query[String.self, at: "q"]
        filters.includeSections = try req.flag("sections")
        (filters.limit, filters.offset) = try req.paging
        return try await TitleQuery.list(filters, libraryID: id, now: req.now, on: req.db)
    }
}
