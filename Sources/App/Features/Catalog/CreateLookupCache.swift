import Fluent
import SQLKit

/// Metadata lookups by ISBN, shared by all libraries: a found record or a definite "not found",
/// with the time it was fetched (the cache's age).
struct CreateLookupCache: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("lookup_cache")
            .id()
            .field("isbn13", .string, .required)
            .field("found", .bool, .required)
            .field("record", .string)
            .field("outcomes", .string, .required)
            .field("fetched_at", .datetime, .required)
            .unique(on: "isbn13")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("lookup_cache").delete()
    }
}

/// Cover images the app stores and serves itself, so a catalog keeps its covers offline.
/// One row per distinct image (by SHA-256).
struct CreateCover: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("covers")
            .id()
            .field("sha256", .string, .required)
            .field("content_type", .string, .required)
            .field("bytes", .data, .required)
            .field("source_url", .string)
            .field("created_at", .datetime, .required)
            .unique(on: "sha256")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("covers").delete()
    }
}

/// Durable background jobs that complete a title's metadata. One row per title; a worker
/// claims a due row with a lease, so a crashed worker's job becomes due again when the lease ends.
struct CreateEnrichmentJob: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("enrichment_jobs")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("state", .string, .required)
            .field("attempts", .int, .required)
            .field("run_after", .datetime, .required)
            .field("lease_until", .datetime)
            .field("lease_owner", .string)
            .field("last_error", .string)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "title_id")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "enrichment_jobs_due").on("enrichment_jobs").column("state").column("run_after").run()
        try await sql.create(index: "enrichment_jobs_library").on("enrichment_jobs").column("library_id").column("state").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("enrichment_jobs").delete()
    }
}
