import Foundation
import ShelfmarkCore
import Vapor

struct SetupInput: Content {
    var username: String
    var password: String
    var displayName: String?
    var libraryName: String?
}

struct LoginInput: Content {
    var username: String
    var password: String
}

struct UserDTO: Content {
    var id: UUID
    var username: String
    var displayName: String
}

struct SessionDTO: Content {
    var token: String
    var expiresAt: Date
    var user: UserDTO
}

struct SetupStatus: Content {
    var needsSetup: Bool
}

struct SetupResult: Content {
    var session: SessionDTO
    var library: LibraryDTO
}

struct TokenInput: Content {
    var name: String
    /// The token stops working after this many days (1–3650); without it, it works until revoked.
    var expiresInDays: Int?
}

struct TokenDTO: Content {
    var id: UUID
    var name: String
    var createdAt: Date?
    var expiresAt: Date?
    /// Only present in the answer that creates the token: it is never shown again.
    var token: String?
}

struct LibraryInput: Content {
    var name: String
    var loanPeriodDays: Int?
    var maxRenewals: Int?
    var publicCatalog: Bool?
}

struct LibraryDTO: Content {
    var id: UUID
    var name: String
    var loanPeriodDays: Int
    var maxRenewals: Int
    var publicCatalog: Bool
    var role: Role
    /// The library's time zone (IANA name): the server's unless one was chosen.
    var timeZone: String
    /// Days a renewal adds (absent: the loan period).
    var renewalDays: Int?
    /// Days before the due day a renewal opens (absent: any time).
    var renewWindowDays: Int?
    /// Days a book set aside for a hold waits to be collected.
    var holdPickupDays: Int
    /// Holds one member may have waiting or set aside at once.
    var maxHoldsPerMember: Int
    /// Fines; amounts in the currency's minor unit. `fineCap` and `fineBlockAt` absent: none.
    var fineMode: FinePolicy.Mode
    var finePerDay: Int
    var fineGraceDays: Int
    var fineCap: Int?
    var fineSuspensionDays: Int
    var fineBlockAt: Int?
    var currency: String
    /// Whether search engines may index the public catalog.
    var catalogIndexable: Bool = false
    /// Whether the kiosk asks members for their PIN after their card.
    var kioskAsksPin: Bool = false
    /// Whether the public catalog shows books lent this school year and the most borrowed this month.
    var publicFigures: Bool = false
    /// Months a closed loan keeps its borrower; absent: for ever.
    var retentionMonths: Int? = nil
    /// Reads the school's roster from its drop folder each night.
    var rosterNightly: Bool = false
}

/// The settings page's forms read these types too (`req.form(StaffInput.self)`), with the API's bounds.
extension LibraryInput: WebForm {}
extension StaffInput: WebForm {}

struct StaffInput: Content {
    var username: String
    var role: Role
    /// Creates the account when no user has this username yet.
    var password: String?
    var displayName: String?
}

struct StaffPatch: Content {
    var role: Role
}

/// Body of an owner setting a staff member's new password.
struct PasswordReset: Content {
    var password: String
}

struct StaffDTO: Content {
    var userId: UUID
    var username: String
    var displayName: String
    var role: Role
    /// The school e-mail a sign-in with the school's account is matched to.
    var email: String?
}

struct Health: Content {
    /// `ok`, or `degraded` when the database can be read but writes fail (a full disk).
    var status: String
    var database: String
    /// `ok` or `failing`.
    var writes: String
    /// Why writes fail, when they do.
    var problem: String?
}
