import Fluent
import FluentSQL
import SQLKit

/// Two indexes of the titles that held an entry for every title though they serve a few: favourites
/// and reading levels. Most titles are neither a favourite nor levelled, and an index entry for them
/// cost 54 bytes each at 100,000 titles (5.4 MB apiece). Each is now partial, holding only the titles
/// it can find. The favourites' index is also in A–Z order, so a page of favourites is read off it
/// in order instead of walking the A–Z index for the few that are favourites.
///
/// A query uses a partial index only when its condition implies the index's: the favourites' filter
/// names the column itself (`t.favorite`, no bound value), and a level's filter (`level_scheme = ?`)
/// implies that it is not null on both databases.
struct PartialTitleIndexes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("DROP INDEX IF EXISTS titles_library_favorite").run()
        try await sql.raw("CREATE INDEX titles_library_favorite ON titles (library_id, wishlist, sort_key) WHERE favorite").run()
        try await sql.raw("DROP INDEX IF EXISTS titles_library_level").run()
        try await sql.raw("CREATE INDEX titles_library_level ON titles (library_id, level_scheme, level_value) WHERE level_scheme IS NOT NULL").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("DROP INDEX IF EXISTS titles_library_favorite").run()
        try await sql.raw("CREATE INDEX titles_library_favorite ON titles (library_id, wishlist, favorite)").run()
        try await sql.raw("DROP INDEX IF EXISTS titles_library_level").run()
        try await sql.raw("CREATE INDEX titles_library_level ON titles (library_id, level_scheme, level_value)").run()
    }
}
