import Fluent
import Foundation
import Logging
import NIOCore
import PostgresNIO
import SQLiteNIO
import SQLKit

/// Moves an SQLite installation into an empty PostgreSQL database of the same version: every table,
/// every row, in one PostgreSQL transaction (a move that fails leaves the target as empty as it was),
/// read from one SQLite snapshot; then every row read back from PostgreSQL and compared with what
/// was read from SQLite. The SQLite file is only read.
///
/// Rows go in with `COPY … FROM STDIN` in the order of the foreign keys, with the tables' own
/// triggers off: the counts and the sync log are copied as they are, not made again row by row.
/// The sync log's versions are SQLite's clock; on PostgreSQL they are transaction ids, so before
/// the copy PostgreSQL's transaction ids are moved past the clock: a device's cursor carries on
/// where it was, and every later change lies above it.
enum DatabaseMove {
    struct Column: Sendable {
        let name: String
        let kind: Kind
    }

    struct Table: Sendable {
        let name: String
        let columns: [Column]
        /// The order SQLite's rows are read in, page by page: the rowid, or a `WITHOUT ROWID` table's key.
        var key: [String] = ["rowid"]
    }

    struct Report: Sendable {
        /// Each table with its rows, in the order they were copied.
        var tables: [(name: String, rows: Int)]
        /// Transaction ids PostgreSQL was moved on by, so the sync log's versions stay below its own.
        var idsSkipped: Int64
        var rows: Int { tables.reduce(0) { $0 + $1.rows } }
    }

    /// What a move found wrong; nothing was written to PostgreSQL (or it was rolled back).
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Rows read from SQLite per statement and written per `COPY` chunk.
    static let page = 2_000

    /// Copies `source` (SQLite) into `target` (PostgreSQL), both migrated to this version, and checks it.
    static func run(from source: any Database, to target: any Database, logger: Logger,
                    progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> Report {
        guard Dialect(source) == .sqlite, Dialect(target) == .postgresql else {
            throw Refusal("The move copies an SQLite database into a PostgreSQL one.")
        }
        let sourceVersion = Set(try await DatabaseVersion.applied(on: source))
        let targetVersion = Set(try await DatabaseVersion.applied(on: target))
        guard sourceVersion == targetVersion else {
            let missing = sourceVersion.symmetricDifference(targetVersion).sorted().prefix(5).joined(separator: ", ")
            throw Refusal("The two databases are not at the same version (they differ in \(missing)): run this version of Shelfmark on each first.")
        }
        for table in ["libraries", "users"] {
            if try await target.sql.raw("SELECT 1 AS x FROM \(ident: table) LIMIT 1").first() != nil {
                throw Refusal("The PostgreSQL database already holds \(table == "users" ? "accounts" : "libraries"): the move copies only into an empty database. "
                              + "Make a new one (createdb) and give its URL.")
            }
        }
        let tables = try await plan(source: source, target: target)
        let clock = try await sqliteClock(source)
        let skipped = try await movePastClock(clock, target: target, logger: logger, progress: progress)

        struct Copied: Sendable { let name: String; let print: Fingerprint }
        let copied: [Copied] = try await onSQLite(source) { sqlite in
            // One snapshot of the whole file, however long the copy takes.
            _ = try await sqlite.query("BEGIN")
            do {
                let copied = try await onPostgres(target) { pg in
                    try await pg.query("BEGIN", logger: logger)
                    do {
                        var copied: [Copied] = []
                        let names = tables.map { quoted($0.name) }.joined(separator: ", ")
                        // Rows a migration made (defaults) make way for the source's; no library exists yet.
                        try await pg.query(PostgresQuery(unsafeSQL: "TRUNCATE \(names)"), logger: logger)
                        for table in tables {
                            try await pg.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(quoted(table.name)) DISABLE TRIGGER USER"), logger: logger)
                        }
                        for table in tables {
                            let print = try await copy(table, from: sqlite, to: pg, logger: logger)
                            copied.append(Copied(name: table.name, print: print))
                            if print.rows > 0 { progress("  \(table.name): \(print.rows) rows") }
                        }
                        for table in tables {
                            try await pg.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(quoted(table.name)) ENABLE TRIGGER USER"), logger: logger)
                        }
                        try await pg.query("COMMIT", logger: logger)
                        return copied
                    } catch {
                        _ = try? await pg.query("ROLLBACK", logger: logger)
                        throw error
                    }
                }
                _ = try await sqlite.query("ROLLBACK")
                return copied
            } catch {
                _ = try? await sqlite.query("ROLLBACK")
                throw error
            }
        }
        let fingerprints = Dictionary(uniqueKeysWithValues: copied.map { ($0.name, $0.print) })
        // The planner learns the new rows now, not when autovacuum comes by.
        try await target.sql.raw("VACUUM (ANALYZE)").run()

        progress("Reading every row back from PostgreSQL…")
        var differences: [String] = []
        for table in tables {
            let back = try await fingerprint(table, on: target, logger: logger)
            let sent = fingerprints[table.name] ?? Fingerprint()
            if back.rows != sent.rows {
                differences.append("\(table.name): \(sent.rows) rows in SQLite, \(back.rows) in PostgreSQL")
            } else if back != sent {
                differences.append("\(table.name): the same \(sent.rows) rows, but their values differ")
            }
        }
        guard differences.isEmpty else {
            throw Refusal("The copy does not match the SQLite database (\(differences.joined(separator: "; "))). Keep running on SQLite; the PostgreSQL database can be dropped.")
        }
        return Report(tables: copied.map { ($0.name, $0.print.rows) }, idsSkipped: skipped)
    }

    // MARK: The tables

    /// The tables to copy, parents before children, with PostgreSQL's columns (generated ones left out:
    /// PostgreSQL makes them). Every table and column on one side must be on the other, but for what
    /// only SQLite has (its search index, its sync clock).
    static func plan(source: any Database, target: any Database) async throws -> [Table] {
        struct ColumnRow: Decodable { var t: String; var c: String; var u: String; var generated: Bool }
        let columnRows = try await target.sql.raw("""
            SELECT c.table_name::text AS t, c.column_name::text AS c, c.udt_name::text AS u, c.is_generated <> 'NEVER' AS generated
            FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> '_fluent_migrations'
            ORDER BY c.table_name, c.ordinal_position
            """).all(decoding: ColumnRow.self)
        var columns: [String: [Column]] = [:], generated: [String: Set<String>] = [:]
        for row in columnRows {
            if row.generated {
                generated[row.t, default: []].insert(row.c)
            } else {
                columns[row.t, default: []].append(Column(name: row.c, kind: Kind(udt: row.u)))
            }
        }

        struct Link: Decodable { var child: String; var parent: String }
        let links = try await target.sql.raw("""
            SELECT cl.relname::text AS child, pa.relname::text AS parent FROM pg_constraint k
            JOIN pg_class cl ON cl.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
            WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace
            """).all(decoding: Link.self)

        let onlySQLite = Set(Features.tables.filter { $0.onlyOn == Dialect.sqlite.rawValue }.map(\.name))
        let sqliteTables = try await FeatureSchema.sqliteTables(source.sql).subtracting(onlySQLite).subtracting(["_fluent_migrations"])
        let postgresTables = Set(columns.keys)
        if let extra = sqliteTables.subtracting(postgresTables).sorted().first {
            throw Refusal("The SQLite database has a table PostgreSQL lacks (\(extra)): its rows would be lost.")
        }
        if let missing = postgresTables.subtracting(sqliteTables).sorted().first {
            throw Refusal("The PostgreSQL database has a table the SQLite one lacks (\(missing)).")
        }
        var tables: [Table] = []
        for name in postgresTables.sorted() {
            struct Name: Decodable { var name: String }
            let sqliteColumns = Set(try await source.sql.raw("SELECT name FROM pragma_table_info(\(bind: name))").all(decoding: Name.self).map(\.name))
            let wanted = columns[name] ?? []
            if let extra = sqliteColumns.subtracting(wanted.map(\.name)).subtracting(generated[name] ?? []).sorted().first {
                throw Refusal("The SQLite table \(name) has a column PostgreSQL lacks (\(extra)): its values would be lost.")
            }
            if let missing = wanted.first(where: { !sqliteColumns.contains($0.name) }) {
                throw Refusal("The PostgreSQL table \(name) has a column the SQLite one lacks (\(missing.name)).")
            }
            struct Flag: Decodable { var wr: Int }
            let withoutRowid = try await source.sql.raw("SELECT wr FROM pragma_table_list WHERE name = \(bind: name) AND schema = 'main'")
                .first(decoding: Flag.self)?.wr == 1
            let key = withoutRowid
                ? try await source.sql.raw("SELECT name FROM pragma_table_info(\(bind: name)) WHERE pk > 0 ORDER BY pk").all(decoding: Name.self).map(\.name)
                : ["rowid"]
            tables.append(Table(name: name, columns: wanted, key: key))
        }
        // Parents first; ties by name. A table's link to itself is checked at the end of its COPY.
        var ordered: [Table] = [], left = tables
        while !left.isEmpty {
            let placed = Set(ordered.map(\.name))
            guard let next = left.firstIndex(where: { t in
                links.allSatisfy { $0.child != t.name || $0.parent == t.name || placed.contains($0.parent) }
            }) else { throw Refusal("The tables' foreign keys make a cycle: \(left.map(\.name).joined(separator: ", ")).") }
            ordered.append(left.remove(at: next))
        }
        return ordered
    }

    // MARK: The sync clock

    /// The newest version SQLite's sync log has handed out (its clock, the log, the libraries' floors).
    static func sqliteClock(_ source: any Database) async throws -> Int64 {
        struct Row: Decodable { var v: Int64? }
        let clock = try await source.sql.raw("""
            SELECT MAX(v) AS v FROM (SELECT version AS v FROM sync_clock UNION ALL SELECT MAX(version) FROM sync_log
                                     UNION ALL SELECT MAX(sync_floor) FROM libraries) AS versions
            """).first(decoding: Row.self)
        return clock?.v ?? 0
    }

    /// Moves PostgreSQL's next transaction id past `clock` (a loop of tiny transactions, ~100,000 a
    /// second), so the versions copied from SQLite are all below anything written from now on.
    static func movePastClock(_ clock: Int64, target: any Database, logger: Logger, progress: @Sendable (String) -> Void) async throws -> Int64 {
        struct Row: Decodable { var next: Int64 }
        let next = { try await target.sql.raw("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next").first(decoding: Row.self)?.next ?? 0 }
        let start = try await next()
        guard start <= clock else { return 0 }
        progress("Moving PostgreSQL's transaction ids past the sync log's \(clock) (\(clock - start + 1) to skip)…")
        try await onPostgres(target) { pg in
            try await pg.query("SET synchronous_commit = off", logger: logger)
            var now = start
            while now <= clock {
                let step = min(clock - now + 1, 500_000)
                try await pg.query(PostgresQuery(unsafeSQL: """
                    DO $$ BEGIN FOR i IN 1..\(step) LOOP PERFORM pg_current_xact_id(); COMMIT; END LOOP; END $$
                    """), logger: logger)
                now = try await pg.query("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint", logger: logger)
                    .collect().first?.decode(Int64.self) ?? clock + 1
            }
            try await pg.query("RESET synchronous_commit", logger: logger)
        }
        return try await next() - start
    }

    // MARK: Copying and reading back

    /// One table from SQLite into PostgreSQL through `COPY`, page by page in the order of its rowids (or
    /// its key); the fingerprint of what was read.
    private static func copy(_ table: Table, from sqlite: SQLiteConnection, to pg: PostgresConnection, logger: Logger) async throws -> Fingerprint {
        let list = table.columns.map { quoted($0.name) }.joined(separator: ", ")
        let keys = table.key.map { $0 == "rowid" ? $0 : quoted($0) }
        let keyList = keys.enumerated().map { "\($0.element) AS \"__key\($0.offset)\"" }.joined(separator: ", ")
        let order = keys.joined(separator: ", ")
        let after = "(" + order + ") > (" + keys.indices.map { "?\($0 + 1)" }.joined(separator: ", ") + ")"
        let first = "SELECT \(keyList), \(list) FROM \(quoted(table.name)) ORDER BY \(order) LIMIT \(page)"
        let next = "SELECT \(keyList), \(list) FROM \(quoted(table.name)) WHERE \(after) ORDER BY \(order) LIMIT \(page)"
        var print = Fingerprint()
        do {
            try await pg.copyFrom(table: table.name, columns: table.columns.map(\.name), logger: logger) { writer in
                var last: [SQLiteData]?
                while true {
                    let rows = if let last { try await sqlite.query(next, last) } else { try await sqlite.query(first, []) }
                    guard !rows.isEmpty else { break }
                    var text = ""
                    text.reserveCapacity(rows.count * table.columns.count * 24)
                    for row in rows {
                        let cells = row.columns
                        let key = cells.prefix(keys.count).map(\.data)
                        last = key
                        var values: [Value] = []
                        values.reserveCapacity(table.columns.count)
                        for (i, column) in table.columns.enumerated() {
                            do {
                                values.append(try Value(sqlite: cells[i + keys.count].data, kind: column.kind))
                            } catch let unfit as Value.Unfit {
                                let position = key.map { "\($0)" }.joined(separator: ", ")
                                throw Refusal("Row \(position) of \(table.name), column \(column.name): \(unfit.reason). Mend it in SQLite, then move again.")
                            }
                        }
                        print.add(values)
                        text += values.map(\.copyField).joined(separator: "\t")
                        text += "\n"
                    }
                    try await writer.write(ByteBuffer(string: text))
                    if rows.count < page { break }
                }
            }
        } catch let refusal as Refusal {
            throw refusal
        } catch {
            throw Refusal("Copying \(table.name) into PostgreSQL failed: \(databaseErrorDescription(error) ?? String(describing: error))")
        }
        return print
    }

    /// A table's rows as PostgreSQL has them, as one fingerprint.
    private static func fingerprint(_ table: Table, on target: any Database, logger: Logger) async throws -> Fingerprint {
        let list = table.columns.map { $0.kind.postgresText($0.name) }.joined(separator: ", ")
        return try await onPostgres(target) { pg in
            var print = Fingerprint()
            let rows = try await pg.query(PostgresQuery(unsafeSQL: "SELECT \(list) FROM \(quoted(table.name))"), logger: logger)
            for try await row in rows {
                var values: [Value] = []
                values.reserveCapacity(table.columns.count)
                for (cell, column) in zip(row, table.columns) {
                    values.append(try Value(postgres: try cell.decode(String?.self), kind: column.kind))
                }
                print.add(values)
            }
            return print
        }
    }

    // MARK: Connections

    static func quoted(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    private static func onSQLite<T: Sendable>(_ db: any Database, _ body: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        guard let sqlite = db as? any SQLiteDatabase else { throw Refusal("The source is not an SQLite database.") }
        return try await sqlite.withConnection { connection in
            connection.eventLoop.makeFutureWithTask { try await body(connection) }
        }.get()
    }

    /// `body` on one connection of a PostgreSQL database: the transaction's own when `db` is one.
    static func onPostgres<T: Sendable>(_ db: any Database, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        guard let pg = db as? any PostgresDatabase else { throw Refusal("The target is not a PostgreSQL database.") }
        return try await pg.withConnection { connection in
            connection.eventLoop.makeFutureWithTask { try await body(connection) }
        }.get()
    }
}

/// The live schema's tables as SQLite lists them: a virtual table's own tables (`title_search_data` …)
/// are part of it.
enum FeatureSchema {
    static func sqliteTables(_ sql: any SQLDatabase) async throws -> Set<String> {
        struct Row: Decodable { var name: String; var sql: String? }
        let all = try await sql.raw("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all(decoding: Row.self)
        let virtual = all.filter { ($0.sql ?? "").uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.name)
        return Set(all.map(\.name).filter { name in !virtual.contains { name.hasPrefix($0 + "_") } })
    }
}
