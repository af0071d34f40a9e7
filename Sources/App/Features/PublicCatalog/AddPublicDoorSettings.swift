import Fluent
import FluentSQL
import ShelfmarkCore
import SQLKit

/// Two library settings of the public door: how many holds one member may have waiting or set aside
/// at once (10 unless the library says otherwise, so one member cannot empty the shelf from the public
/// catalog), and whether the kiosk asks members for their PIN after their card (off: the card alone).
struct AddPublicDoorSettings: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries")
            .field("max_holds_per_member", .int, .required, .sql(.default(Limits.defaultHoldsPerMember)))
            .update()
        try await database.schema("libraries")
            .field("kiosk_asks_pin", .bool, .required, .sql(.default(false)))
            .update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("kiosk_asks_pin").update()
        try await database.schema("libraries").deleteField("max_holds_per_member").update()
    }
}
