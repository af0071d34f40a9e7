import Fluent
import SQLKit

/// Quotes and notes a reader keeps from a book, with the page; a quote may come from a page
/// photo (its text read by OCR and trimmed by the reader).
struct CreateQuotes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("quotes")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("page", .string)
            .field("text", .string, .required)
            .field("note", .string)
            .field("photo_id", .uuid)
            .field("search_text", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "quotes_user").on("quotes").column("library_id").column("user_id").column("created_at").run()
        try await sql.create(index: "quotes_title").on("quotes").column("title_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("quotes").delete()
    }
}
