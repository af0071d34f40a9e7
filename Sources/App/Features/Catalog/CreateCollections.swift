import Fluent
import FluentSQL

/// Smart collections — saved filters with a name, shown as chips on the catalog and
/// usable in the API and in printing. `filter` is the `CollectionFilter` as JSON.
struct CreateCollections: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("collections")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("name_key", .string, .required)
            .field("filter", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "library_id", "name_key")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("collections").delete()
    }
}
