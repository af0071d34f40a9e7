import Fluent
import SQLKit

/// The last change to many books of each library, with what it overwrote, so it can be undone.
struct CreateBulkChanges: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("bulk_changes")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("at", .datetime, .required)
            .field("actor", .string, .required)
            .field("action", .string, .required)
            .field("value", .string)
            .field("changed", .int, .required)
            .field("skipped", .string, .required)
            .field("undo", .string, .required)
            .unique(on: "library_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("bulk_changes").delete()
    }
}
