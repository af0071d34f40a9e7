import Fluent
import SQLKit

struct CreateCategory: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("categories")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "library_id", "name")
            .create()
        try await database.schema("title_categories")
            .id()
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("category_id", .uuid, .required, .references("categories", "id", onDelete: .cascade))
            .unique(on: "title_id", "category_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "title_categories_category").on("title_categories").column("category_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("title_categories").delete()
        try await database.schema("categories").delete()
    }
}
