import Fluent
import FluentSQL
import SQLKit

/// The classes a staff member teaches in a library (from the school's roster): a class teacher sees the
/// readers report of their own classes.
struct AddClassTeachers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("class_teachers")
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("user_id", .uuid, .required, .references("users", "id", onDelete: .cascade))
            .field("grade", .string, .required)
            .unique(on: "library_id", "user_id", "grade")
            .create()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("class_teachers").delete()
    }
}
