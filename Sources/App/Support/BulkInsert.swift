import Fluent
import FluentSQLiteDriver
import Foundation
import SQLKit

/// Many rows into one table with as few statements as the database allows. On SQLite the values go
/// straight to the driver as bind values, converted exactly as SQLiteKit converts them (text UUIDs,
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
        case date(Date)
        case strings([String])

        private static let json = JSONEncoder()

        var sqlite: SQLiteData {
            get throws {
                switch self {
                case .text(let v): v.map { .text($0) } ?? .null
                case .integer(let v): v.map { .integer($0) } ?? .null
                case .real(let v): v.map { .float($0) } ?? .null
                case .bool(let v): .integer(v ? 1 : 0)
                case .uuid(let v): .text(v.uuidString)
                case .date(let v): .float(v.timeIntervalSince1970)
                case .strings(let v): .text(String(decoding: try Self.json.encode(v), as: UTF8.self))
                }
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

    static func run(_ table: String, columns: [String], rows: [[Value]], on db: any Database) async throws {
        guard !rows.isEmpty else { return }
        // SQLite allows 32,766 bind values per statement, PostgreSQL 65,535; stay well below.
        let perStatement = max(1, 8_000 / columns.count)
        if let sqlite = db as? any SQLiteDatabase {
            let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
            let head = "INSERT INTO \"\(table)\" (" + columns.map { "\"\($0)\"" }.joined(separator: ",") + ") VALUES "
            for start in stride(from: 0, to: rows.count, by: perStatement) {
                let chunk = rows[start..<min(start + perStatement, rows.count)]
                var binds: [SQLiteData] = []
                binds.reserveCapacity(chunk.count * columns.count)
                for row in chunk {
                    precondition(row.count == columns.count, "a row for \(table) has \(row.count) values for \(columns.count) columns")
                    for value in row { binds.append(try value.sqlite) }
                }
                let sql = head + Array(repeating: tuple, count: chunk.count).joined(separator: ",")
                _ = try await sqlite.query(sql, binds)
            }
        } else {
            for start in stride(from: 0, to: rows.count, by: perStatement) {
                var insert = db.sql.insert(into: table).columns(columns)
                for row in rows[start..<min(start + perStatement, rows.count)] {
                    insert = insert.values(row.map { SQLBind($0.bind) })
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
