import Fluent
import SQLKit

/// The installation's nightly backup runs once a night whatever the number of instances: its job
/// rows (no library's) are unique by their night.
struct AddNightlyBackupRuns: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("CREATE UNIQUE INDEX jobs_nightly_backup ON jobs (period) WHERE kind = 'nightly_backup'").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DROP INDEX jobs_nightly_backup").run()
    }
}
