import FluentKit
import Foundation
import SQLKit

/// The two databases Shelfmark runs on, and the SQL that differs between them where it is a fragment:
/// row locks, a lock on a name, the type of a UUID column. SQLite runs one writer at a time (the write
/// gate), so what PostgreSQL needs a lock for, SQLite needs nothing for. Statements that differ as a
/// whole (the full-text search, the sync feed's JSON, the counting triggers) switch on `Dialect(db)`
/// beside the statement.
enum Dialect: String, Sendable {
    case sqlite
    case postgresql

    init(_ db: any Database) { self = db.sql.dialect.name == "sqlite" ? .sqlite : .postgresql }

    /// What a SELECT of rows to claim ends with: the rows are locked until the transaction ends, and
    /// rows another transaction holds are skipped, so two borrowers of one title take different copies.
    var skipLocked: SQLQueryString { self == .sqlite ? "" : " FOR UPDATE SKIP LOCKED" }

    /// What a SELECT of rows to change ends with: they are locked until the transaction ends.
    var forUpdate: SQLQueryString { self == .sqlite ? "" : " FOR UPDATE" }

    /// The function that gives the larger of its arguments (SQLite's `MAX` with two or more).
    var greatest: String { self == .sqlite ? "MAX" : "GREATEST" }

    /// A moment a millisecond after the moment `expression` gives (SQLite keeps moments as seconds).
    func millisecondAfter(_ expression: String) -> String {
        self == .sqlite ? "(\(expression) + 0.001)" : "(\(expression) + interval '1 millisecond')"
    }

    /// The column type of a UUID a table made by hand keeps (Fluent's own tables choose it themselves).
    var uuidType: String { self == .sqlite ? "BLOB" : "UUID" }

    /// Locks one row of `table` until the transaction ends: `FOR UPDATE`, or with `noKeyUpdate`
    /// `FOR NO KEY UPDATE`, which a child row's foreign-key check does not wait for.
    static func lockRow(_ table: String, id: UUID, noKeyUpdate: Bool = false, on db: any Database) async throws {
        guard Dialect(db) == .postgresql else { return }
        let mode: SQLQueryString = noKeyUpdate ? " FOR NO KEY UPDATE" : " FOR UPDATE"
        _ = try await db.sql.raw("SELECT id FROM \(ident: table) WHERE id = \(bind: id)" + mode).first()
    }

    /// A lock on a name until the transaction ends (an advisory lock), for a row that does not exist yet.
    static func lockName(_ name: String, on db: any Database) async throws {
        guard Dialect(db) == .postgresql else { return }
        try await db.sql.raw("SELECT pg_advisory_xact_lock(hashtextextended(\(bind: name), 0))").run()
    }
}
