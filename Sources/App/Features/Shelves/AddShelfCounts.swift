import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The Shelves page counted every shelf's copies row by row (nine shelves of 333,000 copies at
/// a million titles: 1.5 s). `shelf_counts` holds how many copies stand at each location of a library
/// (withdrawn ones left out, as the page counts them), kept by triggers on `copies` as `copy_counts` is
/// (`AddCopyCounts`): row triggers on SQLite, statement triggers with transition tables on PostgreSQL.
/// It is keyed by the location text, not by the shelf, so a copy written before its shelf is made, a
/// shelf renamed with its copies, or a shelf deleted and made again all keep the right number. Lending
/// and returning change neither location nor withdrawal, so they change no count and lock none.
struct AddShelfCounts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("""
            CREATE TABLE shelf_counts (library_id \(unsafeRaw: Dialect(database).uuidType) NOT NULL, location TEXT NOT NULL,
                n BIGINT NOT NULL, PRIMARY KEY (library_id, location))
            """).run()
        for statement in Dialect(database) == .sqlite ? Self.sqliteTriggers : Self.postgresTriggers {
            try await sql.raw(SQLQueryString(statement)).run()
        }
        try await sql.raw("""
            INSERT INTO shelf_counts (library_id, location, n)
            SELECT library_id, location, COUNT(*) FROM copies WHERE \(unsafeRaw: Self.counted("")) GROUP BY library_id, location
            """).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for name in ["shelf_counts_insert", "shelf_counts_delete", "shelf_counts_update"] {
            if Dialect(database) == .sqlite {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)")).run()
            } else {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name) ON copies")).run()
                try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run()
            }
        }
        try await sql.raw("DROP TABLE shelf_counts").run()
    }

    /// Whether the copy of the row named by `prefix` ("NEW.", "OLD." or none) stands at a location
    /// the Shelves page counts.
    static func counted(_ prefix: String) -> String { "(\(prefix)location IS NOT NULL AND \(prefix)status <> 'withdrawn')" }

    // SQLite's upsert after a SELECT needs the SELECT's WHERE (else `ON` is read as a join).
    static let add = """
        INSERT INTO shelf_counts (library_id, location, n) SELECT NEW.library_id, NEW.location, 1 WHERE \(counted("NEW."))
        ON CONFLICT (library_id, location) DO UPDATE SET n = n + 1;
        """
    static let remove = "UPDATE shelf_counts SET n = n - 1 WHERE \(counted("OLD.")) AND library_id = OLD.library_id AND location = OLD.location;"

    static let sqliteTriggers = [
        "CREATE TRIGGER shelf_counts_insert AFTER INSERT ON copies BEGIN \(add) END",
        "CREATE TRIGGER shelf_counts_delete AFTER DELETE ON copies BEGIN \(remove) END",
        """
        CREATE TRIGGER shelf_counts_update AFTER UPDATE OF library_id, location, status ON copies
        WHEN OLD.library_id IS NOT NEW.library_id OR OLD.location IS NOT NEW.location OR \(counted("OLD.")) IS NOT \(counted("NEW."))
        BEGIN \(remove) \(add) END
        """,
    ]

    static let postgresTriggers = postgresTriggers(numbered: false)

    /// `numbered`: copies name their library by number (`CopiesByLibraryNumber`), the counts by id.
    static func postgresTriggers(numbered: Bool) -> [String] {
        let from = { (table: String) in numbered ? "\(LibraryNumberRemake.postgresRows(table)) \(table)" : table }
        func function(_ name: String, _ rows: String) -> String {
            """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO shelf_counts (library_id, location, n)
                SELECT library_id, location, SUM(d) FROM (\(rows)) changed GROUP BY library_id, location HAVING SUM(d) <> 0
                ON CONFLICT (library_id, location) DO UPDATE SET n = shelf_counts.n + EXCLUDED.n;
                RETURN NULL;
            END $$
            """
        }
        let added = "SELECT library_id, location, 1 AS d FROM \(from("new_rows")) WHERE \(counted(""))"
        let removed = "SELECT library_id, location, -1 AS d FROM \(from("old_rows")) WHERE \(counted(""))"
        return [
            function("shelf_counts_insert", added),
            function("shelf_counts_delete", removed),
            function("shelf_counts_update", added + " UNION ALL " + removed),
            "CREATE TRIGGER shelf_counts_insert AFTER INSERT ON copies REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION shelf_counts_insert()",
            "CREATE TRIGGER shelf_counts_delete AFTER DELETE ON copies REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION shelf_counts_delete()",
            """
            CREATE TRIGGER shelf_counts_update AFTER UPDATE ON copies REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION shelf_counts_update()
            """,
        ]
    }
}
