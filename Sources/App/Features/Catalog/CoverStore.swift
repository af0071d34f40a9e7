import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Cover images kept in the database and served at `/api/v1/covers/{id}`.
enum CoverStore {
    static let maxBytes = 5 << 20
    static func localURL(_ id: UUID) -> String { APILink.cover(id).path }

    static func isLocal(_ url: String?) -> Bool { url?.hasPrefix("/api/v1/covers/") ?? false }
    static func isRemote(_ url: String?) -> Bool {
        guard let url else { return false }
        return url.hasPrefix("http://") || url.hasPrefix("https://")
    }

    /// The image type from its first bytes; `nil` for anything that is not a JPEG, PNG, GIF or WebP.
    static func sniff(_ data: Data) -> String? {
        let b = [UInt8](data.prefix(12))
        if b.count >= 3, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF { return "image/jpeg" }
        if b.count >= 8, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "image/png" }
        if b.count >= 6, b[0..<4] == [0x47, 0x49, 0x46, 0x38] { return "image/gif" }
        if b.count >= 12, b[0..<4] == [0x52, 0x49, 0x46, 0x46], b[8..<12] == [0x57, 0x45, 0x42, 0x50] { return "image/webp" }
        return nil
    }

    /// Stores an image (once per distinct content) and answers its id.
    static func store(_ data: Data, sourceURL: String?, now: Date, gate: WriteGate, on db: any Database) async throws -> UUID {
        try await gate.transaction(on: db) { db in
            try await insert(data, sourceURL: sourceURL, now: now, on: db,
                             refusal: { CatalogError.cover($0) })
        }
    }

    /// Every way a cover comes in (upload, provider download, restore) goes through here, inside the
    /// caller's transaction: the type is sniffed from the bytes (anything but JPEG, PNG, GIF and WebP is
    /// refused) and the hash is computed here from the bytes, never taken from a client.
    static func insert(_ data: Data, sourceURL: String?, now: Date, on db: any Database,
                       refusal: (CoverProblem) -> any Error) async throws -> UUID {
        guard data.count <= maxBytes else { throw refusal(.tooLarge(maxMB: maxBytes >> 20)) }
        guard let type = sniff(data) else { throw refusal(.notAnImage) }
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        struct Row: Decodable { var id: UUID }
        if let existing = try await db.sql.select().column("id").from("covers").where("sha256", .equal, hash).first(decoding: Row.self) {
            return existing.id
        }
        let id = UUID()
        let source = sourceURL.flatMap { (try? CoverURL.validate($0)) ?? nil }
        try await db.sql.insert(into: "covers")
            .columns("id", "sha256", "content_type", "bytes", "source_url", "created_at")
            .values(SQLBind(id), SQLBind(hash), SQLBind(type), SQLBind(data), SQLBind(source), SQLBind(now))
            .run()
        return id
    }

    /// Downloads a provider's cover and stores it. Placeholders (Open Library's 1×1 GIF) and
    /// non-images are refused.
    static func fetch(_ url: String, origin: CoverOrigin, fetcher: CoverFetcher, now: Date, gate: WriteGate, on db: any Database) async throws -> UUID {
        let response = try await fetcher.get(url, origin: origin)
        guard response.status == 200 else { throw ProviderFailure.httpStatus(response.status) }
        guard sniff(response.body) != nil else { throw ProviderFailure.malformed("the cover is not an image") }
        guard response.body.count >= 200 else { throw ProviderFailure.malformed("the cover is a placeholder") }
        return try await store(response.body, sourceURL: url, now: now, gate: gate, on: db)
    }

    struct Image: Sendable {
        var sha256: String
        var contentType: String
        var bytes: Data
    }

    static func load(_ id: UUID, on db: any Database) async throws -> Image? {
        struct Row: Decodable { var sha256: String; var content_type: String; var bytes: Data }
        return try await db.sql.select().columns("sha256", "content_type", "bytes").from("covers").where("id", .equal, id)
            .first(decoding: Row.self).map { Image(sha256: $0.sha256, contentType: $0.content_type, bytes: $0.bytes) }
    }
}
