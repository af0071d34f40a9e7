import Fluent
import FluentSQL
import SQLKit

/// What lets a door end with its person: when each kiosk was last used (the settings page lists
/// kiosks with it, and a kiosk unused for `Kiosks.unusedLifetime` ends itself; kiosks started before
/// count their start as their last use), and who made the staff calendar feed (it stops when they
/// leave the library or lose the role that made it).
struct AddSecurityLifetimes: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("kiosks").field("last_used_at", .datetime).update()
        try await (database as! any SQLDatabase).raw("UPDATE kiosks SET last_used_at = created_at").run()
        try await database.schema("calendar_feeds").field("made_by", .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("calendar_feeds").deleteField("made_by").update()
        try await database.schema("kiosks").deleteField("last_used_at").update()
    }
}
