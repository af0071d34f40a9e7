import Fluent
import FluentSQL

/// Secret calendar links. A member's feed lists their open loans on their due dates; a
/// library's staff feed (no member) lists every open loan. The token is kept only as its hash; making
/// a new link replaces the old one, and deleting the row stops it. `lang`: the language the feed's
/// words are in (the staff member's who made it).
struct CreateCalendarFeeds: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("calendar_feeds")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("member_id", .uuid, .references("members", "id", onDelete: .cascade))
            .field("token_hash", .string, .required)
            .field("lang", .string, .required)
            .field("created_at", .datetime, .required)
            .unique(on: "token_hash")
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX calendar_feeds_member ON calendar_feeds (member_id) WHERE member_id IS NOT NULL").run()
        try await sql.raw("CREATE UNIQUE INDEX calendar_feeds_staff ON calendar_feeds (library_id) WHERE member_id IS NULL").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("calendar_feeds").delete()
    }
}
