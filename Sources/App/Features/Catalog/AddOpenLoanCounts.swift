import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The "On loan" list read off the titles themselves. It found the library's open loans first and
/// looked each of their titles up by id: at 100,000 titles with 3,000 on loan, its A–Z counts alone
/// took 14 ms, and the page missed 25 ms.
///
/// - `titles.open_loans`: how many of the title's loans are open, kept by triggers on `loans` for every
///   write however it is made (lending, returns, offline lending, a restore, a member forgotten): row
///   triggers on SQLite, statement triggers with transition tables on PostgreSQL. A check-out adds to
///   the count (`open_loans + 1`), so two check-outs at once both count on PostgreSQL. The same update
///   adds to `loan_count`, which the check-out and the sync push kept in a second update of the title.
/// - `title_counts` gains a dimension, `on_loan` (a title with an open loan), so the list's total, its
///   A–Z counts and where a letter starts are sums of a few dozen rows, as for the whole catalog.
/// - `titles_on_loan`: a partial index of the titles on loan in A–Z order (a few thousand entries where
///   the catalog has a hundred thousand), so a page of them is read off it in order. A query uses it
///   when its condition names the same expression, `t.open_loans > 0` (`TitleQuery.whereClause`).
struct AddOpenLoanCounts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        try await database.schema("titles").field("open_loans", .int, .required, .sql(.default(0))).update()
        try await sql.raw("""
            UPDATE titles SET open_loans = (SELECT COUNT(*) FROM loans l WHERE l.title_id = titles.id AND l.returned_at IS NULL)
            WHERE id IN (SELECT title_id FROM loans WHERE returned_at IS NULL)
            """).run()
        try await dropTriggers(Self.countTriggerNames, on: "titles", database)
        try await sql.raw("DROP TABLE title_counts").run()
        try await sql.raw("""
            CREATE TABLE title_counts (library_id \(unsafeRaw: Dialect(database).uuidType) NOT NULL, wishlist BOOLEAN NOT NULL,
                section TEXT NOT NULL, favorite BOOLEAN NOT NULL, early BOOLEAN NOT NULL, on_loan BOOLEAN NOT NULL, n BIGINT NOT NULL,
                PRIMARY KEY (library_id, wishlist, section, favorite, early, on_loan))
            """).run()
        for statement in sqlite ? Self.sqliteCountTriggers + Self.sqliteLoanTriggers : Self.postgresCountTriggers + Self.postgresLoanTriggers {
            try await sql.raw(SQLQueryString(statement)).run()
        }
        try await sql.raw("""
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, on_loan, n)
            SELECT library_id, wishlist, section, favorite, sort_key < 'a', open_loans > 0, COUNT(*) FROM titles
            GROUP BY library_id, wishlist, section, favorite, sort_key < 'a', open_loans > 0
            """).run()
        // SQLite's indexes end in the rowid, the list's tiebreak there; PostgreSQL's in the id.
        try await sql.raw(SQLQueryString("CREATE INDEX titles_on_loan ON titles (library_id, wishlist, sort_key\(sqlite ? "" : ", id")) WHERE open_loans > 0")).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        try await sql.raw("DROP INDEX IF EXISTS titles_on_loan").run()
        try await dropTriggers(Self.loanTriggerNames, on: "loans", database)
        try await dropTriggers(Self.countTriggerNames, on: "titles", database)
        try await sql.raw("DROP TABLE title_counts").run()
        try await sql.raw("""
            CREATE TABLE title_counts (library_id \(unsafeRaw: Dialect(database).uuidType) NOT NULL, wishlist BOOLEAN NOT NULL,
                section TEXT NOT NULL, favorite BOOLEAN NOT NULL, early BOOLEAN NOT NULL, n BIGINT NOT NULL,
                PRIMARY KEY (library_id, wishlist, section, favorite, early))
            """).run()
        for statement in sqlite ? AddTitleListKeys.sqliteTriggers : AddTitleListKeys.postgresTriggers {
            try await sql.raw(SQLQueryString(statement)).run()
        }
        try await sql.raw("""
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
            SELECT library_id, wishlist, section, favorite, sort_key < 'a', COUNT(*) FROM titles
            GROUP BY library_id, wishlist, section, favorite, sort_key < 'a'
            """).run()
        try await database.schema("titles").deleteField("open_loans").update()
    }

    /// Drops the triggers `names` of `table`, and on PostgreSQL their functions (each named as its trigger).
    private func dropTriggers(_ names: [String], on table: String, _ database: any Database) async throws {
        for name in names {
            if Dialect(database) == .sqlite {
                try await database.sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)")).run()
            } else {
                try await database.sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name) ON \(table)")).run()
                try await database.sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run()
            }
        }
    }

    static let countTriggerNames = ["title_counts_insert", "title_counts_delete", "title_counts_update"]
    static let loanTriggerNames = ["title_loan_counts_insert", "title_loan_counts_delete", "title_loan_counts_update"]

    // MARK: The kept counts of titles, by list, A–Z section, favourite, before or after "a", and on loan.

    /// The counts' key of the row named by `row` ("NEW." or "OLD.").
    private static func key(_ row: String) -> String {
        "\(row)library_id, \(row)wishlist, \(row)section, \(row)favorite, \(row)sort_key < 'a', \(row)open_loans > 0"
    }

    private static let columns = "library_id, wishlist, section, favorite, early, on_loan"

    private static func add(_ row: String) -> String {
        "INSERT INTO title_counts (\(columns), n) VALUES (\(key(row)), 1) ON CONFLICT (\(columns)) DO UPDATE SET n = n + 1;"
    }

    private static let remove = """
        UPDATE title_counts SET n = n - 1 WHERE library_id = OLD.library_id AND wishlist = OLD.wishlist AND section = OLD.section
            AND favorite = OLD.favorite AND early = (OLD.sort_key < 'a') AND on_loan = (OLD.open_loans > 0);
        """

    static let sqliteCountTriggers = [
        "CREATE TRIGGER title_counts_insert AFTER INSERT ON titles BEGIN \(add("NEW.")) END",
        "CREATE TRIGGER title_counts_delete AFTER DELETE ON titles BEGIN \(remove) END",
        """
        CREATE TRIGGER title_counts_update AFTER UPDATE OF library_id, wishlist, section, favorite, sort_key, open_loans ON titles
        WHEN OLD.library_id IS NOT NEW.library_id OR OLD.wishlist IS NOT NEW.wishlist OR OLD.section IS NOT NEW.section
            OR OLD.favorite IS NOT NEW.favorite OR (OLD.sort_key < 'a') IS NOT (NEW.sort_key < 'a')
            OR (OLD.open_loans > 0) IS NOT (NEW.open_loans > 0)
        BEGIN \(remove) \(add("NEW.")) END
        """,
    ]

    /// PostgreSQL counts a whole statement's rows at once, as `AddTitleListKeys` did.
    static let postgresCountTriggers = postgresCountTriggers(numbered: false)

    /// `numbered`: titles name their library by number (`TitlesByLibraryNumber`), the counts by id.
    static func postgresCountTriggers(numbered: Bool) -> [String] {
        func rows(_ table: String, _ d: Int) -> String {
            let from = numbered ? "\(LibraryNumberRemake.postgresRows(table)) \(table)" : table
            return "SELECT library_id, wishlist, section, favorite, sort_key < 'a' AS early, open_loans > 0 AS on_loan, \(d) AS d FROM \(from)"
        }
        func function(_ name: String, _ changed: String) -> String {
            """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO title_counts (\(columns), n)
                SELECT \(columns), SUM(d) FROM (\(changed)) changed
                GROUP BY \(columns) HAVING SUM(d) <> 0
                ON CONFLICT (\(columns)) DO UPDATE SET n = title_counts.n + EXCLUDED.n;
                RETURN NULL;
            END $$
            """
        }
        return [
            function("title_counts_insert", rows("new_rows", 1)),
            function("title_counts_delete", rows("old_rows", -1)),
            function("title_counts_update", rows("new_rows", 1) + " UNION ALL " + rows("old_rows", -1)),
            "CREATE TRIGGER title_counts_insert AFTER INSERT ON titles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION title_counts_insert()",
            "CREATE TRIGGER title_counts_delete AFTER DELETE ON titles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION title_counts_delete()",
            """
            CREATE TRIGGER title_counts_update AFTER UPDATE ON titles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION title_counts_update()
            """,
        ]
    }

    // MARK: A title's loans, kept from the loans.

    /// A loan written adds to its title's `loan_count` ("most borrowed": how often it was lent) and, while
    /// open, to `open_loans`, in one update of the title; a return, a removal or a loan moved to another
    /// title changes `open_loans` only (the times a title was lent stay counted).
    static let sqliteLoanTriggers = [
        """
        CREATE TRIGGER title_loan_counts_insert AFTER INSERT ON loans WHEN NEW.title_id IS NOT NULL
        BEGIN UPDATE titles SET loan_count = loan_count + 1, open_loans = open_loans + (NEW.returned_at IS NULL) WHERE id = NEW.title_id; END
        """,
        """
        CREATE TRIGGER title_loan_counts_delete AFTER DELETE ON loans WHEN OLD.returned_at IS NULL AND OLD.title_id IS NOT NULL
        BEGIN UPDATE titles SET open_loans = open_loans - 1 WHERE id = OLD.title_id; END
        """,
        """
        CREATE TRIGGER title_loan_counts_update AFTER UPDATE OF title_id, returned_at ON loans
        WHEN OLD.title_id IS NOT NEW.title_id OR (OLD.returned_at IS NULL) IS NOT (NEW.returned_at IS NULL)
        BEGIN
            UPDATE titles SET open_loans = open_loans - 1 WHERE OLD.returned_at IS NULL AND id = OLD.title_id;
            UPDATE titles SET open_loans = open_loans + 1 WHERE NEW.returned_at IS NULL AND id = NEW.title_id;
        END
        """,
    ]

    /// Each title's change summed over the statement's loans, so a title changes once per statement.
    /// PostgreSQL takes no column list on a trigger with transition tables: a renewal fires the update's,
    /// which finds nothing to change.
    static let postgresLoanTriggers: [String] = {
        let open = "CASE WHEN returned_at IS NULL THEN 1 ELSE 0 END"
        let written = "SELECT title_id, 1 AS lent, \(open) AS d FROM new_rows"
        let removed = "SELECT title_id, 0 AS lent, -\(open) AS d FROM old_rows"
        let changed = "SELECT title_id, 0 AS lent, \(open) AS d FROM new_rows UNION ALL " + removed
        func function(_ name: String, _ rows: String) -> String {
            """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE titles t SET loan_count = t.loan_count + c.lent, open_loans = t.open_loans + c.d
                FROM (SELECT title_id, SUM(lent) AS lent, SUM(d) AS d FROM (\(rows)) changed WHERE title_id IS NOT NULL
                      GROUP BY title_id HAVING SUM(lent) <> 0 OR SUM(d) <> 0) c
                WHERE t.id = c.title_id;
                RETURN NULL;
            END $$
            """
        }
        return [
            function("title_loan_counts_insert", written),
            function("title_loan_counts_delete", removed),
            function("title_loan_counts_update", changed),
            "CREATE TRIGGER title_loan_counts_insert AFTER INSERT ON loans REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION title_loan_counts_insert()",
            "CREATE TRIGGER title_loan_counts_delete AFTER DELETE ON loans REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION title_loan_counts_delete()",
            """
            CREATE TRIGGER title_loan_counts_update AFTER UPDATE ON loans REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION title_loan_counts_update()
            """,
        ]
    }()
}
