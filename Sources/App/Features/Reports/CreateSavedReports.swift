import Fluent
import FluentSQL
import Foundation
import SQLKit

/// Saved reports — a report's kind and options under a name, and when an owner has them mailed
/// (monthly or termly, to whom, in which language; the last period mailed, so each is mailed once) —
/// and the files a queued message carries (`mail_messages.attachments`: JSON, cleared once sent).
struct CreateSavedReports: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("saved_reports")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("kind", .string, .required)
            .field("options", .string, .required)
            .field("schedule", .string, .required, .sql(.default("none")))
            .field("recipients", .string, .required, .sql(.default("")))
            .field("language", .string, .required)
            .field("created_by", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .field("last_period", .string)
            .field("last_sent_at", .datetime)
            .unique(on: "library_id", "name_key")
            .create()
        try await database.schema("mail_messages").field("attachments", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("mail_messages").deleteField("attachments").update()
        try await database.schema("saved_reports").delete()
    }
}
