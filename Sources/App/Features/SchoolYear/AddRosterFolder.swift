import Fluent
import FluentSQL
import SQLKit

/// A library that reads the school's roster from its drop folder each night (`roster_nightly`), and
/// what each run read (`roster_runs.source_hash`: the same files are not read twice).
struct AddRosterFolder: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("roster_nightly", .bool, .required, .sql(.default(false))).update()
        try await database.schema("roster_runs").field("source_hash", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("roster_runs").deleteField("source_hash").update()
        try await database.schema("libraries").deleteField("roster_nightly").update()
    }
}
