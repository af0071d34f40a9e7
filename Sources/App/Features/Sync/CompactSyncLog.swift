import Fluent
import FluentSQL
import SQLKit

/// The sync log at the size it must be. On SQLite: one row per changed thing, stored in the order of
/// its key (`WITHOUT ROWID`, so the key is not kept a second time in an index of its own), the thing's
/// id as its 16 bytes instead of 36 characters of text. On both: a time only where the daily prune
/// needs one (a removal). The feed's index (library, version, kind, id) is all else there is;
/// PostgreSQL's ids are 16 bytes already and its key is its only unique index.
///
/// What the log says does not change: the rows are moved as they are (versions, removals, their
/// times), so every device's cursor stays valid. The triggers are made again to write the new form.
struct CompactSyncLog: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else {
            let sql = database.sql
            try await sql.raw("ALTER TABLE sync_log ALTER COLUMN changed_at DROP NOT NULL").run()
            try await sql.raw("UPDATE sync_log SET changed_at = NULL WHERE NOT deleted").run()
            try await sql.raw(SQLQueryString(Self.postgresFunction(changedAt: "CASE WHEN c.gone THEN now() END"))).run()
            return
        }
        try await rebuild(on: database, compact: true)
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else {
            let sql = database.sql
            try await sql.raw(SQLQueryString(Self.postgresFunction(changedAt: "now()"))).run()
            try await sql.raw("UPDATE sync_log SET changed_at = now() WHERE changed_at IS NULL").run()
            try await sql.raw("ALTER TABLE sync_log ALTER COLUMN changed_at SET NOT NULL").run()
            return
        }
        try await rebuild(on: database, compact: false)
    }

    /// PostgreSQL's one writer of the log (`CreateSyncLog.postgresFunction`), with the time it writes.
    static func postgresFunction(changedAt: String) -> String {
        """
        CREATE OR REPLACE FUNCTION sync_log_write(k SMALLINT, ids UUID[], libraries UUID[], gone BOOLEAN[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
            SELECT DISTINCT ON (c.id) k, c.id, c.library_id, pg_current_xact_id()::text::bigint, c.gone, \(changedAt)
            FROM unnest(ids, libraries, gone) AS c(id, library_id, gone)
            ORDER BY c.id, c.gone DESC
            ON CONFLICT (kind, entity_id) DO UPDATE SET library_id = EXCLUDED.library_id, version = EXCLUDED.version,
                deleted = EXCLUDED.deleted, changed_at = EXCLUDED.changed_at
        $$
        """
    }

    /// The log moved into a table of the wanted form and the four kinds' triggers made again for it.
    private func rebuild(on database: any Database, compact: Bool) async throws {
        let sql = database.sql
        // The triggers name the log: they go first, so the tables can be swapped under them.
        try await CreateSyncLog.dropSQLiteTriggers(sql)
        if compact {
            try await sql.raw("""
                CREATE TABLE sync_log_new (kind SMALLINT NOT NULL, entity_id BLOB NOT NULL, library_id BLOB NOT NULL, version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL, changed_at REAL, PRIMARY KEY (kind, entity_id)) WITHOUT ROWID
                """).run()
            try await sql.raw("""
                INSERT INTO sync_log_new (kind, entity_id, library_id, version, deleted, changed_at)
                SELECT kind, CASE WHEN typeof(entity_id) = 'blob' THEN entity_id ELSE unhex(replace(entity_id, '-', '')) END,
                       library_id, version, deleted, CASE WHEN deleted THEN changed_at END
                FROM sync_log ORDER BY kind, 2
                """).run()
        } else {
            try await sql.raw("""
                CREATE TABLE sync_log_new (kind SMALLINT NOT NULL, entity_id BLOB NOT NULL, library_id BLOB NOT NULL, version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL, changed_at REAL NOT NULL, PRIMARY KEY (kind, entity_id))
                """).run()
            try await sql.raw(SQLQueryString("""
                INSERT INTO sync_log_new (kind, entity_id, library_id, version, deleted, changed_at)
                SELECT kind, \(Self.textID("entity_id")), library_id, version, deleted, COALESCE(changed_at, \(CreateSyncLog.now(sqlite: true))) FROM sync_log
                """)).run()
        }
        try await sql.raw("DROP TABLE sync_log").run()
        try await sql.raw("ALTER TABLE sync_log_new RENAME TO sync_log").run()
        try await sql.raw("CREATE INDEX sync_log_feed ON sync_log (library_id, version, kind, entity_id)").run()
        try await sql.raw("CREATE INDEX sync_log_tombstones ON sync_log (library_id, changed_at) WHERE deleted").run()
        for statement in CreateSyncLog.sqliteTriggersOfEveryKind(compact: compact) { try await sql.raw(SQLQueryString(statement)).run() }
    }

    /// An id kept as its 16 bytes, as upper-case text (as the API writes it and as tables kept ids before `IdsAsBytes`).
    static func textID(_ column: String) -> String {
        "(substr(hex(\(column)), 1, 8) || '-' || substr(hex(\(column)), 9, 4) || '-' || substr(hex(\(column)), 13, 4) || '-' || "
            + "substr(hex(\(column)), 17, 4) || '-' || substr(hex(\(column)), 21, 12))"
    }
}
