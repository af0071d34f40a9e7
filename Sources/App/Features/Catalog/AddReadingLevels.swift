import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// A title's reading level read into its scheme, its number and its AR points
/// (`ReadingLevel.parse` of the `reading_level` text, kept by `Title.refreshDerived` and the import's
/// rows), so "AR 3.0–4.5" is an index range. Existing levels are read here.
struct AddReadingLevels: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await database.schema("titles").field("level_scheme", .string).update()
        try await database.schema("titles").field("level_value", .double).update()
        try await database.schema("titles").field("level_points", .double).update()
        struct Row: Decodable { var id: UUID; var reading_level: String }
        var after: UUID?
        while true {
            var query = sql.select().column("id").column("reading_level").from("titles").where("reading_level", .isNot, SQLLiteral.null)
                .orderBy("id").limit(2_000)
            if let after { query = query.where("id", .greaterThan, after) }
            let rows = try await query.all(decoding: Row.self)
            guard let last = rows.last else { break }
            for row in rows {
                let level = ReadingLevel.parse(row.reading_level)
                try await sql.update("titles").set("level_scheme", to: level?.scheme.rawValue).set("level_value", to: level?.value)
                    .set("level_points", to: level?.points).where("id", .equal, row.id).run()
            }
            after = last.id
        }
        try await sql.raw("CREATE INDEX titles_library_level ON titles (library_id, level_scheme, level_value)").run()
    }

    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).drop(index: "titles_library_level").run()
        for column in ["level_points", "level_value", "level_scheme"] { try await database.schema("titles").deleteField(.string(column)).update() }
    }
}
