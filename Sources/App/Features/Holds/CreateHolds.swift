import Fluent
import FluentSQL
import SQLKit

/// Holds and the renewal policy. A library's renewal policy — days a renewal adds
/// (nil: the loan period), how many days before the due day a renewal opens (nil: any time) — and
/// how many days a held book waits on the hold shelf.
///
/// `holds`: a queue per title. `rank` orders it (lower first; reordering swaps ranks). A hold is
/// `waiting`, then `ready` when a copy is set aside for it (`copy_id`, `ready_at`, `pickup_by`), and
/// ends `fulfilled` (lent to its member), `cancelled` or `expired` (not collected in time; the copy
/// passes to the next). `suspended` holds keep their place but are passed over. A member has one
/// active hold per title, and a copy is set aside for one hold at most (partial unique indexes).
struct CreateHolds: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds one at a time.
        try await database.schema("libraries").field("renewal_days", .int).update()
        try await database.schema("libraries").field("renew_window_days", .int).update()
        try await database.schema("libraries").field("hold_pickup_days", .int, .required, .sql(.default(7))).update()
        try await database.schema("holds")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
            .field("member_id", .uuid, .required, .references("members", "id", onDelete: .cascade))
            .field("rank", .int64, .required)
            .field("state", .string, .required)
            .field("suspended", .bool, .required)
            .field("copy_id", .uuid, .references("copies", "id", onDelete: .setNull))
            .field("ready_at", .datetime)
            .field("pickup_by", .datetime)
            .field("placed_by", .string, .required)
            .field("created_at", .datetime, .required)
            .field("closed_at", .datetime)
            .create()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX holds_one_per_member ON holds (title_id, member_id) WHERE state IN ('waiting', 'ready')").run()
        try await sql.raw("CREATE UNIQUE INDEX holds_one_per_copy ON holds (copy_id) WHERE state = 'ready'").run()
        try await sql.raw("CREATE INDEX holds_queue ON holds (title_id, state, rank)").run()
        try await sql.raw("CREATE INDEX holds_library_state ON holds (library_id, state, pickup_by)").run()
        try await sql.raw("CREATE INDEX holds_member ON holds (member_id, state)").run()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("holds").delete()
        for field in ["renewal_days", "renew_window_days", "hold_pickup_days"] {
            try await database.schema("libraries").deleteField(.string(field)).update()
        }
    }
}
