import Fluent
import SQLKit

/// A smaller database: SQLite's full-text table kept its own copy of every title's search
/// text (`title_search_content`, 14 MB at 100,000 titles) though nothing reads it back — a search
/// reads only the matching rowids, and the rows come from `titles`. The table becomes contentless
/// (`content=''`) with `contentless_delete=1` (SQLite 3.43+), so rows are still deleted and replaced
/// by rowid; the triggers write both columns on every change, as such a table asks. Same tokenizer,
/// same prefix indexes: search answers as before. PostgreSQL (a generated column) is unchanged.
struct ShrinkTitleSearch: AsyncMigration {
    static let columns = "scope, search_text, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4'"
    static let triggers = ["titles_search_insert", "titles_search_update", "titles_search_delete"]

    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await Self.rebuild(database.sql, definition: Self.columns + ", content = '', contentless_delete = 1")
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await Self.rebuild(database.sql, definition: Self.columns)
    }

    /// The table made again with `definition` (its columns and options), filled from the titles, and
    /// its triggers: how every change of the table's form is made. `scope` starts each title's scope
    /// token, before its library's id in hex and its list (`W0`, `W1`).
    static func rebuild(_ sql: any SQLDatabase, definition: String, scope: String = "L") async throws {
        for name in Self.triggers { try await sql.raw("DROP TRIGGER IF EXISTS \(unsafeRaw: name)").run() }
        try await sql.raw("DROP TABLE title_search").run()
        try await sql.raw("CREATE VIRTUAL TABLE title_search USING fts5(\(unsafeRaw: definition))").run()
        try await sql.raw("""
            INSERT INTO title_search(rowid, scope, search_text)
            SELECT rowid, '\(unsafeRaw: scope)' || hex(library_id) || 'W' || wishlist, search_text FROM titles
            """).run()
        try await sql.raw("""
            CREATE TRIGGER titles_search_insert AFTER INSERT ON titles BEGIN
              INSERT INTO title_search(rowid, scope, search_text)
              VALUES (new.rowid, '\(unsafeRaw: scope)' || hex(new.library_id) || 'W' || new.wishlist, new.search_text);
            END
            """).run()
        try await sql.raw("""
            CREATE TRIGGER titles_search_update AFTER UPDATE OF search_text, wishlist, library_id ON titles BEGIN
              UPDATE title_search SET scope = '\(unsafeRaw: scope)' || hex(new.library_id) || 'W' || new.wishlist, search_text = new.search_text
              WHERE rowid = old.rowid;
            END
            """).run()
        try await sql.raw("""
            CREATE TRIGGER titles_search_delete AFTER DELETE ON titles BEGIN
              DELETE FROM title_search WHERE rowid = old.rowid;
            END
            """).run()
    }
}
