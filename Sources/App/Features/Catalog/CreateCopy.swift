import Fluent
import SQLKit

struct CreateCopy: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("copies")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("copy_number", .int, .required)
            .field("barcode", .string, .required)
            .field("location", .string)
            .field("condition", .string)
            .field("status", .string, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .unique(on: "library_id", "barcode")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "copies_title_status").on("copies").column("title_id").column("status").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("copies").delete()
    }
}
