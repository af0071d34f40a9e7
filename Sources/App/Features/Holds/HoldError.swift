import ShelfmarkCore
import Vapor

/// The refusals of holds.
enum HoldError: DomainError, Equatable {
    case notFound
    /// The hold was fulfilled, cancelled or expired: nothing to change.
    case ended
    case alreadyWaiting(member: String)
    case alreadyBorrowing(member: String)
    case queueFull(max: Int)
    /// Every copy on the shelf is set aside for another member; lending one needs `lendHeld`.
    case heldForOther(member: String, card: String)
    /// The member has as many holds as the library allows one member.
    case tooManyHolds(max: Int)

    var described: Described {
        switch self {
        case .notFound:
            .init(.notFound, "hold_not_found") { $0(.errHoldNotFound) }
        case .ended:
            .init(.conflict, "hold_ended") { $0(.errHoldEnded) }
        case .alreadyWaiting(let member):
            .init(.conflict, "hold_exists", field: "cardId") { $0.format(.errHoldExists, member) }
        case .alreadyBorrowing(let member):
            .init(.conflict, "hold_already_borrowing", field: "cardId") { $0.format(.errHoldBorrowing, member) }
        case .queueFull(let max):
            .init(.conflict, "hold_queue_full") { $0.format(.errHoldQueueFull, $0.number(max)) }
        case .tooManyHolds(let max):
            .init(.conflict, "too_many_holds", details: ["max": String(max)]) { $0.format(.errTooManyHolds, $0.number(max)) }
        case .heldForOther(let member, let card):
            .init(.conflict, "held_for_other", details: ["member": member, "cardId": card]) { $0.format(.errHeldForOther, member, card) }
        }
    }
}
