import Fluent
import SQLKit

/// The full-text index behind title search. SQLite: an FTS5 table kept in step with `titles`
/// by triggers, sharing its rowid; its `scope` column holds one token per library and wishlist flag
/// (`L<hex of library id>W0`), so one MATCH finds a library's matches without touching `titles`.
/// PostgreSQL: a generated `tsvector` column with a GIN index.
/// Both index `titles.search_text`, which the app has already folded (case, diacritics), so the
/// two engines see the same words.
struct CreateTitleSearchIndex: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        if Dialect(database) == .sqlite {
            try await sql.raw("""
                CREATE VIRTUAL TABLE title_search USING fts5(scope, search_text, tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3 4')
                """).run()
            try await sql.raw("""
                CREATE TRIGGER titles_search_insert AFTER INSERT ON titles BEGIN
                  INSERT INTO title_search(rowid, scope, search_text)
                  VALUES (new.rowid, 'L' || hex(new.library_id) || 'W' || new.wishlist, new.search_text);
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER titles_search_update AFTER UPDATE OF search_text, wishlist, library_id ON titles BEGIN
                  UPDATE title_search SET scope = 'L' || hex(new.library_id) || 'W' || new.wishlist, search_text = new.search_text
                  WHERE rowid = old.rowid;
                END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER titles_search_delete AFTER DELETE ON titles BEGIN
                  DELETE FROM title_search WHERE rowid = old.rowid;
                END
                """).run()
        } else {
            try await sql.raw("""
                ALTER TABLE titles ADD COLUMN search_vector tsvector
                  GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED
                """).run()
            try await sql.raw("CREATE INDEX titles_search_vector ON titles USING GIN (search_vector)").run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        if Dialect(database) == .sqlite {
            try await sql.raw("DROP TRIGGER titles_search_insert").run()
            try await sql.raw("DROP TRIGGER titles_search_update").run()
            try await sql.raw("DROP TRIGGER titles_search_delete").run()
            try await sql.raw("DROP TABLE title_search").run()
        } else {
            try await sql.raw("DROP INDEX titles_search_vector").run()
            try await sql.raw("ALTER TABLE titles DROP COLUMN search_vector").run()
        }
    }
}
