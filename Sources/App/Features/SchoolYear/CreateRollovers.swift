import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The year-end rollovers: the classes' mapping, what each member was before (so the rollover is
/// undone in one step), the reading goals it cleared, and the library's backup taken first.
struct CreateRollovers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("rollovers")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("at", .datetime, .required)
            .field("by_name", .string, .required)
            .field("mapping", .string, .required)
            .field("clear_goals", .bool, .required)
            .field("changes", .string, .required)
            .field("goals", .string, .required)
            .field("summary", .string, .required)
            .field("backup", .data, .required)
            .field("undone_at", .datetime)
            .field("undone_by", .string)
            .create()
        try await (database as! any SQLDatabase).raw("CREATE INDEX rollovers_library ON rollovers (library_id, at)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("rollovers").delete()
    }
}
