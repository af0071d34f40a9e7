import ShelfmarkCore
import Vapor

/// The refusals of the public catalog's member sign-in.
enum PortalError: DomainError, Equatable {
    /// The card and PIN do not match (or the card has no PIN, or no such card: said alike).
    case badCredentials
    /// A PIN is 4 to 12 digits.
    case badPIN
    /// A sign-in link used already, ended, or never made.
    case linkInvalid

    var described: Described {
        switch self {
        case .badCredentials: .init(.unauthenticated, "member_bad_credentials", field: "pin") { $0(.errPortalBadCredentials) }
        case .badPIN: .init(.invalid, "bad_pin", field: "pin") { $0.format(.errPortalBadPIN, $0.number(MemberPortal.pinDigits.lowerBound), $0.number(MemberPortal.pinDigits.upperBound)) }
        case .linkInvalid: .init(.gone, "member_link_invalid") { $0(.errPortalLinkInvalid) }
        }
    }
}
