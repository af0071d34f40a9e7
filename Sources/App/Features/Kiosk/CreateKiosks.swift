import Fluent
import FluentSQL
import SQLKit

/// The self-service kiosk: a tablet by the door a librarian put in kiosk mode. The device
/// keeps the kiosk's token in a cookie (only its SHA-256 is here); a librarian's password ends it.
struct CreateKiosks: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("kiosks")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("started_by", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("kiosks").delete()
    }
}
