import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Shelves as things — a name (what a copy's `location` holds), a room and a short
/// code — and the stocktakes taken at them, each scan kept with what it found. Every location text
/// copies already have becomes a shelf here (its name exactly as written, a code made from it), so
/// nothing is lost. `copies.seen_at` is when a stocktake last saw the copy ("not seen for a year").
struct CreateShelves: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await database.schema("shelves")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("name", .string, .required)
            .field("room", .string)
            .field("code", .string, .required)
            .field("created_at", .datetime, .required)
            .field("updated_at", .datetime, .required)
            .unique(on: "library_id", "name")
            .unique(on: "library_id", "code")
            .create()
        try await database.schema("stocktakes")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("shelf_id", .uuid, .required, .references("shelves", "id", onDelete: .cascade))
            .field("shelf_name", .string, .required)
            .field("started_at", .datetime, .required)
            .field("finished_at", .datetime)
            .field("started_by", .string)
            .field("found", .int, .required, .sql(.default(0)))
            .field("missing", .int, .required, .sql(.default(0)))
            .field("misplaced", .int, .required, .sql(.default(0)))
            .field("unknown", .int, .required, .sql(.default(0)))
            .create()
        try await sql.raw("CREATE INDEX stocktakes_shelf_started ON stocktakes (shelf_id, started_at)").run()
        try await database.schema("stocktake_scans")
            .id()
            .field("stocktake_id", .uuid, .required, .references("stocktakes", "id", onDelete: .cascade))
            .field("copy_id", .uuid, .references("copies", "id", onDelete: .setNull))
            .field("code", .string, .required)
            .field("outcome", .string, .required)
            .field("expected", .string)
            .field("scanned_at", .datetime, .required)
            .unique(on: "stocktake_id", "copy_id")
            .create()
        try await sql.raw("CREATE INDEX stocktake_scans_stocktake ON stocktake_scans (stocktake_id, scanned_at)").run()
        try await database.schema("copies").field("seen_at", .datetime).update()
        try await sql.raw("CREATE INDEX copies_library_seen ON copies (library_id, seen_at)").run()

        // Every location already written on a copy becomes a shelf of its library.
        struct Row: Decodable { var library_id: UUID; var location: String }
        let rows = try await sql.raw("SELECT DISTINCT library_id, location FROM copies WHERE location IS NOT NULL AND location <> '' ORDER BY library_id, location")
            .all(decoding: Row.self)
        var taken: [UUID: Set<String>] = [:]
        let now = Date()
        for row in rows {
            let code = ShelfCode.unique(ShelfCode.derived(from: row.location), taken: taken[row.library_id, default: []])
            taken[row.library_id, default: []].insert(code)
            try await sql.raw("""
                INSERT INTO shelves (id, library_id, name, code, created_at, updated_at)
                VALUES (\(bind: UUID()), \(bind: row.library_id), \(bind: row.location), \(bind: code), \(bind: now), \(bind: now))
                """).run()
        }
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).drop(index: "copies_library_seen").run()
        try await database.schema("copies").deleteField("seen_at").update()
        try await database.schema("stocktake_scans").delete()
        try await database.schema("stocktakes").delete()
        try await database.schema("shelves").delete()
    }
}
