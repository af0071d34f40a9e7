import Fluent

/// How long a library keeps who borrowed what (`retention_months`; none: for ever, the default).
struct AddRetention: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("retention_months", .int).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("retention_months").update()
    }
}
