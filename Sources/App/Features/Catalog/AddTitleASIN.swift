import Fluent

/// A book's Amazon ASIN, kept when an import gives one where an ISBN goes (real Goodreads and
/// StoryGraph exports do, for Kindle editions).
struct AddTitleASIN: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("titles").field("asin", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("titles").deleteField("asin").update()
    }
}
