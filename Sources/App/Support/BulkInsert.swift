import Fluent
import FluentSQLiteDriver
import Foundation
import SQLKit
import ShelfmarkCore

/// Many rows into one table with as few statements as the database allows. On SQLite the values go
/// straight to the driver as bind values, converted exactly as SQLiteKit converts them (UUIDs as 16 bytes,
/// dates as seconds since 1970, arrays as JSON text), skipping SQLKit's per-row Codable encoding and
/// query building, which cost more than the insert itself. On PostgreSQL the same rows go through
/// SQLKit binds.
enum BulkInsert {
    enum Value: Sendable {
        case text(String?)
        case integer(Int?)
        case real(Double?)
        case bool(Bool)
        case uuid(UUID)
        case date(Date?)
        case strings([String])

        var sqlite: SQLiteData {
            switch self {
            case .text(let v): v.map { .text($0) } ?? .null
            case .integer(let v): v.map { .integer($0) } ?? .null
            case .real(let v): v.map { .float($0) } ?? .null
            case .bool(let v): .integer(v ? 1 : 0)
            case .uuid(let v): .blob(v.sqliteBytes)
            case .date(let v): v.map { .float($0.timeIntervalSince1970) } ?? .null
            case .strings(let v): .text(JSONStringArray.encode(v))
            }
        }

        var bind: any Encodable & Sendable {
            switch self {
            case .text(let v): v
            case .integer(let v): v
            case .real(let v): v
            case .bool(let v): v
            case .uuid(let v): v
            case .date(let v): v
            case .strings(let v): v
            }
        }
    }

    /// Inserts `rows`, each turned into its values (`values`) one statement's worth at a time, so
    /// a batch never holds all of its rows' values at once.
    static func run<Row>(_ table: String, columns: [String], rows: [Row], values: (Row) -> [Value], on db: any Database) async throws {
        guard !rows.isEmpty else { return }
        // SQLite allows 32,766 bind values per statement, PostgreSQL 65,535; stay well below.
        let perStatement = max(1, 8_000 / columns.count)
        if let sqlite = db as? any SQLiteDatabase {
            let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
            let head = "INSERT INTO \"\(table)\" (" + columns.map { "\"\($0)\"" }.joined(separator: ",") + ") VALUES "
            let fullStatement = head + Array(repeating: tuple, count: perStatement).joined(separator: ",")
            for start in stride(from: 0, to: rows.count, by: perStatement) {
                let chunk = rows[start..<min(start + perStatement, rows.count)]
                var binds: [SQLiteData] = []
                binds.reserveCapacity(chunk.count * columns.count)
                for row in chunk {
                    let rowValues = values(row)
                    precondition(rowValues.count == columns.count, "a row for \(table) has \(rowValues.count) values for \(columns.count) columns")
                    for value in rowValues { binds.append(value.sqlite) }
                }
                let sql = chunk.count == perStatement ? fullStatement : head + Array(repeating: tuple, count: chunk.count).joined(separator: ",")
                _ = try await sqlite.query(sql, binds)
            }
        } else {
            for start in stride(from: 0, to: rows.count, by: perStatement) {
                var insert = db.sql.insert(into: table).columns(columns)
                for row in rows[start..<min(start + perStatement, rows.count)] {
                    insert = insert.values(values(row).map { SQLBind($0.bind) })
                }
                try await insert.run()
            }
        }
    }
}

extension Array {
    /// The elements in consecutive pieces of at most `size`.
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}

extension SQLiteConnection {
    /// A query's rows, each turned into a `T` on the connection's own thread as SQLite steps to it.
    /// The general `SQLiteDatabase.query` hands every row to the event loop as a separate task,
    /// which for an export of 100,000 rows cost more than the query itself.
    func rows<T: Sendable>(_ sql: String, _ binds: [SQLiteData] = [], _ transform: @escaping @Sendable (SQLiteRow) throws -> T) async throws -> [T] {
        let collected = Collected<T>()
        try await query(sql, binds) { row in
            guard collected.error == nil else { return }
            do { collected.items.append(try transform(row)) } catch { collected.error = error }
        }
        if let error = collected.error { throw error }
        return collected.items
    }

    /// `body` inside one read transaction: what it reads is one consistent state of the database.
    /// A savepoint rather than BEGIN, so that it also nests inside a transaction already open.
    func reading<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        _ = try await query("SAVEPOINT shelfmark_read")
        do {
            let result = try await body()
            _ = try await query("RELEASE shelfmark_read")
            return result
        } catch {
            _ = try? await query("ROLLBACK TO shelfmark_read")
            _ = try? await query("RELEASE shelfmark_read")
            throw error
        }
    }
}

/// What `rows` gathers: written only by the one database thread running the query, read after it ends.
private final class Collected<T>: @unchecked Sendable {
    var items: [T] = []
    var error: (any Error)?
}

extension SQLQueryString {
    /// A statement written once with SQLite's numbered parameters (`?1`, `?2` …), for PostgreSQL:
    /// each marker becomes the bind of that number (counted from 1), so the hot paths that run
    /// straight on SQLite and their PostgreSQL twin share one text.
    init(numbered sql: String, _ binds: [any Encodable & Sendable]) {
        self = ""
        var rest = Substring(sql)
        while let mark = rest.firstIndex(of: "?") {
            appendInterpolation(unsafeRaw: String(rest[..<mark]))
            let digits = rest[rest.index(after: mark)...].prefix { $0.isASCII && $0.isNumber }
            guard let n = Int(digits), binds.indices.contains(n - 1) else {
                preconditionFailure("`?` without a valid number in a numbered statement: \(sql)")
            }
            appendInterpolation(bind: binds[n - 1])
            rest = rest[digits.endIndex...]
        }
        appendInterpolation(unsafeRaw: String(rest))
    }
}
