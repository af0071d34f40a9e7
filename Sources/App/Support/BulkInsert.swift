import Fluent
import FluentSQLiteDriver
import Foundation
import PostgresNIO
import SQLKit
import ShelfmarkCore

/// Many rows into one table with as few statements as the database allows. On SQLite the values go
/// straight to the driver as bind values, converted exactly as SQLiteKit converts them (UUIDs as 16 bytes,
/// dates as seconds since 1970, arrays as JSON text), skipping SQLKit's per-row Codable encoding and
/// query building, which cost more than the insert itself. On PostgreSQL the rows go as one `COPY … FROM
/// STDIN` in text format: no statement of thousands of binds to parse and plan for every few hundred rows,
/// and the table's statement triggers (counts, sync log) run once for all of them.
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

        /// The value as the move to PostgreSQL writes it (`DatabaseMove.Value.copyField` is its `COPY` text).
        var postgres: DatabaseMove.Value {
            switch self {
            case .text(let v): v.map { .text($0) } ?? .null
            case .integer(let v): v.map { .integer(Int64($0)) } ?? .null
            case .real(let v): v.map { .double($0) } ?? .null
            case .bool(let v): .bool(v)
            case .uuid(let v): .uuid(v)
            case .date(let v): v.map { .micros(Int64(($0.timeIntervalSince1970 * 1_000_000).rounded())) } ?? .null
            case .strings(let v): .texts(v)
            }
        }
    }

    /// Inserts `rows`, each turned into its values (`values`): on SQLite one statement's worth at a time
    /// (and the next), so a batch never holds all of its rows' values at once; on PostgreSQL as the text of one `COPY`.
    static func run<Row: Sendable>(_ table: String, columns: [String], rows: [Row], values: @escaping @Sendable (Row) -> [Value],
                                   on db: any Database) async throws {
        guard !rows.isEmpty else { return }
        if let sqlite = db as? any SQLiteDatabase {
            // SQLiteNIO allows 250,000 bind values per statement. Each statement on a table with a search
            // index makes it write out what it gathered (FTS5 flushes at every statement's savepoint) and
            // journals the pages it touches first: a few large statements cost less than many small ones.
            let perStatement = max(1, 32_000 / columns.count)
            let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
            let head = "INSERT INTO \"\(table)\" (" + columns.map { "\"\($0)\"" }.joined(separator: ",") + ") VALUES "
            let fullStatement = head + Array(repeating: tuple, count: perStatement).joined(separator: ",")
            let chunks = stride(from: 0, to: rows.count, by: perStatement).map { rows[$0..<min($0 + perStatement, rows.count)] }
            @Sendable func binds(_ chunk: ArraySlice<Row>) -> [SQLiteData] {
                var binds: [SQLiteData] = []
                binds.reserveCapacity(chunk.count * columns.count)
                for row in chunk {
                    for value in checked(values(row), columns: columns, table: table) { binds.append(value.sqlite) }
                }
                return binds
            }
            // The next statement's values are made while SQLite runs the current one.
            var current = binds(chunks[0])
            for (i, chunk) in chunks.enumerated() {
                async let following = i + 1 < chunks.count ? binds(chunks[i + 1]) : []
                let sql = chunk.count == perStatement ? fullStatement : head + Array(repeating: tuple, count: chunk.count).joined(separator: ",")
                _ = try await sqlite.query(sql, current)
                current = await following
            }
        } else {
            let logger = db.logger
            try await DatabaseMove.onPostgres(db) { connection in
                try await connection.copyFrom(table: table, columns: columns, logger: logger) { writer in
                    // Sent as it is written, so PostgreSQL takes in one piece while the next is made.
                    var encoder = CopyText()
                    for row in rows {
                        encoder.append(checked(values(row), columns: columns, table: table))
                        if encoder.buffer.readableBytes >= 1 << 18 { try await writer.write(encoder.take()) }
                    }
                    if encoder.buffer.readableBytes > 0 { try await writer.write(encoder.take()) }
                }
            }
        }
    }

    /// A row's values, one for each column: the rows are made by the code from its own types, so a
    /// mismatch is a mistake in that code, never something a file or a request brings.
    private static func checked(_ values: [Value], columns: [String], table: String) -> [Value] {
        precondition(values.count == columns.count, "a row for \(table) has \(values.count) values for \(columns.count) columns")
        return values
    }

    /// Rows as the text of a `COPY … FROM STDIN` (text format: tab-separated fields, `\N` for NULL, backslash
    /// escapes). A batch's times are mostly the same instant, so the last one written is reused rather
    /// than formatted again.
    struct CopyText {
        private(set) var buffer = ByteBuffer()
        private var lastTime: (micros: Int64, text: String)?

        init() { buffer.reserveCapacity(1 << 18) }

        mutating func append(_ values: [Value]) {
            for (i, value) in values.enumerated() {
                if i > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                let field = value.postgres
                if case .micros(let micros) = field {
                    if lastTime?.micros != micros { lastTime = (micros, field.copyField) }
                    buffer.writeString(lastTime!.text)
                } else {
                    buffer.writeString(field.copyField)
                }
            }
            buffer.writeInteger(UInt8(ascii: "\n"))
        }

        /// The text so far; the encoder starts again empty.
        mutating func take() -> ByteBuffer {
            defer { buffer = ByteBuffer(); buffer.reserveCapacity(1 << 18) }
            return buffer
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
