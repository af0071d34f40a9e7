import Fluent

/// A wish says who asked for it and how much it matters: `requested_by`, `priority` (1 low,
/// 2 normal, 3 high). Both empty for catalog titles.
struct AddWishDetails: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds one at a time.
        try await database.schema("titles").field("requested_by", .string).update()
        try await database.schema("titles").field("priority", .int).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("titles").deleteField("priority").update()
        try await database.schema("titles").deleteField("requested_by").update()
    }
}
