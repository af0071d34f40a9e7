import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// How holds shape a check-out: decided before the write (`resolve`, so the preview, the
/// API's dry run and the lending refuse alike), settled in the check-out's transaction.
extension Circulation {
    struct HoldContext: Sendable {
        /// The borrower's own active hold on the title, and the copy set aside for it.
        var ownHold: UUID?
        var ownCopy: UUID?
        /// The librarian said to lend a copy set aside for someone else.
        var takeHeld: Bool
        /// Others waiting for the title (not suspended).
        var waiting: Int
    }

    /// Refuses, before anything is written, a check-out that would take a copy set aside for another
    /// member, unless `input.lendHeld` says so.
    static func holdContext(_ input: CheckoutInput, member: Borrower, target: Target, in scope: Scope) async throws -> HoldContext {
        let (title, db) = (target.title.id, scope.db)
        // Most titles have no holds: one indexed look answers for them (made by the statement that read the
        // title, or once for all of a sync push's titles, `PushBatch`), and the check-out reads nothing more.
        let none = HoldContext(ownHold: nil, ownCopy: nil, takeHeld: input.lendHeld ?? false, waiting: 0)
        if scope.batch?.hasNoHolds(title) == true || target.held == false { return none }
        if target.held == nil {
            guard try await db.sql.raw("SELECT 1 AS n FROM holds WHERE title_id = \(bind: title) AND state IN ('waiting', 'ready') LIMIT 1")
                .first() != nil else { return none }
        }
        struct Own: Decodable { var id: UUID; var copy_id: UUID? }
        let own = try await db.sql.raw("""
            SELECT id, copy_id FROM holds WHERE title_id = \(bind: title) AND member_id = \(bind: member.id) AND state IN ('waiting', 'ready')
            """).first(decoding: Own.self)
        let lendHeld = input.lendHeld ?? false
        struct Aside: Decodable { var copy_id: UUID; var first_name: String; var last_name: String; var card_id: String }
        func heldForOther(_ aside: Aside) -> HoldError {
            .heldForOther(member: Member.fullName(first: aside.first_name, last: aside.last_name), card: aside.card_id)
        }
        let asideSelect: SQLQueryString = """
            SELECT h.copy_id, m.first_name, m.last_name, m.card_id FROM holds h JOIN members m ON m.id = h.member_id
            WHERE h.state = 'ready' AND h.member_id <> \(bind: member.id) AND
            """
        if let copy = target.copyID {
            if !lendHeld, let aside = try await db.sql.raw(asideSelect + " h.copy_id = \(bind: copy)").first(decoding: Aside.self) {
                throw heldForOther(aside)
            }
        } else if own?.copy_id == nil, !lendHeld, try await Holds.freeCopy(title: title, on: db) == nil,
                  let aside = try await db.sql.raw(asideSelect + " h.title_id = \(bind: title) ORDER BY h.pickup_by LIMIT 1").first(decoding: Aside.self) {
            throw heldForOther(aside)
        }
        return HoldContext(ownHold: own?.id, ownCopy: own?.copy_id, takeHeld: lendHeld,
                           waiting: try await Holds.waitingOthers(title: title, member: member.id, on: db))
    }

    /// The copy a check-out by title claims: the one set aside for the borrower, else one on the shelf
    /// set aside for nobody, else (when the librarian said so) one set aside for someone else.
    /// `lock`: PostgreSQL's `FOR UPDATE SKIP LOCKED` for the row chosen.
    static func claimableCopy(title: UUID, holds: HoldContext, lock: SQLQueryString = "") -> SQLQueryString {
        if let own = holds.ownCopy { return "\(bind: own)" }
        let aside: SQLQueryString = "EXISTS (SELECT 1 FROM holds h WHERE h.copy_id = copies.id AND h.state = 'ready')"
        return "(SELECT id FROM copies WHERE title_id = \(bind: title) AND status = \(bind: CopyStatus.available.rawValue)"
            + (holds.takeHeld ? " ORDER BY " + aside + ", copy_number" : " AND NOT " + aside + " ORDER BY copy_number") + " LIMIT 1" + lock + ")"
    }

    /// After the claim, in its transaction: the borrower's own hold is fulfilled (a copy set aside for
    /// it but not the one lent passes on), and a copy lent that was set aside for someone else puts
    /// that member back first in line.
    /// A copy claimed by title without `takeHeld` is one set aside for nobody (the claim says so in the
    /// statement that takes it), so only a copy named by its barcode or lent with `takeHeld` can release one.
    static func settleHolds(_ holds: HoldContext, lent copy: UUID, named: Bool, title: Book, member: Borrower, in scope: Scope, at now: Date,
                            on db: any Database) async throws {
        if named || holds.takeHeld { try await releaseAside(copy: copy, lentTo: member.id, on: db) }
        guard let own = holds.ownHold else { return }
        try await db.sql.raw("""
            UPDATE holds SET state = 'fulfilled', closed_at = \(bind: now), copy_id = NULL WHERE id = \(bind: own) AND state IN ('waiting', 'ready')
            """).run()
        try await ActivityLog.record(.init(type: .holdFulfilled, titleID: title.id, title: title.title, memberCardID: member.cardID),
                                     library: scope.library, at: now, on: db)
        if let aside = holds.ownCopy, aside != copy { try await Holds.passOn(copy: aside, title: title.id, in: scope, on: db) }
    }

    /// A copy lent that was set aside for someone other than its borrower: that member is back first in
    /// line (their hold keeps its place in the queue).
    static func releaseAside(copy: UUID, lentTo member: UUID, on db: any Database) async throws {
        try await db.sql.raw("""
            UPDATE holds SET state = 'waiting', copy_id = NULL, ready_at = NULL, pickup_by = NULL
            WHERE copy_id = \(bind: copy) AND state = 'ready' AND member_id <> \(bind: member)
            """).run()
    }
}
