import Fluent
import FluentSQL
import SQLKit

/// Fines. A library's fine policy (`FinePolicy`: off by default, money per day late with
/// grace days and a cap per loan, or days of suspension instead; a balance at which lending stops; the
/// currency), a member's suspension, and `fines`: a ledger per member of charges, payments and waivers,
/// each a positive amount in the currency's minor unit. A member's balance is charges less payments
/// and waivers. A loan is charged once (a unique index on its charge).
struct CreateFines: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds one at a time.
        try await database.schema("libraries").field("fine_mode", .string, .required, .sql(.default("off"))).update()
        try await database.schema("libraries").field("fine_per_day", .int, .required, .sql(.default(0))).update()
        try await database.schema("libraries").field("fine_grace_days", .int, .required, .sql(.default(0))).update()
        try await database.schema("libraries").field("fine_cap", .int).update()
        try await database.schema("libraries").field("fine_suspension_days", .int, .required, .sql(.default(1))).update()
        try await database.schema("libraries").field("fine_block_at", .int).update()
        try await database.schema("libraries").field("currency", .string, .required, .sql(.default("EUR"))).update()
        try await database.schema("members").field("suspended_until", .datetime).update()
        try await database.schema("fines")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("member_id", .uuid, .required, .references("members", "id", onDelete: .cascade))
            .field("loan_id", .uuid, .references("loans", "id", onDelete: .setNull))
            .field("kind", .string, .required)
            .field("amount", .int64, .required)
            .field("title_text", .string)
            .field("reason", .string)
            .field("created_by", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX fines_member ON fines (member_id, created_at)").run()
        try await sql.raw("CREATE UNIQUE INDEX fines_one_charge_per_loan ON fines (loan_id) WHERE kind = 'charge'").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("fines").delete()
        try await database.schema("members").deleteField("suspended_until").update()
        for field in ["fine_mode", "fine_per_day", "fine_grace_days", "fine_cap", "fine_suspension_days", "fine_block_at", "currency"] {
            try await database.schema("libraries").deleteField(.string(field)).update()
        }
    }
}
