import Fluent

/// An activity entry's detail as values (`ActivityDetail`, JSON), so a page says it in the reader's
/// language; `info` keeps the English text for the API and older entries.
struct AddActivityDetail: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("activities").field("detail", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("activities").deleteField("detail").update()
    }
}
