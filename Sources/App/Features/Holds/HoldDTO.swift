import Foundation
import Vapor

/// Where a hold stands.
enum HoldState: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// In the queue for the title.
    case waiting
    /// A copy is set aside for the member until `pickupBy`.
    case ready
    /// Lent to the member.
    case fulfilled
    case cancelled
    /// Not collected in time; the copy passed to the next in line.
    case expired

    static let active: [HoldState] = [.waiting, .ready]
}

/// A member's place in the queue for a title.
struct HoldDTO: Content, Equatable {
    var id: UUID
    var titleId: UUID
    var title: String
    var memberId: UUID
    var cardId: String
    var memberName: String
    var state: HoldState
    /// 1 for the first in line, among the title's active holds; absent once the hold has ended.
    var position: Int?
    /// Kept in the queue but passed over until resumed.
    var suspended: Bool
    /// The copy set aside (ready holds).
    var copyBarcode: String?
    var readyAt: Date?
    /// The last moment to collect a ready hold (the end of that day in the library's time zone).
    var pickupBy: Date?
    var createdAt: Date
}

/// Places a hold: the title, and the member by id or card ID.
struct HoldInput: Content {
    var titleId: UUID
    var memberId: UUID?
    var cardId: String?
}

/// Changes a hold: suspend or resume it, or move it one place up or down its title's queue.
struct HoldPatch: Content {
    var suspended: Bool?
    var move: HoldMove?
}

enum HoldMove: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case up, down
}

/// Who a returned copy was put aside for (the return screen's "put aside for Mia (S012)").
struct HeldForDTO: Content, Equatable {
    var holdId: UUID
    var memberId: UUID
    var cardId: String
    var memberName: String
    var pickupBy: Date
}
