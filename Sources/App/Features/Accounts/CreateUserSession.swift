import Fluent

struct CreateUserSession: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("user_sessions")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("created_at", .datetime)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("user_sessions").delete()
    }
}
