import Fluent

struct CreateMember: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("members")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("card_id", .string, .required)
            .field("first_name", .string, .required)
            .field("last_name", .string, .required)
            .field("grade", .string)
            .field("email", .string)
            .field("notes", .string)
            .field("search_text", .string, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "library_id", "card_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("members").delete()
    }
}
