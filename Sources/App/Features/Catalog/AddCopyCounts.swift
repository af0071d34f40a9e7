import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The dashboard counted a library's copies row by row (300,000 copies: 55 ms). `copy_counts`
/// holds how many copies each library has in circulation (available or on loan) and out of it (lost,
/// damaged, withdrawn), kept by triggers on `copies` as `title_counts` is kept on `titles`
/// (`AddTitleListKeys`): row triggers on SQLite, statement triggers with transition tables on
/// PostgreSQL. Lending and returning move a copy within circulation, so they change no count and take
/// no lock on one: concurrent check-outs do not queue on a counter.
struct AddCopyCounts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("""
            CREATE TABLE copy_counts (library_id \(unsafeRaw: Dialect(database).uuidType) NOT NULL, circulating BOOLEAN NOT NULL,
                n BIGINT NOT NULL, PRIMARY KEY (library_id, circulating))
            """).run()
        for statement in Dialect(database) == .sqlite ? Self.sqliteTriggers : Self.postgresTriggers {
            try await sql.raw(SQLQueryString(statement)).run()
        }
        try await sql.raw("INSERT INTO copy_counts (library_id, circulating, n) SELECT library_id, \(unsafeRaw: Self.circulating("")), COUNT(*) FROM copies GROUP BY 1, 2").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for name in ["copy_counts_insert", "copy_counts_delete", "copy_counts_update"] {
            if Dialect(database) == .sqlite {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)")).run()
            } else {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name) ON copies")).run()
                try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run()
            }
        }
        try await sql.raw("DROP TABLE copy_counts").run()
    }

    /// Whether a copy's status is in circulation, of the row named by `prefix` ("NEW.", "OLD." or none).
    static func circulating(_ prefix: String) -> String { "(\(prefix)status IN ('available', 'on_loan'))" }

    static let add = """
        INSERT INTO copy_counts (library_id, circulating, n) VALUES (NEW.library_id, \(circulating("NEW.")), 1)
        ON CONFLICT (library_id, circulating) DO UPDATE SET n = n + 1;
        """
    static let remove = "UPDATE copy_counts SET n = n - 1 WHERE library_id = OLD.library_id AND circulating = \(circulating("OLD."));"

    static let sqliteTriggers = [
        "CREATE TRIGGER copy_counts_insert AFTER INSERT ON copies BEGIN \(add) END",
        "CREATE TRIGGER copy_counts_delete AFTER DELETE ON copies BEGIN \(remove) END",
        """
        CREATE TRIGGER copy_counts_update AFTER UPDATE OF library_id, status ON copies
        WHEN OLD.library_id IS NOT NEW.library_id OR \(circulating("OLD.")) IS NOT \(circulating("NEW."))
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
                INSERT INTO copy_counts (library_id, circulating, n)
                SELECT library_id, circulating, SUM(d) FROM (\(rows)) changed GROUP BY library_id, circulating HAVING SUM(d) <> 0
                ON CONFLICT (library_id, circulating) DO UPDATE SET n = copy_counts.n + EXCLUDED.n;
                RETURN NULL;
            END $$
            """
        }
        let added = "SELECT library_id, \(circulating("")) AS circulating, 1 AS d FROM \(from("new_rows"))"
        let removed = "SELECT library_id, \(circulating("")) AS circulating, -1 AS d FROM \(from("old_rows"))"
        return [
            function("copy_counts_insert", added),
            function("copy_counts_delete", removed),
            function("copy_counts_update", added + " UNION ALL " + removed),
            "CREATE TRIGGER copy_counts_insert AFTER INSERT ON copies REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION copy_counts_insert()",
            "CREATE TRIGGER copy_counts_delete AFTER DELETE ON copies REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION copy_counts_delete()",
            """
            CREATE TRIGGER copy_counts_update AFTER UPDATE ON copies REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION copy_counts_update()
            """,
        ]
    }
}
