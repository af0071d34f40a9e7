import Fluent

struct CreateAPIToken: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("api_tokens")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("token_hash", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "token_hash")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("api_tokens").delete()
    }
}
