import Fluent

struct CreateLibrary: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries")
            .id()
            .field("name", .string, .required)
            .field("loan_period_days", .int, .required)
            .field("max_renewals", .int, .required)
            .field("public_catalog", .bool, .required)
            .field("next_accession", .int, .required)
            .field("created_at", .datetime)
            .field("updated_at", .datetime)
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").delete()
    }
}
