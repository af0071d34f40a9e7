import Foundation
import ShelfmarkCore
import Vapor

/// A line of a member's fines ledger: a charge for a late return, a payment, or a waiver.
enum FineKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case charge, payment, waiver
}

struct FineEntryDTO: Content, Equatable {
    var id: UUID
    var kind: FineKind
    /// In the currency's minor unit (cents); always positive: a charge adds it, a payment or waiver takes it off.
    var amount: Int
    var loanId: UUID?
    /// The book a charge is for.
    var title: String?
    /// Why a fine was waived.
    var reason: String?
    var createdBy: String
    var createdAt: Date
}

/// A member's fines: what they owe, what their overdue loans would add if returned today, a suspension,
/// and the ledger, newest first (at most 100 lines).
struct FineAccountDTO: Content {
    var memberId: UUID
    var mode: FinePolicy.Mode
    var currency: String
    /// Charges less payments and waivers, in minor units.
    var balance: Int
    /// What the member's overdue loans would be charged if returned now (money mode).
    var accruing: Int
    /// No new loans before this moment (suspension mode).
    var suspendedUntil: Date?
    /// Whether lending to the member is refused now (balance at the library's limit, or suspended).
    var blocked: Bool
    var entries: [FineEntryDTO]
}

/// A payment: `amount` in minor units, the whole balance when absent.
struct FinePayment: Content {
    var amount: Int?
}

/// A waiver: `amount` in minor units (the whole balance when absent) and why.
struct FineWaiver: Content {
    var amount: Int?
    var reason: String
}

extension FinePolicy.Mode: SchemaEnum {}
