import Fluent
import FluentSQL
import Foundation
import NIOHTTP1
import SQLKit

/// A copy names its library by the library's number (`copies.library_no`, `libraries.no`) instead of
/// its 16-byte id: the copies are the most numerous rows, and the library leads four of their indexes
/// (its barcodes, shelves, newest and last seen), so each copy is about 80 bytes smaller (decision 065).
/// The id stays what the API, URLs, backups and devices know;
/// a statement finds a library's copies by `library_no = (SELECT no FROM libraries WHERE id = ?)`
/// (`LibraryNumber.of`), one index seek of the libraries first.
///
/// The counts kept from the copies (`copy_counts`, `shelf_counts`) and the sync log go on naming the
/// library as they did: their triggers read the library of a copy's number.
///
/// SQLite: the table is made again (a column in a unique constraint cannot be dropped), on one connection
/// with foreign keys off so that dropping the old table does not run the loans', holds' and stocktake
/// scans' `ON DELETE` actions; they are checked before the commit. The rows keep their rowids, ids and
/// values. PostgreSQL: a column added, filled and the old one dropped, the triggers made again.
struct CopiesByLibraryNumber: AsyncMigration {
    func prepare(on database: any Database) async throws {
        if Dialect(database) == .sqlite {
            try await Self.sqliteRebuild(on: database, numbered: true)
        } else {
            try await Self.postgresUpdate(on: database.sql, numbered: true)
        }
    }

    func revert(on database: any Database) async throws {
        if Dialect(database) == .sqlite {
            try await Self.sqliteRebuild(on: database, numbered: false)
        } else {
            try await Self.postgresUpdate(on: database.sql, numbered: false)
        }
    }

    /// The copies' columns after the library's, as every earlier migration left them.
    static let columns = ["title_id", "copy_number", "barcode", "location", "condition", "status", "created_at", "updated_at", "status_note",
                          "status_at", "seen_at", "last_lent_at", "call_number"]

    /// A trigger on copies (SQLite) as it reads once copies name their library by number: what compared
    /// libraries compares numbers, the sync log's library is looked up by number, and the counts' library
    /// id is read from the number.
    static func sqliteTrigger(_ statement: String) -> String {
        var s = statement
        for row in ["OLD.", "NEW."] {
            s = s.replacingOccurrences(of: "l.id = \(row)library_id", with: "l.no = \(row)library_no")
        }
        s = s.replacingOccurrences(of: "OLD.library_id IS NOT NEW.library_id", with: "OLD.library_no IS NOT NEW.library_no")
        s = s.replacingOccurrences(of: "UPDATE OF library_id", with: "UPDATE OF library_no")
        for row in ["OLD.", "NEW."] {
            s = s.replacingOccurrences(of: "\(row)library_id", with: "(SELECT id FROM libraries WHERE no = \(row)library_no)")
        }
        return s
    }

    /// `sqliteTrigger` undone.
    static func sqliteTriggerByID(_ statement: String) -> String {
        var s = statement
        for row in ["OLD.", "NEW."] {
            s = s.replacingOccurrences(of: "(SELECT id FROM libraries WHERE no = \(row)library_no)", with: "\(row)library_id")
            s = s.replacingOccurrences(of: "l.no = \(row)library_no", with: "l.id = \(row)library_id")
        }
        return s.replacingOccurrences(of: "library_no", with: "library_id")
    }

    /// A transition table of copies (PostgreSQL) with its rows' library id beside their number, for the
    /// statement triggers that name the library by id.
    static func postgresRows(_ table: String) -> String {
        "(SELECT l.id AS library_id, r.* FROM \(table) r JOIN libraries l ON l.no = r.library_no)"
    }

    private static func sqliteRebuild(on database: any Database, numbered: Bool) async throws {
        try await database.withConnection { connection in
            let sql = connection.sql
            try await sql.raw("PRAGMA foreign_keys = OFF").run()
            do {
                try await sql.raw("BEGIN IMMEDIATE").run()
                do {
                    try await sqliteSteps(sql, numbered: numbered)
                    try await sql.raw("COMMIT").run()
                } catch {
                    _ = try? await sql.raw("ROLLBACK").run()
                    throw error
                }
            } catch {
                _ = try? await sql.raw("PRAGMA foreign_keys = ON").run()
                throw error
            }
            try await sql.raw("PRAGMA foreign_keys = ON").run()
        }
    }

    private static func sqliteSteps(_ sql: any SQLDatabase, numbered: Bool) async throws {
        struct Named: Decodable { var name: String; var sql: String }
        let triggers = try await sql.raw("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'copies' ORDER BY name")
            .all(decoding: Named.self)
        let indexes = try await sql.raw("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'copies' AND sql IS NOT NULL ORDER BY name")
            .all(decoding: Named.self)
        for trigger in triggers { try await sql.raw("DROP TRIGGER \(ident: trigger.name)").run() }
        let (from, to) = numbered ? ("library_id", "library_no") : ("library_no", "library_id")
        let library = numbered ? "INTEGER NOT NULL REFERENCES \"libraries\" (\"no\") ON DELETE CASCADE"
            : "UUID NOT NULL REFERENCES \"libraries\" (\"id\") ON DELETE CASCADE"
        try await sql.raw(SQLQueryString("""
            CREATE TABLE copies_remade ("id" UUID PRIMARY KEY, "\(to)" \(library),
                "title_id" UUID NOT NULL REFERENCES "titles" ("id") ON DELETE CASCADE, "copy_number" INTEGER NOT NULL, "barcode" TEXT NOT NULL,
                "location" TEXT, "condition" TEXT, "status" TEXT NOT NULL, "created_at" REAL, "updated_at" REAL, "status_note" TEXT,
                "status_at" REAL, "seen_at" REAL, "last_lent_at" REAL, "call_number" TEXT,
                CONSTRAINT "uq:copies.\(to)+copies.barcode" UNIQUE ("\(to)", "barcode"))
            """)).run()
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        try await sql.raw(SQLQueryString("""
            INSERT INTO copies_remade (rowid, id, \(to), \(list))
            SELECT c.rowid, c.id, \(numbered ? "l.no" : "l.id"), \(columns.map { "c.\"\($0)\"" }.joined(separator: ", "))
            FROM copies c JOIN libraries l ON \(numbered ? "l.id = c.library_id" : "l.no = c.library_no") ORDER BY c.rowid
            """)).run()
        try await sql.raw("DROP TABLE copies").run()
        // The triggers of other tables that name copies are read again after the rename, not during it.
        try await sql.raw("PRAGMA legacy_alter_table = ON").run()
        try await sql.raw("ALTER TABLE copies_remade RENAME TO copies").run()
        try await sql.raw("PRAGMA legacy_alter_table = OFF").run()
        for index in indexes {
            try await sql.raw(SQLQueryString(index.sql.replacingOccurrences(of: from, with: to))).run()
        }
        for trigger in triggers {
            try await sql.raw(SQLQueryString(numbered ? sqliteTrigger(trigger.sql) : sqliteTriggerByID(trigger.sql))).run()
        }
        struct Broken: Decodable { var table: String }
        let broken = try await sql.raw("PRAGMA foreign_key_check").all(decoding: Broken.self)
        if let first = broken.first {
            throw AppError(status: .internalServerError, code: "foreign_key", message: "Copies remade: a row of \(first.table) refers to nothing")
        }
    }

    private static func postgresUpdate(on sql: any SQLDatabase, numbered: Bool) async throws {
        let (from, to) = numbered ? ("library_id", "library_no") : ("library_no", "library_id")
        struct Index: Decodable { var indexname: String; var indexdef: String }
        let indexes = try await sql.raw(SQLQueryString("""
            SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'copies'
            AND indexdef LIKE '%\(from)%' AND indexname NOT LIKE 'uq:%'
            """)).all(decoding: Index.self)
        for name in ["copy_counts", "shelf_counts", "sync_copies"] {
            for event in ["insert", "update", "delete"] {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)_\(event) ON copies")).run()
                try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)_\(event)()")).run()
            }
        }
        try await sql.raw(SQLQueryString("ALTER TABLE copies ADD COLUMN \(to) \(numbered ? "INTEGER" : "UUID")")).run()
        try await sql.raw(SQLQueryString("""
            UPDATE copies c SET \(to) = \(numbered ? "l.no" : "l.id") FROM libraries l WHERE \(numbered ? "l.id" : "l.no") = c.\(from)
            """)).run()
        try await sql.raw(SQLQueryString("ALTER TABLE copies ALTER COLUMN \(to) SET NOT NULL")).run()
        try await sql.raw(SQLQueryString("""
            ALTER TABLE copies ADD CONSTRAINT copies_\(to)_fkey FOREIGN KEY (\(to)) REFERENCES libraries (\(numbered ? "no" : "id")) ON DELETE CASCADE
            """)).run()
        try await sql.raw(SQLQueryString("ALTER TABLE copies DROP COLUMN \(from)")).run()
        try await sql.raw(SQLQueryString("ALTER TABLE copies ADD CONSTRAINT \"uq:copies.\(to)+copies.barcode\" UNIQUE (\(to), barcode)")).run()
        for index in indexes {
            try await sql.raw(SQLQueryString(index.indexdef.replacingOccurrences(of: from, with: to))).run()
        }
        let triggers = numbered
            ? AddCopyCounts.postgresTriggers(numbered: true) + AddShelfCounts.postgresTriggers(numbered: true)
                + CreateSyncLog.postgresTriggers(.copy, rows: postgresRows)
            : AddCopyCounts.postgresTriggers + AddShelfCounts.postgresTriggers + CreateSyncLog.postgresTriggers(.copy)
        for statement in triggers { try await sql.raw(SQLQueryString(statement)).run() }
    }
}
