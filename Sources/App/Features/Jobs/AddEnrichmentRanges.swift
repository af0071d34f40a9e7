import Fluent
import FluentSQL
import SQLKit

/// Filling in titles leaves nothing behind. An import's titles are filled in by one job per batch of
/// the import, naming the batch's ids as a range (`first_id` … `last_id`: ids made in order, so a
/// batch is one range of the primary key) walked with a cursor (`done_through`), instead of one row
/// per title; and a job that filled in its title is removed when it is done. The rows of finished
/// title jobs a database kept until now are removed here.
struct AddEnrichmentRanges: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds one at a time.
        for column in ["first_id", "last_id", "done_through"] {
            try await database.schema("jobs").field(FieldKey(stringLiteral: column), .uuid).update()
        }
        try await database.sql.raw("DELETE FROM jobs WHERE kind = 'enrich' AND state = 'done'").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DELETE FROM jobs WHERE kind = 'enrich' AND first_id IS NOT NULL").run()
        for column in ["first_id", "last_id", "done_through"] {
            try await database.schema("jobs").deleteField(FieldKey(stringLiteral: column)).update()
        }
    }
}
