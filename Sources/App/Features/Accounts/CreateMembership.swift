import Fluent

struct CreateMembership: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("memberships")
            .id()
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("role", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "user_id", "library_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("memberships").delete()
    }
}
