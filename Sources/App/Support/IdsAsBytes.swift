import Fluent
import FluentSQL
import SQLKit

/// SQLite's ids as 16 bytes instead of 36 characters of text (`UUID`'s `SQLiteDataConvertible`
/// conformance writes them so from now on): every id column of every table, every index and list
/// order that holds one, the sync log's libraries. At 100,000 titles the file is a quarter smaller.
///
/// In one transaction, with the foreign keys checked at its end (a parent and its children change
/// in turn): the triggers go first, so rewriting an id is not a change the sync log, the counts or
/// the search index hear of; each table's id columns are rewritten in one statement; the search
/// index's scopes (`'L' || hex(library_id)`) are written again from the titles; the triggers come back,
/// the sync log's writing a row's id as it is instead of converting its text. Nothing else changes:
/// the same rows, versions and cursors, and bytes sort as the text did.
///
/// Running it again converts what is still text and makes the triggers again, so it also mends a
/// database where an earlier migration was run again by hand (the sync log's tests do). PostgreSQL
/// keeps `uuid`, 16 bytes already.
struct IdsAsBytes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await rewrite(on: database, toBytes: true)
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await rewrite(on: database, toBytes: false)
    }

    /// The sync log's triggers write an entity's id as the tables keep it: converted from text before,
    /// as it is now.
    static func triggerForms(_ row: String) -> (text: String, bytes: String) {
        ("unhex(replace(\(row)id, '-', '')), \(row)library_id", "\(row)id, \(row)library_id")
    }

    private func rewrite(on database: any Database, toBytes: Bool) async throws {
        try await database.transaction { tx in
            let sql = tx.sql
            try await sql.raw("PRAGMA defer_foreign_keys = ON").run()
            struct Named: Decodable { var name: String; var sql: String }
            let triggers = try await sql.raw("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").all(decoding: Named.self)
            for trigger in triggers { try await sql.raw("DROP TRIGGER \(ident: trigger.name)").run() }

            let tables = try await sql.raw("""
                SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'
                ORDER BY name
                """).all(decoding: Named.self)
            var titlesChanged = false
            for table in tables {
                struct Column: Decodable { var name: String; var type: String }
                let columns = try await sql.raw("SELECT name, type FROM pragma_table_info(\(bind: table.name))").all(decoding: Column.self)
                    .filter { Self.holdsIDs(table: table.name, column: $0.name, type: $0.type, toBytes: toBytes) }
                guard !columns.isEmpty else { continue }
                let sets = columns.map { "\(quoted($0.name)) = \(Self.converted(quoted($0.name), toBytes: toBytes))" }
                let which = columns.map { "typeof(\(quoted($0.name))) = '\(toBytes ? "text" : "blob")'" }
                try await sql.raw(SQLQueryString("UPDATE \(quoted(table.name)) SET \(sets.joined(separator: ", ")) WHERE \(which.joined(separator: " OR "))")).run()
                if table.name == "titles" {
                    titlesChanged = (try await sql.raw("SELECT changes() AS n").first()?.decode(column: "n", as: Int.self) ?? 0) > 0
                }
            }

            // The scopes name a library by `hex(library_id)`: written again when the titles' ids changed
            // (not when a second run, or one after another migration, found nothing left to convert).
            // The contentless table (`ShrinkTitleSearch`) is emptied at once; the one before it (an older
            // database's, not yet made contentless) row by row, the only way it allows.
            if titlesChanged,
               let search = try await sql.raw("SELECT name, sql FROM sqlite_schema WHERE name = 'title_search'").first(decoding: Named.self) {
                try await sql.raw(search.sql.contains("content = ''") ? "INSERT INTO title_search(title_search) VALUES ('delete-all')"
                                  : "DELETE FROM title_search").run()
                try await sql.raw("""
                    INSERT INTO title_search(rowid, scope, search_text)
                    SELECT rowid, 'L' || hex(library_id) || 'W' || wishlist, search_text FROM titles
                    """).run()
            }

            for trigger in triggers {
                var statement = trigger.sql
                if trigger.name.hasPrefix("sync_") {
                    for row in ["NEW.", "OLD."] {
                        let forms = Self.triggerForms(row)
                        statement = toBytes ? statement.replacingOccurrences(of: forms.text, with: forms.bytes)
                            : statement.replacingOccurrences(of: forms.bytes, with: forms.text)
                    }
                }
                try await sql.raw(SQLQueryString(statement)).run()
            }
        }
    }

    /// The columns that hold ids: those made as `UUID` (Fluent's), and the `BLOB` ones named `…_id` that
    /// tables made by hand keep libraries and users in. The sync log's entity ids were bytes already.
    static func holdsIDs(table: String, column: String, type: String, toBytes: Bool) -> Bool {
        switch type.uppercased() {
        case "UUID": true
        case "BLOB": column.hasSuffix("_id") && (toBytes || !(table == "sync_log" && column == "entity_id"))
        default: false
        }
    }

    /// The value of `column` in the other form; anything that is not an id in this form is kept as it is.
    static func converted(_ column: String, toBytes: Bool) -> String {
        toBytes
            ? "CASE WHEN typeof(\(column)) = 'text' AND length(\(column)) = 36 THEN coalesce(unhex(replace(\(column), '-', '')), \(column)) ELSE \(column) END"
            : "CASE WHEN typeof(\(column)) = 'blob' AND length(\(column)) = 16 THEN \(CompactSyncLog.textID(column)) ELSE \(column) END"
    }
}

private func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
