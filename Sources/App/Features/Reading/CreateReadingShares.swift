import Fluent

/// A reader's year summary shared by a secret link (a random token in the address; the reader can
/// stop sharing, which ends the link).
struct CreateReadingShares: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("reading_shares")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("year", .int, .required)
            .field("token", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "token")
            .unique(on: "library_id", "user_id", "year")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("reading_shares").delete()
    }
}
