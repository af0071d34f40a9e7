import Fluent
import SQLKit

struct CreateLoan: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("loans")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("copy_id", .uuid, .references("copies", "id", onDelete: .setNull))
            .field("title_id", .uuid, .references("titles", "id", onDelete: .setNull))
            .field("member_id", .uuid, .references("members", "id", onDelete: .setNull))
            .field("title_text", .string, .required)
            .field("member_card_id", .string, .required)
            .field("member_name", .string, .required)
            .field("checked_out_at", .datetime, .required)
            .field("due_at", .datetime, .required)
            .field("returned_at", .datetime)
            .field("renewals", .int, .required)
            .field("checked_out_by", .string, .required)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.create(index: "loans_library_active_due").on("loans")
            .column("library_id").column("returned_at").column("due_at").run()
        try await sql.create(index: "loans_copy").on("loans").column("copy_id").run()
        try await sql.create(index: "loans_title").on("loans").column("title_id").run()
        try await sql.create(index: "loans_member").on("loans").column("member_id").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("loans").delete()
    }
}
