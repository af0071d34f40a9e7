import Fluent
import SQLKit

/// Photos of book pages a reader keeps: the original as uploaded, the page's corners, the
/// straightened page and its thumbnail, and the markup (a separate layer, editable again).
struct CreatePagePhotos: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("page_photos")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("page", .string)
            .field("original", .data, .required)
            .field("original_width", .int, .required)
            .field("original_height", .int, .required)
            .field("corners", .string)
            .field("image", .data, .required)
            .field("width", .int, .required)
            .field("height", .int, .required)
            .field("thumbnail", .data, .required)
            .field("markup", .string)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "page_photos_title").on("page_photos").column("title_id").column("user_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("page_photos").delete()
    }
}
