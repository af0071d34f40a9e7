import Fluent

/// When a copy was marked lost, damaged or withdrawn, and a note.
struct AddCopyStatusDetails: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("copies").field("status_note", .string).update()
        try await database.schema("copies").field("status_at", .datetime).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("copies").deleteField("status_at").update()
        try await database.schema("copies").deleteField("status_note").update()
    }
}
