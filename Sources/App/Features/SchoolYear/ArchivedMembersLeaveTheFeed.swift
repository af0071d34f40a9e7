import Fluent
import FluentSQL
import SQLKit

/// A member who has left (`archived_at`) leaves the offline lending feed as a removed member would, and
/// comes back to it when brought back: the members' sync triggers watch `archived_at` too, and count
/// an archived member as gone. Those archived already are marked gone now.
struct ArchivedMembersLeaveTheFeed: AsyncMigration {
    static let columns = CreateSyncLog.Kind.member.columns + ["archived_at"]
    static func gone(_ row: String) -> String { "(\(row)archived_at IS NOT NULL)" }

    func prepare(on database: any Database) async throws {
        try await replace(on: database, columns: Self.columns, gone: Self.gone)
        let sql = database.sql
        if Dialect(database) == .sqlite {
            try await sql.raw("UPDATE sync_clock SET version = version + 1 WHERE id = 1").run()
            try await sql.raw(SQLQueryString("""
                UPDATE sync_log SET deleted = TRUE, version = (SELECT version FROM sync_clock WHERE id = 1), changed_at = \(CreateSyncLog.now(sqlite: true))
                WHERE kind = 3 AND NOT deleted AND entity_id IN (SELECT id FROM members WHERE archived_at IS NOT NULL)
                """)).run()
        } else {
            try await sql.raw("""
                UPDATE sync_log SET deleted = TRUE, version = pg_current_xact_id()::text::bigint, changed_at = now()
                WHERE kind = 3 AND NOT deleted AND entity_id IN (SELECT id FROM members WHERE archived_at IS NOT NULL)
                """).run()
        }
    }

    func revert(on database: any Database) async throws {
        try await replace(on: database, columns: nil, gone: nil)
    }

    /// The members' three triggers made again (with the kind's own columns when nil).
    private func replace(on database: any Database, columns: [String]?, gone: ((String) -> String)?) async throws {
        let sql = database.sql
        let sqlite = Dialect(database) == .sqlite
        for event in ["insert", "update", "delete"] {
            let name = "sync_members_\(event)"
            try await sql.raw(SQLQueryString(sqlite ? "DROP TRIGGER IF EXISTS \(name)" : "DROP TRIGGER IF EXISTS \(name) ON members")).run()
            if !sqlite { try await sql.raw(SQLQueryString("DROP FUNCTION IF EXISTS \(name)()")).run() }
        }
        let statements = sqlite ? CreateSyncLog.sqliteTriggers(.member, columns: columns, gone: gone)
            : CreateSyncLog.postgresTriggers(.member, columns: columns, gone: gone)
        for statement in statements { try await sql.raw(SQLQueryString(statement)).run() }
    }
}
