import ShelfmarkCore
import Vapor

enum MemberError: DomainError, Equatable {
    case notFound
    case duplicateCard(card: String, holder: String)
    case cardHasSpaces(String)
    case hasLoans(name: String, count: Int)

    var described: Described {
        switch self {
        case .notFound:
            .init(.notFound, "not_found") { $0(.errMemberGone) }
        case .duplicateCard(let card, let holder):
            .init(.conflict, "duplicate_card_id", field: "cardId", details: ["cardId": card, "name": holder]) { $0.format(.errDuplicateCard, card, holder) }
        case .cardHasSpaces(let card):
            .init(.invalid, "invalid", field: "cardId") { $0.format(.errCardSpaces, card) }
        case .hasLoans(let name, let count):
            .init(.conflict, "member_has_loans", details: ["activeLoans": String(count)]) { $0.format(.errMemberHasLoans, name, $0(.loansOut, count)) }
        }
    }
}
