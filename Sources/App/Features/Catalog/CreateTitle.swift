import Fluent
import SQLKit

struct CreateTitle: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("titles")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("isbn13", .string)
            .field("title", .string, .required)
            .field("subtitle", .string)
            .field("authors", .array(of: .string), .required)
            .field("publisher", .string)
            .field("published_date", .string)
            .field("page_count", .int)
            .field("language", .string)
            .field("description", .string)
            .field("cover_url", .string)
            .field("notes", .string)
            .field("favorite", .bool, .required)
            .field("rating", .double)
            .field("wishlist", .bool, .required)
            .field("series", .string)
            .field("series_number", .string)
            .field("reading_level", .string)
            .field("sort_key", .string, .required)
            .field("section", .string, .required)
            .field("search_text", .string, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "titles_library_isbn").on("titles").column("library_id").column("isbn13").run()
        try await sql.create(index: "titles_library_sort").on("titles")
            .column("library_id").column("wishlist").column("section").column("sort_key").run()
        try await sql.create(index: "titles_library_sort_key").on("titles")
            .column("library_id").column("wishlist").column("sort_key").run()
        try await sql.create(index: "titles_library_created").on("titles")
            .column("library_id").column("wishlist").column("created_at").run()
        try await sql.create(index: "titles_library_favorite").on("titles")
            .column("library_id").column("wishlist").column("favorite").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("titles").delete()
    }
}
