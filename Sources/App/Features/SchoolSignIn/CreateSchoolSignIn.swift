import Fluent
import FluentSQL
import SQLKit

/// Sign-in with the school's accounts: a staff account's school e-mail (`users.email`, unique, as the
/// provider's verified e-mail is matched to it), and the sign-ins on their way through the provider
/// (`school_sign_ins`: the state's hash, the nonce and PKCE verifier, for ten minutes, used once).
struct CreateSchoolSignIn: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("users").field("email", .string).update()
        try await database.sql.raw("CREATE UNIQUE INDEX users_email ON users (email)").run()
        try await database.schema("school_sign_ins")
            .id()
            .field("state_hash", .string, .required)
            .field("binding_hash", .string, .required)
            .field("nonce", .string, .required)
            .field("verifier", .string, .required)
            .field("redirect_uri", .string, .required)
            .field("library_id", .uuid, .references("libraries", "id", onDelete: .cascade))
            .field("next_path", .string)
            .field("expires_at", .datetime, .required)
            .unique(on: "state_hash")
            .create()
        try await database.sql.raw("CREATE INDEX school_sign_ins_expiry ON school_sign_ins (expires_at)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("school_sign_ins").delete()
        try await database.sql.raw("DROP INDEX users_email").run()
        try await database.schema("users").deleteField("email").update()
    }
}
