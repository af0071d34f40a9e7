import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The sync feed's log. One row per thing a client keeps — a title, a copy, a member, an
/// open loan — with the version of its last change and whether it left the client's set (a tombstone:
/// deleted, a title moved to the wishlist, a loan returned). Kept by triggers on the four tables, so every
/// path that writes (a service, an import, a restore, a command) is in the feed without knowing of it.
///
/// The version is taken inside the writing transaction and commits in order of versions as a reader
/// sees it, so a cursor never skips a change that commits late:
/// - SQLite: one counter (`sync_clock`), bumped by each row's trigger; SQLite has one writer at a time,
///   so versions commit in the order they are taken.
/// - PostgreSQL: the writing transaction's id (`pg_current_xact_id()`), and a reader only returns versions
///   below the oldest transaction still running (`pg_snapshot_xmin`): whatever is below has committed or
///   never will. Nothing is serialised; a long write only holds back what readers are told, not writers.
///
/// `sync_mutations` remembers each pushed mutation's answer by user, library, client and number: a push
/// sent again is answered from here and applied never twice. `libraries.sync_floor` is the newest
/// version whose tombstones were purged: a cursor below it must fetch everything again.
struct CreateSyncLog: AsyncMigration {
    /// The kinds of thing in the feed, by their number in `sync_log.kind`.
    enum Kind: Int, CaseIterable, Sendable {
        case title = 1, copy = 2, member = 3, loan = 4

        var table: String {
            switch self {
            case .title: "titles"
            case .copy: "copies"
            case .member: "members"
            case .loan: "loans"
            }
        }

        /// The columns a client is sent: a change to any other (a title's loan count, a loan's reminder
        /// stage) is not a change in the feed.
        var columns: [String] {
            switch self {
            case .title: ["library_id", "title", "subtitle", "authors", "isbn13", "publisher", "published_date", "page_count", "series",
                          "series_number", "reading_level", "cover_url", "wishlist"]
            case .copy: ["library_id", "title_id", "barcode", "copy_number", "status", "location"]
            case .member: ["library_id", "card_id", "first_name", "last_name", "grade", "suspended_until"]
            case .loan: ["library_id", "copy_id", "member_id", "title_id", "due_at", "returned_at", "renewals"]
            }
        }

        /// Whether the row (of `prefix`, "NEW." or none) has left the client's set.
        func gone(_ prefix: String) -> String {
            switch self {
            case .title: "\(prefix)wishlist"
            case .loan: "(\(prefix)returned_at IS NOT NULL)"
            case .copy, .member: "FALSE"
            }
        }
    }

    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        let sqlite = Dialect(database) == .sqlite
        let uuid = sqlite ? "BLOB" : "UUID"
        let time = sqlite ? "REAL" : "TIMESTAMPTZ"
        try await sql.raw(SQLQueryString(String("""
            CREATE TABLE sync_log (kind SMALLINT NOT NULL, entity_id \(uuid) NOT NULL, library_id \(uuid) NOT NULL,
                version BIGINT NOT NULL, deleted BOOLEAN NOT NULL, changed_at \(time) NOT NULL, PRIMARY KEY (kind, entity_id))
            """))).run()
        try await sql.raw("CREATE INDEX sync_log_feed ON sync_log (library_id, version, kind, entity_id)").run()
        try await sql.raw("CREATE INDEX sync_log_tombstones ON sync_log (library_id, changed_at) WHERE deleted").run()
        try await sql.raw(SQLQueryString(String("""
            CREATE TABLE sync_mutations (user_id \(uuid) NOT NULL, library_id \(uuid) NOT NULL, client_id TEXT NOT NULL, seq BIGINT NOT NULL,
                outcome TEXT NOT NULL, created_at \(time) NOT NULL, PRIMARY KEY (user_id, library_id, client_id, seq))
            """))).run()
        try await sql.raw("CREATE INDEX sync_mutations_age ON sync_mutations (created_at)").run()
        try await sql.raw("ALTER TABLE libraries ADD COLUMN sync_floor BIGINT NOT NULL DEFAULT 0").run()
        if sqlite {
            try await sql.raw("CREATE TABLE sync_clock (id INTEGER PRIMARY KEY, version BIGINT NOT NULL)").run()
            try await sql.raw("INSERT INTO sync_clock (id, version) VALUES (1, 0)").run()
        } else {
            try await sql.raw(SQLQueryString(Self.postgresFunction)).run()
        }
        for kind in Kind.allCases {
            for statement in sqlite ? Self.sqliteTriggers(kind) : Self.postgresTriggers(kind) {
                try await sql.raw(SQLQueryString(statement)).run()
            }
            // What is there today, at version 0: a first pull sends it all (no tombstones: nothing was sent yet).
            try await sql.raw(SQLQueryString(String("""
                INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
                SELECT \(kind.rawValue), id, library_id, 0, FALSE, \(Self.now(sqlite: sqlite)) FROM \(kind.table) WHERE NOT \(kind.gone(""))
                """))).run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for kind in Kind.allCases {
            for event in ["insert", "update", "delete"] {
                let name = "sync_\(kind.table)_\(event)"
                try await sql.raw(SQLQueryString(Dialect(database) == .sqlite ? "DROP TRIGGER IF EXISTS \(name)" : "DROP TRIGGER IF EXISTS \(name) ON \(kind.table)")).run()
            }
        }
        if Dialect(database) == .sqlite {
            try await sql.raw("DROP TABLE sync_clock").run()
        } else {
            for kind in Kind.allCases {
                for event in ["insert", "update", "delete"] { try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS sync_\(kind.table)_\(event)()")).run() }
            }
            try await sql.raw("DROP FUNCTION IF EXISTS sync_log_write(SMALLINT, UUID[], UUID[], BOOLEAN[])").run()
        }
        try await sql.raw("ALTER TABLE libraries DROP COLUMN sync_floor").run()
        try await sql.raw("DROP TABLE sync_mutations").run()
        try await sql.raw("DROP TABLE sync_log").run()
    }

    static func now(sqlite: Bool) -> String { sqlite ? "((julianday('now') - 2440587.5) * 86400.0)" : "now()" }

    // MARK: SQLite: row triggers, each taking the next version from the clock.

    /// Drops the four kinds' triggers (SQLite), so the log can be rebuilt under them.
    static func dropSQLiteTriggers(_ sql: any SQLDatabase) async throws {
        for kind in Kind.allCases {
            for event in ["insert", "update", "delete"] {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS sync_\(kind.table)_\(event)")).run()
            }
        }
    }

    /// Every kind's triggers in the form `compact` and `numbered` say, the members' watching who leaves
    /// (`ArchivedMembersLeaveTheFeed`): what a rebuild of the log makes again after it. (Once copies name
    /// their library by number, their triggers are these rewritten by `LibraryNumberRemake.rewrite`.)
    static func sqliteTriggersOfEveryKind(compact: Bool, numbered: Bool = false) -> [String] {
        Kind.allCases.flatMap { kind in
            kind == .member
                ? sqliteTriggers(.member, columns: ArchivedMembersLeaveTheFeed.columns, gone: ArchivedMembersLeaveTheFeed.gone,
                                 compact: compact, numbered: numbered)
                : sqliteTriggers(kind, compact: compact, numbered: numbered)
        }
    }

    /// `columns` and `gone` are the kind's own unless a later migration widens them (members who leave).
    /// `compact`: the log as `CompactSyncLog` keeps it (the id as its 16 bytes, a time only for a removal).
    /// `numbered`: as `SyncLogLibraryNumbers` keeps it (compact, the tables' ids already bytes, the library
    /// by its number; a row of a library being deleted is not logged, the library's log goes with it).
    static func sqliteTriggers(_ kind: Kind, columns: [String]? = nil, gone: ((String) -> String)? = nil, compact: Bool = false,
                               numbered: Bool = false) -> [String] {
        let gone = gone ?? kind.gone
        func log(_ row: String, gone: String) -> String {
            let changedAt = compact || numbered ? "CASE WHEN \(gone) THEN \(now(sqlite: true)) END" : now(sqlite: true)
            let values = numbered
                ? "SELECT \(kind.rawValue), \(row)id, l.no, (SELECT version FROM sync_clock WHERE id = 1), \(gone), \(changedAt) FROM libraries l WHERE l.id = \(row)library_id"
                : "VALUES (\(kind.rawValue), \(compact ? "unhex(replace(\(row)id, '-', ''))" : "\(row)id"), \(row)library_id, (SELECT version FROM sync_clock WHERE id = 1), \(gone), \(changedAt))"
            return """
            UPDATE sync_clock SET version = version + 1 WHERE id = 1;
            INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
            \(values)
            ON CONFLICT (kind, entity_id) DO UPDATE SET library_id = excluded.library_id, version = excluded.version,
                deleted = excluded.deleted, changed_at = excluded.changed_at;
            """
        }
        let changed = (columns ?? kind.columns).map { "OLD.\($0) IS NOT NEW.\($0)" }.joined(separator: " OR ")
        return [
            "CREATE TRIGGER sync_\(kind.table)_insert AFTER INSERT ON \(kind.table) BEGIN \(log("NEW.", gone: gone("NEW."))) END",
            "CREATE TRIGGER sync_\(kind.table)_update AFTER UPDATE ON \(kind.table) WHEN \(changed) BEGIN \(log("NEW.", gone: gone("NEW."))) END",
            "CREATE TRIGGER sync_\(kind.table)_delete AFTER DELETE ON \(kind.table) BEGIN \(log("OLD.", gone: "TRUE")) END",
        ]
    }

    // MARK: PostgreSQL: statement triggers with transition tables (a bulk import is one insert per statement).
    // A row may stand in a transition table more than once (deleting a title sets a loan's copy and title
    // to NULL in two cascaded actions), so each row is written once per statement.

    static let postgresFunction = """
        CREATE FUNCTION sync_log_write(k SMALLINT, ids UUID[], libraries UUID[], gone BOOLEAN[]) RETURNS void LANGUAGE sql AS $$
            INSERT INTO sync_log (kind, entity_id, library_id, version, deleted, changed_at)
            SELECT DISTINCT ON (c.id) k, c.id, c.library_id, pg_current_xact_id()::text::bigint, c.gone, now()
            FROM unnest(ids, libraries, gone) AS c(id, library_id, gone)
            ORDER BY c.id, c.gone DESC
            ON CONFLICT (kind, entity_id) DO UPDATE SET library_id = EXCLUDED.library_id, version = EXCLUDED.version,
                deleted = EXCLUDED.deleted, changed_at = EXCLUDED.changed_at
        $$
        """

    /// `rows`: the transition table as the functions read it (copies with their library's id beside its
    /// number, `LibraryNumberRemake`).
    static func postgresTriggers(_ kind: Kind, columns: [String]? = nil, gone goneOf: ((String) -> String)? = nil,
                                 rows: (String) -> String = { $0 }) -> [String] {
        let name = "sync_\(kind.table)"
        let columns = columns ?? kind.columns
        func function(_ event: String, _ rows: String) -> String {
            """
            CREATE FUNCTION \(name)_\(event)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM sync_log_write(\(kind.rawValue)::smallint, array_agg(id), array_agg(library_id), array_agg(gone))
                FROM (\(rows)) changed HAVING COUNT(*) > 0;
                RETURN NULL;
            END $$
            """
        }
        let changed = "(" + columns.map { "o.\($0)" }.joined(separator: ", ") + ") IS DISTINCT FROM ("
            + columns.map { "n.\($0)" }.joined(separator: ", ") + ")"
        let gone = (goneOf ?? kind.gone)("n.")
        return [
            function("insert", "SELECT n.id, n.library_id, \(gone) AS gone FROM \(rows("new_rows")) n"),
            function("update", "SELECT n.id, n.library_id, \(gone) AS gone FROM \(rows("new_rows")) n JOIN \(rows("old_rows")) o ON o.id = n.id WHERE \(changed)"),
            function("delete", "SELECT o.id, o.library_id, TRUE AS gone FROM \(rows("old_rows")) o"),
            "CREATE TRIGGER \(name)_insert AFTER INSERT ON \(kind.table) REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION \(name)_insert()",
            """
            CREATE TRIGGER \(name)_update AFTER UPDATE ON \(kind.table) REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION \(name)_update()
            """,
            "CREATE TRIGGER \(name)_delete AFTER DELETE ON \(kind.table) REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION \(name)_delete()",
        ]
    }
}
