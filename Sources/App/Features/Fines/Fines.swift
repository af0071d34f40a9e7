import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Fines: off by default. A late return is charged by the library's `FinePolicy` (money per day
/// late after the grace days, capped per loan) or suspends the member from borrowing; a member's
/// balance is paid (in full or in part) or waived with a reason; every charge, payment, waiver and
/// suspension is in the activity log; lending stops at the balance the library sets.
enum Fines {
    static let ledgerLines = 100
    static let maxReason = 200

    /// The library's fine policy (`Library.finePolicy`: one mapping of its columns).
    static func policy(library: UUID, on db: any Database) async throws -> FinePolicy {
        guard let row = try await Library.find(library, on: db) else { throw AccountError.libraryNotFound }
        return row.finePolicy
    }

    /// What `member` owes: charges less payments and waivers.
    static func balance(member: UUID, on db: any Database) async throws -> Int {
        struct Row: Decodable { var owed: Int? }
        return try await db.sql.raw("""
            SELECT CAST(COALESCE(SUM(CASE WHEN kind = 'charge' THEN amount ELSE -amount END), 0) AS BIGINT) AS owed
            FROM fines WHERE member_id = \(bind: member)
            """).first(decoding: Row.self)?.owed ?? 0
    }

    /// A lending or renewal refused because of fines: the member is suspended, or owes the library's limit.
    /// `blockAt` and `suspendedUntil` come with the member's row, so a member of a library without
    /// fines costs the check-out nothing more.
    static func refuseIfBlocked(member: UUID, suspendedUntil: Date?, blockAt: Int?, currency: String, now: Date, on db: any Database) async throws {
        if let until = suspendedUntil, until > now { throw LoanError.suspended(until: until) }
        guard let blockAt, blockAt > 0 else { return }
        let owed = try await balance(member: member, on: db)
        if FinePolicy(blockAt: blockAt).blocks(balance: owed) {
            throw LoanError.owesFines(owed: owed, limit: blockAt, currency: currency)
        }
    }

    /// The same, for a member read by id (a renewal: a blocked member renews nothing).
    static func refuseIfBlocked(member: UUID, libraryID: UUID, now: Date, on db: any Database) async throws {
        struct Row: Decodable {
            var suspended_until: Date?; var fine_block_at: Int?; var currency: String
            var archived_at: Date?; var first_name: String; var last_name: String
        }
        guard let row = try await db.sql.raw("""
            SELECT m.suspended_until, m.archived_at, m.first_name, m.last_name, l.fine_block_at, l.currency FROM members m JOIN libraries l ON l.id = m.library_id
            WHERE m.id = \(bind: member) AND m.library_id = \(bind: libraryID)
            """).first(decoding: Row.self) else { return }
        if let left = row.archived_at { throw LoanError.memberLeft(name: Member.fullName(first: row.first_name, last: row.last_name), on: left) }
        try await refuseIfBlocked(member: member, suspendedUntil: row.suspended_until, blockAt: row.fine_block_at, currency: row.currency,
                                  now: now, on: db)
    }

    /// Inside a return's transaction: the charge or suspension for a loan returned `overdueDays` late.
    static func lateReturn(loanID: UUID, member: UUID?, title: String, card: String, overdueDays: Int, in scope: Scope,
                           at now: Date, on db: any Database) async throws {
        guard overdueDays > 0, let member else { return }
        let policy = try await policy(library: scope.libraryID, on: db)
        let amount = policy.charge(overdue: overdueDays)
        if amount > 0 {
            try await db.sql.raw("""
                INSERT INTO fines (id, library_id, member_id, loan_id, kind, amount, title_text, reason, created_by, created_at)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: member), \(bind: loanID), 'charge', \(bind: amount), \(bind: title),
                        NULL, \(bind: scope.library.user.username), \(bind: now))
                ON CONFLICT DO NOTHING
                """).run()
            try await ActivityLog.record(.init(type: .fineCharged, title: title, memberCardID: card,
                                               detail: .money(amount: amount, currency: policy.currency, reason: nil)),
                                         library: scope.library, at: now, on: db)
        }
        let days = policy.suspension(overdue: overdueDays)
        if days > 0 {
            // Suspended to the end of the day `days` ahead in the library's zone; a longer suspension stands.
            let loans = scope.library.policy
            let day = loans.calendar.date(byAdding: .day, value: days, to: loans.calendar.startOfDay(for: now))!
            let until = loans.endOfDay(loans.calendar.dateComponents([.year, .month, .day], from: day)) ?? day
            let updated = try await db.sql.raw("""
                UPDATE members SET suspended_until = \(bind: until)
                WHERE id = \(bind: member) AND (suspended_until IS NULL OR suspended_until < \(bind: until)) RETURNING id
                """).first()
            if updated != nil {
                try await ActivityLog.record(.init(type: .memberSuspended, title: title, memberCardID: card, detail: .suspendedUntil(until)),
                                             library: scope.library, at: now, on: db)
            }
        }
    }

    /// A payment of `amount` (the whole balance when nil).
    /// The account after it, and the amount taken.
    static func pay(member: UUID, _ payment: FinePayment, in scope: Scope) async throws -> (account: FineAccountDTO, amount: Int) {
        try await settle(member: member, kind: .payment, amount: payment.amount, reason: nil, in: scope)
    }

    /// A waiver of `amount` (the whole balance when nil), with why.
    static func waive(member: UUID, _ waiver: FineWaiver, in scope: Scope) async throws -> (account: FineAccountDTO, amount: Int) {
        let reason = try Check.required(waiver.reason, field: "reason", max: maxReason)
        return try await settle(member: member, kind: .waiver, amount: waiver.amount, reason: reason, in: scope)
    }

    private static func settle(member: UUID, kind: FineKind, amount: Int?, reason: String?, in scope: Scope)
        async throws -> (account: FineAccountDTO, amount: Int) {
        let asked = try Check.range(amount, 1...FinePolicy.amountRange.upperBound, field: "amount")
        let settled = try await scope.gate.transaction(on: scope.db) { db in
            let card = try await memberCard(member, library: scope.libraryID, on: db)
            // The member's row is locked on PostgreSQL, so two payments at once cannot both take the same debt.
            try await Dialect.lockRow("members", id: member, on: db)
            let owed = try await balance(member: member, on: db)
            guard owed > 0 else { throw FineError.nothingOwed }
            let policy = try await policy(library: scope.libraryID, on: db)
            let amount = asked ?? owed
            guard amount <= owed else { throw FineError.moreThanOwed(owed: owed, currency: policy.currency) }
            let now = scope.moment()
            try await db.sql.raw("""
                INSERT INTO fines (id, library_id, member_id, loan_id, kind, amount, title_text, reason, created_by, created_at)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: member), NULL, \(bind: kind.rawValue), \(bind: amount), NULL,
                        \(bind: reason), \(bind: scope.library.user.username), \(bind: now))
                """).run()
            try await ActivityLog.record(.init(type: kind == .payment ? .finePaid : .fineWaived, memberCardID: card,
                                               detail: .money(amount: amount, currency: policy.currency, reason: reason)),
                                         library: scope.library, at: now, on: db)
            return amount
        }
        return (try await account(member: member, libraryID: scope.libraryID, now: scope.now, on: scope.db), settled)
    }

    private static func memberCard(_ member: UUID, library: UUID, on db: any Database) async throws -> String {
        struct Row: Decodable { var card_id: String }
        guard let row = try await db.sql.raw("SELECT card_id FROM members WHERE id = \(bind: member) AND library_id = \(bind: library)")
            .first(decoding: Row.self) else { throw LoanError.memberIDNotFound }
        return row.card_id
    }

    /// A member's fines as the member page and `GET …/members/{id}/fines` show them.
    static func account(member: UUID, libraryID: UUID, now: Date, on db: any Database) async throws -> FineAccountDTO {
        struct Suspension: Decodable { var suspended_until: Date? }
        guard let row = try await db.sql.raw("SELECT suspended_until FROM members WHERE id = \(bind: member) AND library_id = \(bind: libraryID)")
            .first(decoding: Suspension.self) else { throw LoanError.memberIDNotFound }
        let policy = try await policy(library: libraryID, on: db)
        struct EntryRow: Decodable {
            var id: UUID; var kind: String; var amount: Int; var loan_id: UUID?; var title_text: String?; var reason: String?
            var created_by: String; var created_at: Date
        }
        let entries = try await db.sql.raw("""
            SELECT id, kind, amount, loan_id, title_text, reason, created_by, created_at FROM fines
            WHERE member_id = \(bind: member) ORDER BY created_at DESC, id LIMIT \(unsafeRaw: String(ledgerLines))
            """).all(decoding: EntryRow.self).map {
            FineEntryDTO(id: $0.id, kind: FineKind(rawValue: $0.kind) ?? .charge, amount: $0.amount, loanId: $0.loan_id, title: $0.title_text,
                         reason: $0.reason, createdBy: $0.created_by, createdAt: $0.created_at)
        }
        let owed = try await balance(member: member, on: db)
        var accruing = 0
        if policy.mode == .money {
            struct Due: Decodable { var due_at: Date }
            let overdue = try await db.sql.raw("""
                SELECT due_at FROM loans WHERE member_id = \(bind: member) AND returned_at IS NULL AND due_at < \(bind: now)
                """).all(decoding: Due.self)
            accruing = overdue.reduce(0) { $0 + policy.charge(overdue: daysOverdue(dueAt: $1.due_at, now: now)) }
        }
        let suspended = row.suspended_until.flatMap { $0 > now ? $0 : nil }
        return FineAccountDTO(memberId: member, mode: policy.mode, currency: policy.currency, balance: owed, accruing: accruing,
                              suspendedUntil: suspended, blocked: suspended != nil || policy.blocks(balance: owed), entries: entries)
    }
}
