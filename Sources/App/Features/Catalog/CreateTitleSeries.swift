import Fluent
import SQLKit

/// The series a title belongs to besides its own (`titles.series`): "Mort" is Discworld #4 and Death #1.
struct CreateTitleSeries: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("title_series")
            .id()
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("position", .int, .required)
            .field("name", .string, .required)
            .field("number", .string)
            .unique(on: "title_id", "position")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "title_series_name").on("title_series").column("name").column("title_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("title_series").delete()
    }
}
