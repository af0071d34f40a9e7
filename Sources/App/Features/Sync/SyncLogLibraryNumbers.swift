import Fluent
import FluentSQL
import SQLKit

/// Each library gets a number of its own (`libraries.no`, 1, 2, …, given as it is made), and the sync
/// log names a library by it instead of its 16-byte id: the log's largest column, twice per change
/// (in the row and in the feed's index), becomes one or two bytes. The id stays what the API, URLs,
/// backups and devices know; the number never leaves the database.
///
/// A log row refers to its library's number by a foreign key, so a deleted library's log goes with it
/// (it was deleted by name before, `Accounts.forgetLibrary`), and the triggers log a row only while its
/// library is there: the rows a library's deletion takes with it are not logged for a feed nobody reads.
/// The log's rows, versions and removals move as they are, so every device's cursor stays valid.
struct SyncLogLibraryNumbers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        try await sql.raw("ALTER TABLE libraries ADD COLUMN no INTEGER").run()
        if sqlite {
            try await sql.raw("UPDATE libraries SET no = (SELECT COUNT(*) FROM libraries o WHERE o.rowid <= libraries.rowid)").run()
            try await sql.raw("CREATE UNIQUE INDEX libraries_no ON libraries (no)").run()
            // The next number after the largest: a number freed by a deleted library took its log with it.
            try await sql.raw("""
                CREATE TRIGGER libraries_number AFTER INSERT ON libraries WHEN NEW.no IS NULL
                BEGIN UPDATE libraries SET no = (SELECT COALESCE(MAX(no), 0) + 1 FROM libraries) WHERE rowid = NEW.rowid; END
                """).run()
        } else {
            try await sql.raw("""
                UPDATE libraries SET no = n.rank FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS rank FROM libraries) n
                WHERE n.id = libraries.id
                """).run()
            try await sql.raw("ALTER TABLE libraries ADD CONSTRAINT libraries_no UNIQUE (no)").run()
            // Two libraries made at once take their numbers one after the other (the lock lasts to the commit).
            try await sql.raw("""
                CREATE FUNCTION libraries_number() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF NEW.no IS NULL THEN
                        PERFORM pg_advisory_xact_lock(\(unsafeRaw: String(Self.numberLock)));
                        NEW.no := (SELECT COALESCE(MAX(no), 0) + 1 FROM libraries);
                    END IF;
                    RETURN NEW;
                END $$
                """).run()
            try await sql.raw("CREATE TRIGGER libraries_number BEFORE INSERT ON libraries FOR EACH ROW EXECUTE FUNCTION libraries_number()").run()
        }
        try await rebuildLog(on: database, numbered: true)
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        try await rebuildLog(on: database, numbered: false)
        if sqlite {
            try await sql.raw("DROP TRIGGER libraries_number").run()
            try await sql.raw("DROP INDEX libraries_no").run()
        } else {
            try await sql.raw("DROP TRIGGER libraries_number ON libraries").run()
            try await sql.raw("DROP FUNCTION libraries_number()").run()
        }
        try await sql.raw("ALTER TABLE libraries DROP COLUMN no").run()
    }

    /// The key of the advisory lock under which PostgreSQL gives a new library its number.
    static let numberLock: Int64 = 0x5348_4C46_4E4F

    /// The log moved into a table naming libraries by number (or by id again), in the order of its key,
    /// with its indexes and its writers made for it.
    private func rebuildLog(on database: any Database, numbered: Bool) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        // The triggers name the log: they go first, so the tables can be swapped under them.
        if sqlite { try await CreateSyncLog.dropSQLiteTriggers(sql) }
        try await sql.raw("ALTER TABLE sync_log RENAME TO sync_log_old").run()
        try await sql.raw("DROP INDEX sync_log_feed").run()
        try await sql.raw("DROP INDEX sync_log_tombstones").run()
        let library = numbered ? "INTEGER NOT NULL REFERENCES libraries (no) ON DELETE CASCADE" : (sqlite ? "BLOB NOT NULL" : "UUID NOT NULL")
        if sqlite {
            try await sql.raw(SQLQueryString("""
                CREATE TABLE sync_log (kind SMALLINT NOT NULL, entity_id BLOB NOT NULL, library_id \(library), version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL, changed_at REAL, PRIMARY KEY (kind, entity_id)) WITHOUT ROWID
                """)).run()
        } else {
            try await sql.raw("ALTER INDEX sync_log_pkey RENAME TO sync_log_old_pkey").run()
            try await sql.raw(SQLQueryString("""
                CREATE TABLE sync_log (kind SMALLINT NOT NULL, entity_id UUID NOT NULL, library_id \(library), version BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL, changed_at TIMESTAMPTZ, CONSTRAINT sync_log_pkey PRIMARY KEY (kind, entity_id))
                """)).run()
        }
        // A row whose library is gone is dropped: nobody could read it.
        try await sql.raw(SQLQueryString("""
            INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
            SELECT s.kind, s.entity_id, \(numbered ? "l.no" : "l.id"), s.version, s.deleted, s.changed_at
            FROM sync_log_old s JOIN libraries l ON \(numbered ? "l.id" : "l.no") = s.library_id ORDER BY s.kind, s.entity_id
            """)).run()
        try await sql.raw("DROP TABLE sync_log_old").run()
        try await sql.raw("CREATE INDEX sync_log_feed ON sync_log (library_id, version, kind, entity_id)").run()
        try await sql.raw("CREATE INDEX sync_log_tombstones ON sync_log (library_id, changed_at) WHERE deleted").run()
        if sqlite {
            for var statement in CreateSyncLog.sqliteTriggersOfEveryKind(compact: true, numbered: numbered) {
                if !numbered {
                    // As `IdsAsBytes` left them: the tables' ids are bytes, written as they are.
                    for row in ["NEW.", "OLD."] {
                        let forms = IdsAsBytes.triggerForms(row)
                        statement = statement.replacingOccurrences(of: forms.text, with: forms.bytes)
                    }
                }
                try await sql.raw(SQLQueryString(statement)).run()
            }
        } else {
            try await sql.raw(SQLQueryString(Self.postgresFunction(numbered: numbered))).run()
        }
    }

    /// PostgreSQL's one writer of the log (`CompactSyncLog.postgresFunction`), naming the library by its
    /// number: a row whose library is being deleted is not written.
    static func postgresFunction(numbered: Bool) -> String {
        guard numbered else { return CompactSyncLog.postgresFunction(changedAt: "CASE WHEN c.gone THEN now() END") }
        return """
            CREATE OR REPLACE FUNCTION sync_log_write(k SMALLINT, ids UUID[], libraries UUID[], gone BOOLEAN[]) RETURNS void LANGUAGE sql AS $$
                INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
                SELECT DISTINCT ON (c.id) k, c.id, l.no, pg_current_xact_id()::text::bigint, c.gone, CASE WHEN c.gone THEN now() END
                FROM unnest(ids, libraries, gone) AS c(id, library_id, gone) JOIN libraries l ON l.id = c.library_id
                ORDER BY c.id, c.gone DESC
                ON CONFLICT (kind, entity_id) DO UPDATE SET library_id = EXCLUDED.library_id, version = EXCLUDED.version,
                    deleted = EXCLUDED.deleted, changed_at = EXCLUDED.changed_at
            $$
            """
    }
}
