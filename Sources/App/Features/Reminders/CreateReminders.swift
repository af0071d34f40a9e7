import Fluent
import FluentSQL
import SQLKit

/// Reminders. A library's reminder policy (off by default; the hour of the daily run in
/// its time zone; a due-soon reminder N days before and up to three overdue reminders after N, M, K
/// days; the language for members who have none; a contact line for messages and letters), a member's
/// language, each loan's last reminder (`reminder_stage`: 0 none, 1 due soon, 2–4 the overdue ones; a
/// stage is reached once, so a run made twice sends nothing twice), the mail server (`mail_servers`:
/// the installation's, `library_id` NULL, or a library's own; the password sealed with AES-GCM),
/// the templates a library edited (`mail_templates`; the four languages' defaults are in the
/// translation files) and `mail_messages`: every message composed, its status and the server's answer
/// (the outbox and the delivery log in one).
struct CreateReminders: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("reminders_on", .bool, .required, .sql(.default(false))).update()
        try await database.schema("libraries").field("reminder_hour", .int, .required, .sql(.default(8))).update()
        try await database.schema("libraries").field("remind_before_days", .int).update()
        try await database.schema("libraries").field("remind_overdue_1", .int).update()
        try await database.schema("libraries").field("remind_overdue_2", .int).update()
        try await database.schema("libraries").field("remind_overdue_3", .int).update()
        try await database.schema("libraries").field("language", .string, .required, .sql(.default("en"))).update()
        try await database.schema("libraries").field("contact", .string).update()
        try await database.schema("members").field("language", .string).update()
        try await database.schema("loans").field("reminder_stage", .int, .required, .sql(.default(0))).update()
        try await database.schema("loans").field("reminded_at", .datetime).update()
        try await database.schema("mail_servers")
            .id()
            .field("library_id", .uuid, .references("libraries", "id", onDelete: .cascade))
            .field("host", .string, .required)
            .field("port", .int, .required)
            .field("security", .string, .required)
            .field("username", .string)
            .field("password_sealed", .string)
            .field("sender_address", .string, .required)
            .field("sender_name", .string)
            .field("updated_at", .datetime, .required)
            .create()
        try await database.schema("mail_templates")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("language", .string, .required)
            .field("subject", .string, .required)
            .field("body", .string, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "library_id", "kind", "language")
            .create()
        try await database.schema("mail_messages")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("kind", .string, .required)
            .field("member_id", .uuid, .references("members", "id", onDelete: .setNull))
            .field("member_card_id", .string)
            .field("member_name", .string)
            .field("recipient", .string, .required)
            .field("language", .string, .required)
            .field("subject", .string, .required)
            .field("body", .string, .required)
            .field("loan_count", .int, .required, .sql(.default(0)))
            .field("status", .string, .required)
            .field("problem", .string)
            .field("reply", .string)
            .field("created_by", .string, .required)
            .field("created_at", .datetime, .required)
            .field("sent_at", .datetime)
            .field("lease_until", .datetime)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX mail_servers_library ON mail_servers (library_id) WHERE library_id IS NOT NULL").run()
        try await sql.raw("CREATE UNIQUE INDEX mail_servers_installation ON mail_servers ((library_id IS NULL)) WHERE library_id IS NULL").run()
        try await sql.raw("CREATE INDEX mail_messages_log ON mail_messages (library_id, created_at)").run()
        try await sql.raw("CREATE INDEX mail_messages_queued ON mail_messages (status, library_id) WHERE status IN ('queued', 'sending')").run()
        try await sql.raw("CREATE INDEX mail_messages_member ON mail_messages (member_id, created_at)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("mail_messages").delete()
        try await database.schema("mail_templates").delete()
        try await database.schema("mail_servers").delete()
        try await database.schema("loans").deleteField("reminded_at").update()
        try await database.schema("loans").deleteField("reminder_stage").update()
        try await database.schema("members").deleteField("language").update()
        for field in ["reminders_on", "reminder_hour", "remind_before_days", "remind_overdue_1", "remind_overdue_2", "remind_overdue_3", "language", "contact"] {
            try await database.schema("libraries").deleteField(.string(field)).update()
        }
    }
}
