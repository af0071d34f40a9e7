import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The loans counted by day and facet and by borrower and month (`LoanTallies`), and each copy's
/// last loan (`copies.last_lent_at`, which the weeding list reads), counted here from the loans
/// every library has.
struct CreateLoanTallies: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("loan_days")
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("facet", .string, .required)
            .field("day", .int, .required)
            .field("value", .string, .required)
            .field("lent", .int64, .required)
            .field("returned", .int64, .required)
            .field("renewed", .int64, .required)
            .field("late", .int64, .required)
            .unique(on: "library_id", "facet", "day", "value")
            .create()
        try await database.schema("borrower_months")
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("month", .int, .required)
            .field("card", .string, .required)
            .field("grade", .string, .required)
            .field("loans", .int64, .required)
            .unique(on: "library_id", "month", "card", "grade")
            .create()
        try await database.schema("copies").field("last_lent_at", .datetime).update()
        let sql = database as! any SQLDatabase
        struct IDRow: Decodable { var id: UUID }
        for library in try await sql.raw("SELECT id FROM libraries").all(decoding: IDRow.self) {
            try await LoanTallies.recount(library: library.id, on: sql)
        }
    }

    func revert(on database: any Database) async throws {
        try await database.schema("copies").deleteField("last_lent_at").update()
        for table in LoanTallies.tables.reversed() { try await database.schema(table).delete() }
    }
}
