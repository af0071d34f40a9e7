import Fluent
import SQLKit

struct CreateActivity: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("activities")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("at", .datetime, .required)
            .field("type", .string, .required)
            .field("title_id", .uuid)
            .field("title_text", .string)
            .field("author_text", .string)
            .field("member_card_id", .string)
            .field("info", .string)
            .field("actor", .string, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "activities_library_at").on("activities").column("library_id").column("at").run()
        try await sql.create(index: "activities_library_type_at").on("activities")
            .column("library_id").column("type").column("at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("activities").delete()
    }
}
