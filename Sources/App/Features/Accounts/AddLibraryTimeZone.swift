import Fluent

/// A library's time zone (an IANA name such as "Europe/Dublin"): loans are due at the end of their
/// due day there. Empty: the server's time zone.
struct AddLibraryTimeZone: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("time_zone", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("time_zone").update()
    }
}
