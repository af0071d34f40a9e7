import Fluent
import SQLKit

/// Reads (one per reading of a title by a reader: a user account or a member without a
/// login), their append-only progress events, and yearly goals.
struct CreateReading: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("reads")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .references("users", "id", onDelete: .cascade))
            .field("member_id", .uuid, .references("members", "id", onDelete: .cascade))
            .field("title_id", .uuid, .references("titles", "id", onDelete: .setNull))
            .field("title_text", .string, .required)
            .field("author_text", .string)
            .field("page_count", .int)
            .field("status", .string, .required)
            .field("started_at", .datetime)
            .field("finished_at", .datetime)
            .field("rating", .double)
            .field("review", .string)
            .field("progress_page", .int)
            .field("progress_fraction", .double)
            .field("progress_label", .string)
            .field("last_progress_at", .datetime)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "reads_user").on("reads").column("library_id").column("user_id").column("status").run()
        try await sql.create(index: "reads_member").on("reads").column("library_id").column("member_id").column("status").run()
        try await sql.create(index: "reads_title").on("reads").column("title_id").run()

        try await database.schema("progress_events")
            .id()
            .field("read_id", .uuid, .required, .references("reads", "id", onDelete: .cascade))
            .field("at", .datetime, .required)
            .field("unit", .string, .required)
            .field("value", .int)
            .field("label", .string)
            .field("created_at", .datetime, .required)
            .create()
        try await sql.create(index: "progress_events_read_at").on("progress_events").column("read_id").column("at").run()

        try await database.schema("reading_goals")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .references("users", "id", onDelete: .cascade))
            .field("member_id", .uuid, .references("members", "id", onDelete: .cascade))
            .field("reader_key", .string, .required)
            .field("year", .int, .required)
            .field("books", .int)
            .field("pages", .int)
            .unique(on: "library_id", "reader_key", "year")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("reading_goals").delete()
        try await database.schema("progress_events").delete()
        try await database.schema("reads").delete()
    }
}
