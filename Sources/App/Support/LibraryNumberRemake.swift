import Fluent
import FluentSQL
import Foundation
import NIOHTTP1
import RegexBuilder
import SQLKit

/// How a table of a library's rows comes to name its library by number (`library_no` → `libraries.no`)
/// instead of by id, and back: the one way the copies and the titles were moved (decision 065).
///
/// SQLite: the table is made again (a column in a unique constraint or a foreign key cannot be dropped)
/// on one connection with foreign keys off, so that dropping the old table does not run the `ON DELETE`
/// actions of the tables that refer to it; they are checked before the commit. The rows keep their
/// rowids (the search index and the list orders name titles by rowid), ids and values; the indexes and
/// triggers are made again from their own text, the triggers reading the library's id from its number
/// where they named it by id. PostgreSQL: a column added, filled, the old one dropped, its indexes made
/// again; the caller makes the triggers again.
struct LibraryNumberRemake: Sendable {
    /// The table, and its form as made by `CREATE TABLE <name> (…)` (the new table's name given) with
    /// the library column named `to` and declared as `library`.
    var table: String
    var create: @Sendable (_ name: String, _ to: String, _ library: String) -> String
    /// The table's columns after the library's.
    var columns: [String]
    /// Unique constraints that lead with the library (PostgreSQL), by the columns after it.
    var unique: [[String]] = []

    /// A trigger on `table` (SQLite; a function body on PostgreSQL) as it reads once rows name their library by number: what compared
    /// libraries compares numbers, the sync log's library is looked up by number, and the library's id
    /// (the counts', the search scope's, the readers' votes') is read from the number. A trigger on
    /// another table has only `table.library_id` read so.
    static func rewrite(_ statement: String, on table: String, own: Bool) -> String {
        var s = statement
        if own {
            let header = s.range(of: "BEGIN").map { String(s[..<$0.lowerBound]) } ?? ""
            s = renamed(header, from: "library_id", to: "library_no") + String(s.dropFirst(header.count))
            for row in ["OLD.", "NEW.", "old.", "new."] {
                s = s.replacingOccurrences(of: "l.id = \(row)library_id", with: "l.no = \(row)library_no")
            }
            s = s.replacingOccurrences(of: "OLD.library_id IS NOT NEW.library_id", with: "OLD.library_no IS NOT NEW.library_no")
            for row in ["OLD.", "NEW.", "old.", "new."] {
                s = s.replacingOccurrences(of: "\(row)library_id", with: byNumber(row))
            }
        }
        return s.replacingOccurrences(of: "\(table).library_id", with: byNumber("\(table)."))
    }

    /// `rewrite` undone.
    static func rewriteByID(_ statement: String, on table: String, own: Bool) -> String {
        var s = statement.replacingOccurrences(of: byNumber("\(table)."), with: "\(table).library_id")
        guard own else { return s }
        for row in ["OLD.", "NEW.", "old.", "new."] {
            s = s.replacingOccurrences(of: byNumber(row), with: "\(row)library_id")
            s = s.replacingOccurrences(of: "l.no = \(row)library_no", with: "l.id = \(row)library_id")
        }
        return renamed(s, from: "library_no", to: "library_id")
    }

    /// `text` with the column `from` named `to` wherever it stands as a word (not inside a name such as
    /// `titles_library_ids`).
    static func renamed(_ text: String, from: String, to: String) -> String {
        // Simple word boundaries: `NEW.library_id` is a word after the dot, `titles_library_ids` one word.
        text.replacing(Regex { Anchor.wordBoundary; from; Anchor.wordBoundary }.wordBoundaryKind(.simple), with: to)
    }

    private static func byNumber(_ row: String) -> String { "(SELECT id FROM libraries WHERE no = \(row)library_no)" }

    /// A transition table (PostgreSQL) with its rows' library id beside their number, for the statement
    /// triggers that name the library by id.
    static func postgresRows(_ table: String) -> String {
        "(SELECT l.id AS library_id, r.* FROM \(table) r JOIN libraries l ON l.no = r.library_no)"
    }

    func run(on database: any Database, numbered: Bool, postgresTriggers: [String] = [], dropPostgresTriggers: [String] = []) async throws {
        if Dialect(database) == .sqlite {
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
        } else {
            try await postgresSteps(database.sql, numbered: numbered, triggers: postgresTriggers, drop: dropPostgresTriggers)
        }
    }

    private func sqliteSteps(_ sql: any SQLDatabase, numbered: Bool) async throws {
        struct Named: Decodable { var name: String; var tbl_name: String; var sql: String }
        let triggers = try await sql.raw("""
            SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger'
            AND (tbl_name = \(bind: table) OR sql LIKE \(bind: "%\(table).library_\(numbered ? "id" : "no")%")) ORDER BY rowid
            """).all(decoding: Named.self)
        // In the order they were made: between two indexes that serve a statement equally (the favourites'
        // partial one and the A–Z one), SQLite's planner takes the one made last.
        let indexes = try await sql.raw("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = \(bind: table) AND sql IS NOT NULL ORDER BY rowid")
            .all(decoding: Named.self)
        for trigger in triggers { try await sql.raw("DROP TRIGGER \(ident: trigger.name)").run() }
        let (from, to) = numbered ? ("library_id", "library_no") : ("library_no", "library_id")
        let library = numbered ? "INTEGER NOT NULL REFERENCES \"libraries\" (\"no\") ON DELETE CASCADE"
            : "UUID NOT NULL REFERENCES \"libraries\" (\"id\") ON DELETE CASCADE"
        let remade = table + "_remade"
        try await sql.raw(SQLQueryString(create(remade, to, library))).run()
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        try await sql.raw(SQLQueryString("""
            INSERT INTO \(remade) (rowid, id, \(to), \(list))
            SELECT t.rowid, t.id, \(numbered ? "l.no" : "l.id"), \(columns.map { "t.\"\($0)\"" }.joined(separator: ", "))
            FROM \(table) t JOIN libraries l ON \(numbered ? "l.id = t.library_id" : "l.no = t.library_no") ORDER BY t.rowid
            """)).run()
        try await sql.raw(SQLQueryString("DROP TABLE \(table)")).run()
        // The triggers of other tables that name this one are read again after the rename, not during it.
        try await sql.raw("PRAGMA legacy_alter_table = ON").run()
        try await sql.raw(SQLQueryString("ALTER TABLE \(remade) RENAME TO \(table)")).run()
        try await sql.raw("PRAGMA legacy_alter_table = OFF").run()
        for index in indexes {
            try await sql.raw(SQLQueryString(Self.renamed(index.sql, from: from, to: to))).run()
        }
        for trigger in triggers {
            let own = trigger.tbl_name == table
            let statement = numbered ? Self.rewrite(trigger.sql, on: table, own: own) : Self.rewriteByID(trigger.sql, on: table, own: own)
            try await sql.raw(SQLQueryString(statement)).run()
        }
        struct Broken: Decodable { var table: String }
        let broken = try await sql.raw("PRAGMA foreign_key_check").all(decoding: Broken.self)
        if let first = broken.first {
            throw AppError(status: .internalServerError, code: "foreign_key", message: "\(table) remade: a row of \(first.table) refers to nothing")
        }
    }

    private func postgresSteps(_ sql: any SQLDatabase, numbered: Bool, triggers: [String], drop: [String]) async throws {
        let (from, to) = numbered ? ("library_id", "library_no") : ("library_no", "library_id")
        struct Index: Decodable { var indexname: String; var indexdef: String }
        let indexes = try await sql.raw(SQLQueryString("""
            SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '\(table)'
            AND indexdef LIKE '%\(from)%' AND indexname NOT LIKE 'uq:%'
            """)).all(decoding: Index.self)
        for name in drop {
            try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name) ON \(table)")).run()
            try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run()
        }
        try await sql.raw(SQLQueryString("ALTER TABLE \(table) ADD COLUMN \(to) \(numbered ? "INTEGER" : "UUID")")).run()
        try await sql.raw(SQLQueryString("""
            UPDATE \(table) t SET \(to) = \(numbered ? "l.no" : "l.id") FROM libraries l WHERE \(numbered ? "l.id" : "l.no") = t.\(from)
            """)).run()
        try await sql.raw(SQLQueryString("ALTER TABLE \(table) ALTER COLUMN \(to) SET NOT NULL")).run()
        try await sql.raw(SQLQueryString("""
            ALTER TABLE \(table) ADD CONSTRAINT \(table)_\(to)_fkey FOREIGN KEY (\(to)) REFERENCES libraries (\(numbered ? "no" : "id")) ON DELETE CASCADE
            """)).run()
        try await sql.raw(SQLQueryString("ALTER TABLE \(table) DROP COLUMN \(from)")).run()
        for columns in unique {
            let name = "uq:" + ([to] + columns).map { "\(table).\($0)" }.joined(separator: "+")
            try await sql.raw(SQLQueryString("ALTER TABLE \(table) ADD CONSTRAINT \"\(name)\" UNIQUE (\(([to] + columns).joined(separator: ", ")))")).run()
        }
        for index in indexes {
            try await sql.raw(SQLQueryString(Self.renamed(index.indexdef, from: from, to: to))).run()
        }
        for statement in triggers { try await sql.raw(SQLQueryString(statement)).run() }
    }
}
