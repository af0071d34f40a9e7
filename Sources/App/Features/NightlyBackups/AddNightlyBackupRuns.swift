import Fluent
import SQLKit

/// The installation's nightly backup runs once a night and its restore drill once a month, whatever
/// the number of instances: their job rows (no library's) are unique by their night or month.
struct AddNightlyBackupRuns: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.sql.raw("CREATE UNIQUE INDEX jobs_nightly_backup ON jobs (period) WHERE kind = 'nightly_backup'").run()
        try await database.sql.raw("CREATE UNIQUE INDEX jobs_backup_drill ON jobs (period) WHERE kind = 'backup_drill'").run()
    }

    func revert(on database: any Database) async throws {
        try await database.sql.raw("DROP INDEX jobs_backup_drill").run()
        try await database.sql.raw("DROP INDEX jobs_nightly_backup").run()
    }
}
