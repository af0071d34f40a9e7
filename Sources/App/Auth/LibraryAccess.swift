import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The library a request is about, the user's role in it and its settings, checked against the
/// action the route performs. A library the user does not belong to is a 404, not a 403: its
/// existence is not revealed.
struct LibraryContext: Sendable {
    let libraryID: UUID
    let name: String
    let policy: LoanPolicy
    let role: Role
    let user: AuthenticatedUser

    /// The library as the server's own background work acts in it ("Shelfmark" in its logs); nil when
    /// it is gone.
    static func server(_ library: UUID, on db: any Database) async throws -> LibraryContext? {
        struct Row: Decodable { var name: String; var loan_period_days: Int; var max_renewals: Int; var time_zone: String? }
        guard let row = try await db.sql.raw("SELECT name, loan_period_days, max_renewals, time_zone FROM libraries WHERE id = \(bind: library)")
            .first(decoding: Row.self) else { return nil }
        return LibraryContext(libraryID: library, name: row.name,
                              policy: LoanPolicy(loanPeriodDays: row.loan_period_days, maxRenewals: row.max_renewals, timeZone: Library.zone(row.time_zone)),
                              role: .owner, user: AuthenticatedUser(id: UUID(), username: "Shelfmark", displayName: "Shelfmark"))
    }
}

extension Request {
    func library(_ action: Role.Action) async throws -> LibraryContext {
        _ = try self.user
        guard let libraryID = parameters.get("libraryID", as: UUID.self) else {
            throw AccountError.libraryNotFound
        }
        return try await library(action, id: libraryID)
    }

    /// The library `libraryID` for the signed-in user: 404 when not a member, 403 when the role is too low.
    func library(_ action: Role.Action, id libraryID: UUID) async throws -> LibraryContext {
        let user = try self.user
        let membership: MembershipLookup.Membership?
        if let lookup = storage[MembershipLookup.Key.self], lookup.libraryID == libraryID {
            membership = lookup.membership
        } else if let row = try await sql.raw("""
            SELECT m.role, l.name, l.loan_period_days, l.max_renewals, l.time_zone FROM memberships m
            JOIN libraries l ON l.id = m.library_id
            WHERE m.user_id = \(bind: user.id) AND m.library_id = \(bind: libraryID) AND l.pending_job_id IS NULL
            """).first() {
            membership = MembershipLookup.Membership(
                role: Role(rawValue: try row.decode(column: "role", as: String.self)) ?? .viewer,
                libraryName: try row.decode(column: "name", as: String.self),
                policy: LoanPolicy(loanPeriodDays: try row.decode(column: "loan_period_days", as: Int.self),
                                   maxRenewals: try row.decode(column: "max_renewals", as: Int.self),
                                   timeZone: Library.zone(try row.decode(column: "time_zone", as: String?.self))))
        } else {
            membership = nil
        }
        guard let membership else { throw AccountError.libraryNotFound }
        guard membership.role.may(action) else { throw AccountError.roleTooLow(membership.role, needs: action.minimumRole) }
        return LibraryContext(libraryID: libraryID, name: membership.libraryName, policy: membership.policy, role: membership.role, user: user)
    }
}
