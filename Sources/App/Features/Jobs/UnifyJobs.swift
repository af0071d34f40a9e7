import Fluent
import SQLKit

/// One job system. Filling in titles (`enrichment_jobs`) becomes jobs of kind `enrich` in
/// `jobs`, which gains what a queued job needs (`subject_id`: the title; `attempts`, `run_after`,
/// `lease_owner`, `last_error`) and what a recurring run needs (`period`: the day or week it ran
/// for, unique per kind and library, so a period runs exactly once whatever the number of
/// instances). A job started by the server itself has no user (`user_id` may be NULL). The table is
/// built anew (SQLite cannot drop a NOT NULL) with every row of both tables moved into it.
struct UnifyJobs: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("jobs_unified")
            .id()
            .field("library_id", .uuid, .references("libraries", "id", onDelete: .setNull))
            .field("target_library_id", .uuid)
            .field("user_id", .uuid, .references("users", "id", onDelete: .cascade))
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
            .field("subject_id", .uuid)
            .field("attempts", .int, .required)
            .field("run_after", .datetime)
            .field("lease_owner", .string)
            .field("last_error", .string)
            .field("period", .string)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("""
            INSERT INTO jobs_unified (id, library_id, target_library_id, user_id, kind, state, lease_until, rows_read, titles_created,
                                      copies_added, result, failure, created_at, finished_at, attempts)
            SELECT id, library_id, target_library_id, user_id, kind, state, lease_until, rows_read, titles_created,
                   copies_added, result, failure, created_at, finished_at, 0
            FROM jobs
            """).run()
        try await sql.raw("""
            INSERT INTO jobs_unified (id, library_id, user_id, kind, state, lease_until, rows_read, titles_created, copies_added,
                                      created_at, finished_at, subject_id, attempts, run_after, lease_owner, last_error)
            SELECT id, library_id, NULL, 'enrich', state, lease_until, 0, 0, 0,
                   created_at, CASE WHEN state IN ('done', 'failed') THEN updated_at END, title_id, attempts, run_after, lease_owner, last_error
            FROM enrichment_jobs
            """).run()
        try await database.schema("enrichment_jobs").delete()
        try await database.schema("jobs").delete()
        try await sql.raw("ALTER TABLE jobs_unified RENAME TO jobs").run()
        try await sql.raw("CREATE UNIQUE INDEX jobs_one_running ON jobs (target_library_id) WHERE state = 'running'").run()
        try await sql.raw("CREATE INDEX jobs_library ON jobs (library_id, kind, created_at)").run()
        try await sql.raw("CREATE UNIQUE INDEX jobs_subject ON jobs (kind, subject_id) WHERE subject_id IS NOT NULL").run()
        try await sql.raw("CREATE UNIQUE INDEX jobs_period ON jobs (kind, library_id, period) WHERE period IS NOT NULL").run()
        try await sql.raw("CREATE INDEX jobs_due ON jobs (kind, state, run_after)").run()
    }

    /// Back to two tables: the queued jobs return to `enrichment_jobs`; recurring runs and jobs
    /// without a user are dropped (the old table cannot hold them).
    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await database.schema("jobs_old")
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
        try await CreateEnrichmentJob().prepare(on: database)
        try await sql.raw("""
            INSERT INTO jobs_old SELECT id, library_id, target_library_id, user_id, kind, state, lease_until, rows_read, titles_created,
                   copies_added, result, failure, created_at, finished_at
            FROM jobs WHERE kind IN ('import', 'restore') AND user_id IS NOT NULL
            """).run()
        try await sql.raw("""
            INSERT INTO enrichment_jobs (id, library_id, title_id, state, attempts, run_after, lease_until, lease_owner, last_error, created_at, updated_at)
            SELECT j.id, j.library_id, j.subject_id, j.state, j.attempts, j.run_after, j.lease_until, j.lease_owner, j.last_error, j.created_at,
                   COALESCE(j.finished_at, j.created_at)
            FROM jobs j JOIN titles t ON t.id = j.subject_id WHERE j.kind = 'enrich' AND j.library_id IS NOT NULL
            """).run()
        try await database.schema("jobs").delete()
        try await sql.raw("ALTER TABLE jobs_old RENAME TO jobs").run()
        try await sql.raw("CREATE UNIQUE INDEX jobs_one_running ON jobs (target_library_id) WHERE state = 'running'").run()
        try await sql.create(index: "jobs_library").on("jobs").column("library_id").column("created_at").run()
    }
}
