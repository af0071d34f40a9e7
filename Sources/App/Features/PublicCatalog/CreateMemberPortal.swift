import Fluent
import FluentSQL
import SQLKit

/// The public catalog's member sign-in: a member's PIN (bcrypt, set by the library's
/// staff; nil: no PIN, the emailed link only), whether search engines may index the library's public
/// catalog (off: every public page says `noindex`), and `member_sessions`: a signed-in member's session
/// (`kind = 'session'`) or an emailed one-time link (`kind = 'link'`, deleted when used), each kept only
/// as the SHA-256 of its token.
struct CreateMemberPortal: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("catalog_indexable", .bool, .required, .sql(.default(false))).update()
        try await database.schema("members").field("pin_hash", .string).update()
        try await database.schema("member_sessions")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("member_id", .uuid, .required, .references("members", "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("token_hash", .string, .required)
            .field("expires_at", .datetime, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX member_sessions_member ON member_sessions (member_id, kind)").run()
        try await sql.raw("CREATE INDEX member_sessions_expiry ON member_sessions (expires_at)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("member_sessions").delete()
        try await database.schema("members").deleteField("pin_hash").update()
        try await database.schema("libraries").deleteField("catalog_indexable").update()
    }
}
