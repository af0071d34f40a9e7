import Foundation
import ShelfmarkCore

/// How long a copy set aside waits, and how many holds one member may have.
struct HoldSettings: LibrarySettings {
    /// Days a book set aside for a hold waits to be collected.
    var holdPickupDays: Int?
    /// Holds one member may have waiting or set aside at once.
    var maxHoldsPerMember: Int?

    static var schemaConstraints: [String: JSONValue] {
        ["holdPickupDays": Rule.range(Limits.holdPickupDays), "maxHoldsPerMember": Rule.range(Limits.holdsPerMember)]
    }

    func apply(to library: Library) throws {
        if let days = try Check.range(holdPickupDays, Limits.holdPickupDays, field: "holdPickupDays") { library.holdPickupDays = days }
        if let n = try Check.range(maxHoldsPerMember, Limits.holdsPerMember, field: "maxHoldsPerMember") { library.maxHoldsPerMember = n }
    }
}
