import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Health, the OpenAPI document and the public read-only catalog.
enum SystemController {
    static let version = "0.1.0"

    static func register(_ api: APIRoutes) {
        api.on(.GET, "health", doc: .init(summary: "Liveness and database check; 503 while writes fail (a full disk)", tag: "System", authenticated: false, response: Health.self),
               use: health)
        api.on(.GET, "openapi.json", doc: .init(summary: "This document (OpenAPI 3.1)", tag: "System", authenticated: false), use: openAPI)
        api.on(.GET, "public", "libraries", ":libraryID", "titles", doc: .init(
            summary: "A library's catalog without member data, when the owner made it public", tag: "Public", authenticated: false,
            query: [TitlesController.listQuery[0], .init(name: "sections", kind: .boolean, description: "Include the A–Z index."), .limit, .offset],
            response: TitleList.self), use: publicTitles)
    }

    /// Reads always; when a write has failed for want of space, also tries a small write, so the
    /// answer says whether writes work now (503 while they fail).
    @Sendable static func health(req: Request) async throws -> Response {
        _ = try await req.sql.raw("SELECT 1 AS ok").first()
        let database = Dialect(req.db).rawValue
        var health = Health(status: "ok", database: database, writes: "ok")
        let storage = req.application.storageHealth
        var nearlyFull = false
        if case .sqlite(let path) = req.application.storageConfig { nearlyFull = StorageHealth.nearlyFull(path) }
        if storage.writesFailing || nearlyFull {
            do {
                // 64 KB written and taken back in one transaction: it needs room as a real write does.
                let filler = String(repeating: "0123456789abcdef", count: 4_096)
                try await req.application.writeGate.transaction(on: req.db) { db in
                    try await db.sql.raw("""
                        INSERT INTO server_settings (name, value) VALUES ('health_probe', \(bind: filler))
                        ON CONFLICT (name) DO UPDATE SET value = excluded.value
                        """).run()
                    try await db.sql.raw("DELETE FROM server_settings WHERE name = 'health_probe'").run()
                }
                storage.markWorking()
            } catch {
                health = Health(status: "degraded", database: database, writes: "failing",
                                problem: StorageHealth.isDiskFull(error) ? "the disk is full" : "writes fail: \(error)")
            }
        }
        let response = Response(status: health.writes == "ok" ? .ok : .serviceUnavailable)
        try response.content.encode(health)
        return response
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
        _ = try await MemberPortal.publicLibrary(id, on: req.db)
        var filters = TitleQuery.Filters()
        filters.query = req.query[String.self, at: "q"]
        filters.includeSections = try req.flag("sections")
        (filters.limit, filters.offset) = try req.paging
        return try await TitleQuery.list(filters, libraryID: id, now: req.now, on: req.db)
    }
}
