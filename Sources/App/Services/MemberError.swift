import ShelfmarkCore
import Vapor

enum MemberError: DomainError, Equatable {
    case notFound
    case duplicateCard(card: String, holder: String)
    case cardHasSpaces(String)
    case hasLoans(name: String, count: Int)

    var refusal: Refusal {
        switch self {
        case .notFound: .notFound
        case .cardHasSpaces: .invalid
        case .duplicateCard, .hasLoans: .conflict
        }
    }

    var code: String {
        switch self {
        case .notFound: "not_found"
        case .cardHasSpaces: "invalid"
        case .duplicateCard: "duplicate_card_id"
        case .hasLoans: "member_has_loans"
        }
    }

    var field: String? {
        switch self {
        case .duplicateCard, .cardHasSpaces: "cardId"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .duplicateCard(let card, let holder): ["cardId": card, "name": holder]
        case .hasLoans(_, let count): ["activeLoans": String(count)]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .notFound: t(.errMemberGone)
        case .duplicateCard(let card, let holder): t.format(.errDuplicateCard, card, holder)
        case .cardHasSpaces(let card): t.format(.errCardSpaces, card)
        case .hasLoans(let name, let count): t.format(.errMemberHasLoans, name, t(.loansOut, count))
        }
    }
}
