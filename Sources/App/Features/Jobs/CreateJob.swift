import Fluent
import SQLKit

/// Long work done in the background (`Jobs`): imports and restores. A job belongs to the user who
/// started it, is seen on the page of the library it was started from (`library_id`; none once that
/// library is gone) and writes into `target_library_id` (the same library, or a new one); at most one
/// job at a time writes into a library, by a partial unique index.
struct CreateJob: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("jobs")
            .id()
            .field("library_id", .uuid, .references("libraries", "id", onDelete: .setNull))
            .field("target_library_id", .uuid)
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("state", .string, .required)
            .field("lease_until", .datetime)
            .field("rows_read", .int, .required)
            .field("titles_created", .int, .required)
            .field("copies_added", .int, .required)
            .field("result", .string)
            .field("failure", .string)
            .field("created_at", .datetime, .required)
            .field("finished_at", .datetime)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX jobs_one_running ON jobs (target_library_id) WHERE state = 'running'").run()
        try await sql.create(index: "jobs_library").on("jobs").column("library_id").column("created_at").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("jobs").delete()
    }
}
