import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// The sync feed and push for offline clients: the offline web app, a native app, a kiosk.
/// Scoped as the rest of the API: the library's members only; reading a feed needs `read`, each pushed
/// mutation the role its operation needs. See docs/SYNC.md.
enum SyncController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID", "sync")
        lib.on(.GET, "changes", doc: .init(
            summary: "What changed in the library since a cursor: titles, copies, members (card, name, class) and open loans, each as it is now or removed (deleted, to the wishlist, returned), in the order they changed; without a cursor, everything (a first pull, paged). 410 sync_refetch: the cursor is older than the removals kept (30 days): pull from the start again",
            tag: "Sync",
            query: [.init(name: "cursor", description: "The `cursor` of the last answer; none for a first pull.",
                          schema: ["pattern": "^v[0-9]{1,18}(\\.[1-4]\\.[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})?$", "maxLength": 80]),
                    .init(name: "limit", kind: .integer, description: "Changes in one answer, 1–\(Sync.maxLimit) (default \(Sync.defaultLimit)).",
                          schema: ["minimum": 1, "maximum": .number(Double(Sync.maxLimit))])],
            response: SyncPage.self), use: changes)
        lib.on(.POST, "push", doc: .init(
            summary: "Apply a device's queued mutations (check out, return, renew, progress, quote, title edit), each through the same rules as the API, each exactly once: a mutation sent again (same clientId and seq) is answered from the first time. Each is answered applied or rejected (code, message in the reader's language, and the copy, loan or title as it is)",
            tag: "Sync", request: SyncPush.self, response: SyncPushResult.self),
            body: .collect(maxSize: "16mb"), use: push)
    }

    @Sendable static func changes(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        var cursor: Sync.Cursor?
        if let raw = req.query[String.self, at: "cursor"], !raw.isEmpty {
            guard let parsed = Sync.Cursor(raw) else { throw SyncError.badCursor(raw) }
            cursor = parsed
        }
        let limit = try req.intQuery("limit", default: Sync.defaultLimit, range: 1...Sync.maxLimit)
        let json = try await Sync.changes(library: ctx.libraryID, after: cursor, limit: limit, on: req.db)
        var headers = HTTPHeaders()
        headers.contentType = .json
        // A first pull is megabytes of JSON: compressed when the device accepts it (no secret of the
        // request is echoed in it).
        headers.responseCompression = .enable
        headers.cacheControl = .init(noStore: true)
        let response = Response(status: .ok, headers: headers, body: .init(string: json))
        return response
    }

    @Sendable static func push(req: Request) async throws -> SyncPushResult {
        let ctx = try await req.library(.read)
        let input = try req.content.decode(SyncPush.self)
        return try await Sync.push(input, in: req.scope(ctx), t: req.t)
    }
}
