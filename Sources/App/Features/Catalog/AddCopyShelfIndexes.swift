import Fluent
import FluentSQL
import SQLKit

/// The shelves copies are on (the catalog's shelf list, `LabelSheets.locations`) read by
/// seeking from one shelf to the next in `(library_id, location)`, a few dozen index seeks however many
/// copies there are; "copies added since" (this week's labels) an index range on `(library_id, created_at)`.
struct AddCopyShelfIndexes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE INDEX copies_library_location ON copies (library_id, location)").run()
        try await sql.raw("CREATE INDEX copies_library_created ON copies (library_id, created_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.drop(index: "copies_library_location").run()
        try await sql.drop(index: "copies_library_created").run()
    }
}
