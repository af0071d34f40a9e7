import Fluent
import FluentSQL
import SQLKit

/// The security wave: API tokens may expire; the installation has an administrator (the account
/// made at setup, else the oldest) and settings of its own (who may create libraries); failed
/// sign-ins are counted per account and per address, in the database so that the count holds
/// across instances on PostgreSQL.
struct AddSecurityControls: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("api_tokens").field("expires_at", .datetime).update()
        try await database.schema("users").field("is_admin", .bool, .required, .sql(.default(false))).update()
        try await database.sql.raw("""
            UPDATE users SET is_admin = \(bind: true) WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1)
            """).run()
        try await database.schema("server_settings")
            .field("name", .string, .identifier(auto: false))
            .field("value", .string, .required)
            .create()
        try await database.schema("login_failures")
            .field("key", .string, .identifier(auto: false))
            .field("failures", .int, .required)
            .field("locked_until", .datetime)
            .field("last_failure_at", .datetime, .required)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("login_failures").delete()
        try await database.schema("server_settings").delete()
        try await database.schema("users").deleteField("is_admin").update()
        try await database.schema("api_tokens").deleteField("expires_at").update()
    }
}
