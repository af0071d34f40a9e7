import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Catalog lists that cost the same at a million titles as at twenty thousand.
///
/// - `author_key`: the folded author line, so "by author" is an index order (it was `lower(authors)`,
///   which PostgreSQL refuses on an array and SQLite sorted by scanning every title);
/// - `loan_count`: how often the title was lent, kept by the check-out, so "most borrowed" is an index
///   order (it was a correlated count of loans per title);
/// - each list order has an index ending in `id`, so a page of any order is read off its index
///   (`TitleQuery.pageIDs`), and the skipped rows of a later page are index entries, not rows;
/// - `title_counts`: how many titles each library has per list (catalog or wishlist), A–Z section,
///   favourite or not, and before or after "a" in sort order (a "#" title may be either), kept by
///   triggers on `titles` for every write however it is made (API, import, restore, command line).
///   The catalog's total, its A–Z counts, its favourites count and where a letter starts are sums of
///   a few dozen rows.
struct AddTitleListKeys: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        // One column per statement: SQLite adds one at a time.
        try await database.schema("titles").field("author_key", .string, .required, .sql(.default(""))).update()
        try await database.schema("titles").field("loan_count", .int, .required, .sql(.default(0))).update()
        // The author key of every title there is, in batches.
        struct Row: Decodable { var id: UUID; var authors: [String] }
        var after: UUID?
        while true {
            var query = sql.select().column("id").column("authors").from("titles").orderBy("id").limit(2_000)
            if let after { query = query.where("id", .greaterThan, after) }
            let rows = try await query.all(decoding: Row.self)
            guard let last = rows.last else { break }
            for row in rows {
                try await sql.update("titles").set("author_key", to: Title.authorKey(row.authors)).where("id", .equal, row.id).run()
            }
            after = last.id
        }
        try await sql.raw("UPDATE titles SET loan_count = (SELECT COUNT(*) FROM loans l WHERE l.title_id = titles.id)").run()

        for old in ["titles_library_sort", "titles_library_sort_key", "titles_library_created"] {
            try await sql.drop(index: old).run()
        }
        for (name, columns) in Self.indexes {
            try await sql.raw(SQLQueryString("CREATE INDEX \(name) ON titles (library_id, wishlist, \(columns))")).run()
        }

        try await sql.raw("""
            CREATE TABLE title_counts (library_id \(unsafeRaw: Dialect(database).uuidType) NOT NULL, wishlist BOOLEAN NOT NULL,
                section TEXT NOT NULL, favorite BOOLEAN NOT NULL, early BOOLEAN NOT NULL, n BIGINT NOT NULL,
                PRIMARY KEY (library_id, wishlist, section, favorite, early))
            """).run()
        if Dialect(database) == .sqlite {
            for statement in Self.sqliteTriggers { try await sql.raw(SQLQueryString(statement)).run() }
        } else {
            for statement in Self.postgresTriggers { try await sql.raw(SQLQueryString(statement)).run() }
        }
        try await sql.raw("""
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
            SELECT library_id, wishlist, section, favorite, sort_key < 'a', COUNT(*) FROM titles
            GROUP BY library_id, wishlist, section, favorite, sort_key < 'a'
            """).run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        if Dialect(database) == .sqlite {
            for name in ["title_counts_insert", "title_counts_delete", "title_counts_update"] {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)")).run()
            }
        } else {
            for name in ["title_counts_insert", "title_counts_delete", "title_counts_update"] {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name) ON titles")).run()
                try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run()
            }
        }
        try await sql.raw("DROP TABLE title_counts").run()
        for (name, _) in Self.indexes { try await sql.drop(index: name).run() }
        try await sql.create(index: "titles_library_sort").on("titles").column("library_id").column("wishlist").column("section").column("sort_key").run()
        try await sql.create(index: "titles_library_sort_key").on("titles").column("library_id").column("wishlist").column("sort_key").run()
        try await sql.create(index: "titles_library_created").on("titles").column("library_id").column("wishlist").column("created_at").run()
        try await database.schema("titles").deleteField("author_key").update()
        try await database.schema("titles").deleteField("loan_count").update()
    }

    /// One index per list order (after library and list), each ending in `id` as the orders do.
    static let indexes: [(String, String)] = [
        ("titles_list_title", "sort_key, id"),
        ("titles_list_section", "section, sort_key, id"),
        ("titles_list_author", "author_key, sort_key, id"),
        ("titles_list_newest", "created_at, id"),
        ("titles_list_borrowed", "loan_count DESC, sort_key, id"),
    ]

    static let sqliteTriggers = [
        """
        CREATE TRIGGER title_counts_insert AFTER INSERT ON titles BEGIN
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
            VALUES (NEW.library_id, NEW.wishlist, NEW.section, NEW.favorite, NEW.sort_key < 'a', 1)
            ON CONFLICT (library_id, wishlist, section, favorite, early) DO UPDATE SET n = n + 1;
        END
        """,
        """
        CREATE TRIGGER title_counts_delete AFTER DELETE ON titles BEGIN
            UPDATE title_counts SET n = n - 1 WHERE library_id = OLD.library_id AND wishlist = OLD.wishlist
                AND section = OLD.section AND favorite = OLD.favorite AND early = (OLD.sort_key < 'a');
        END
        """,
        """
        CREATE TRIGGER title_counts_update AFTER UPDATE OF library_id, wishlist, section, favorite, sort_key ON titles
        WHEN OLD.library_id IS NOT NEW.library_id OR OLD.wishlist IS NOT NEW.wishlist OR OLD.section IS NOT NEW.section
            OR OLD.favorite IS NOT NEW.favorite OR (OLD.sort_key < 'a') IS NOT (NEW.sort_key < 'a')
        BEGIN
            UPDATE title_counts SET n = n - 1 WHERE library_id = OLD.library_id AND wishlist = OLD.wishlist
                AND section = OLD.section AND favorite = OLD.favorite AND early = (OLD.sort_key < 'a');
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
            VALUES (NEW.library_id, NEW.wishlist, NEW.section, NEW.favorite, NEW.sort_key < 'a', 1)
            ON CONFLICT (library_id, wishlist, section, favorite, early) DO UPDATE SET n = n + 1;
        END
        """,
    ]

    /// PostgreSQL counts a whole statement's rows at once (transition tables): an import of 100,000
    /// titles changes each count once, not 100,000 times.
    static let postgresTriggers: [String] = {
        let apply = """
            INSERT INTO title_counts (library_id, wishlist, section, favorite, early, n)
            SELECT library_id, wishlist, section, favorite, early, SUM(d) FROM (%ROWS%) changed
            GROUP BY library_id, wishlist, section, favorite, early HAVING SUM(d) <> 0
            ON CONFLICT (library_id, wishlist, section, favorite, early) DO UPDATE SET n = title_counts.n + EXCLUDED.n;
            """
        let added = "SELECT library_id, wishlist, section, favorite, sort_key < 'a' AS early, 1 AS d FROM new_rows"
        let removed = "SELECT library_id, wishlist, section, favorite, sort_key < 'a' AS early, -1 AS d FROM old_rows"
        func function(_ name: String, _ rows: String) -> String {
            """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                \(apply.replacingOccurrences(of: "%ROWS%", with: rows))
                RETURN NULL;
            END $$
            """
        }
        return [
            function("title_counts_insert", added),
            function("title_counts_delete", removed),
            function("title_counts_update", added + " UNION ALL " + removed),
            "CREATE TRIGGER title_counts_insert AFTER INSERT ON titles REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION title_counts_insert()",
            "CREATE TRIGGER title_counts_delete AFTER DELETE ON titles REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION title_counts_delete()",
            """
            CREATE TRIGGER title_counts_update AFTER UPDATE ON titles REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION title_counts_update()
            """,
        ]
    }()
}
