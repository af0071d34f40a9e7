import Fluent
import FluentSQL
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import SQLKit

/// What a sync push reads once for all its mutations, and writes once for all of them (a push
/// of 100 check-outs was ~1,200 statements, each a round trip to the database).
///
/// Read up front, by the exact spellings the push names: its members by card (with what a check-out
/// checks of them), its copies by barcode (with their titles), and which of those titles have holds.
/// Anything the batch does not know — a card typed in another case, an ISBN — is read as it always is.
/// What a mutation of the same push may change is forgotten when it does: a return may suspend its
/// borrower (fines), a title edit changes what a loan records of the title.
///
/// Written at the end, in the push's transaction: the activity log's entries and what the loans add to the
/// day tallies (`LoanTallies.Changes`), a statement or two each instead of one or more per mutation (the
/// titles' loan counts are kept by triggers on the loans). And the holds of the titles that had none when
/// the push began are looked at once more, for all of them: one placed while the push ran is given a copy
/// the push returned, or loses the copy the push lent (as a check-out or a return on its own would do).
final class PushBatch: Sendable {
    private struct State {
        var members: [String: Circulation.Borrower] = [:]
        var copies: [String: (copyID: UUID, book: Circulation.Book)] = [:]
        /// Titles the push names that had no waiting or ready hold when it began.
        var withoutHolds: Set<UUID> = []
        var activities: [(ActivityLog.Entry, Date)] = []
        var tallies = LoanTallies.Changes()
        /// Copies returned to the shelf, and copies lent, whose titles had no hold when the push began.
        var shelved: [(copy: UUID, title: UUID)] = []
        var lent: [(copy: UUID, member: UUID)] = []
    }

    private let state: NIOLockedValueBox<State>
    private let library: LibraryContext

    private init(library: LibraryContext, state: State) { (self.library, self.state) = (library, NIOLockedValueBox(state)) }

    /// The batch of a push: its members, copies and titles read in a few statements.
    static func read(_ mutations: [SyncMutation], library: LibraryContext, on db: any Database) async throws -> PushBatch {
        let libraryID = library.libraryID
        let cards = Array(Set(mutations.compactMap { $0.op == .checkout && $0.memberId == nil ? $0.cardId?.cleanedInput : nil }))
            .filter { !$0.isEmpty && $0.count <= 64 }
        let barcodes = Array(Set(mutations.compactMap { [.checkout, .return].contains($0.op) ? $0.copyBarcode?.cleanedInput : nil }))
            .filter { !$0.isEmpty && $0.count <= 64 }
        var state = State()
        for chunk in cards.chunked(500) {
            for row in try await db.sql.raw("""
                SELECT \(unsafeRaw: Circulation.borrowerColumns)
                FROM members m JOIN libraries l ON l.id = m.library_id WHERE m.library_id = \(bind: libraryID) AND m.card_id IN (\(binds: chunk))
                """).all() {
                let borrower = try Circulation.borrower(row)
                state.members[borrower.cardID] = borrower
            }
        }
        var titles: Set<UUID> = Set(mutations.compactMap { $0.op == .checkout ? $0.titleId : nil })
        for chunk in barcodes.chunked(500) {
            for row in try await db.sql.raw("""
                SELECT c.id AS copy_id, c.barcode, t.id, t.title, t.authors FROM copies c JOIN titles t ON t.id = c.title_id
                WHERE c.library_no = \(LibraryNumber.of(libraryID)) AND c.barcode IN (\(binds: chunk))
                """).all() {
                let book = Circulation.Book(id: try row.decode(column: "id", as: UUID.self), title: try row.decode(column: "title", as: String.self),
                                            authors: try row.decode(column: "authors", as: [String].self))
                state.copies[try row.decode(column: "barcode", as: String.self)] = (try row.decode(column: "copy_id", as: UUID.self), book)
                titles.insert(book.id)
            }
        }
        state.withoutHolds = titles
        for chunk in Array(titles).chunked(500) {
            for row in try await db.sql.raw("""
                SELECT DISTINCT title_id FROM holds WHERE title_id IN (\(binds: chunk)) AND state IN ('waiting', 'ready')
                """).all() {
                state.withoutHolds.remove(try row.decode(column: "title_id", as: UUID.self))
            }
        }
        return PushBatch(library: library, state: state)
    }

    // MARK: Reads

    /// The borrower a check-out names by this exact card, as read at the start of the push.
    func member(card: String?) -> Circulation.Borrower? {
        guard let card = card?.cleanedInput else { return nil }
        return state.withLockedValue { $0.members[card] }
    }

    /// The copy with this exact barcode, and its title.
    func copy(barcode: String?) -> (copyID: UUID, book: Circulation.Book)? {
        guard let barcode = barcode?.cleanedInput else { return nil }
        return state.withLockedValue { $0.copies[barcode] }
    }

    /// Whether `title` is known to have had no hold when the push began.
    func hasNoHolds(_ title: UUID) -> Bool {
        state.withLockedValue { $0.withoutHolds.contains(title) }
    }

    /// A return applied: its borrower is read again by the next check-out (a late return may suspend them).
    func returned(member: UUID?) {
        guard let member else { return }
        state.withLockedValue { state in state.members = state.members.filter { $0.value.id != member } }
    }

    /// A title edited: its copies' title is read again.
    func edited(title: UUID) {
        state.withLockedValue { state in state.copies = state.copies.filter { $0.value.book.id != title } }
    }

    // MARK: Writes at the end

    func log(_ entry: ActivityLog.Entry, at date: Date) {
        state.withLockedValue { $0.activities.append((entry, date)) }
    }

    /// A copy returned to the shelf, of a title with no hold when the push began: at the end of the push
    /// it is set aside for whoever placed a hold on the title meanwhile.
    func shelved(copy: UUID, title: UUID) {
        state.withLockedValue { $0.shelved.append((copy, title)) }
    }

    /// A copy lent, of a title with no hold when the push began: at the end of the push, a hold placed
    /// meanwhile that was given this copy goes back to waiting first in line.
    func lent(copy: UUID, to member: UUID) {
        state.withLockedValue { $0.lent.append((copy, member)) }
    }

    func tally(_ changes: LoanTallies.Changes) {
        state.withLockedValue { $0.tallies.add(changes) }
    }

    /// Writes what was kept for the end, in the push's transaction (`scope` inside it).
    func write(in scope: Scope) async throws {
        let db = scope.db
        let (activities, tallies, shelved, lent) = state.withLockedValue { state in
            defer { (state.activities, state.tallies, state.shelved, state.lent) = ([], LoanTallies.Changes(), [], []) }
            return (state.activities, state.tallies, state.shelved, state.lent)
        }
        try await ActivityLog.record(activities, library: library, on: db)
        try await tallies.write(library: library.libraryID, on: db.sql)
        var waited: Set<UUID> = []
        for chunk in Array(Set(shelved.map(\.title))).chunked(500) {
            for row in try await db.sql.raw("SELECT DISTINCT title_id FROM holds WHERE title_id IN (\(binds: chunk)) AND state = 'waiting'").all() {
                waited.insert(try row.decode(column: "title_id", as: UUID.self))
            }
        }
        for (copy, title) in shelved where waited.contains(title) {
            try await Holds.offer(copy: copy, title: title, in: scope, on: db)
        }
        var setAside: Set<UUID> = []
        for chunk in Array(Set(lent.map(\.copy))).chunked(500) {
            for row in try await db.sql.raw("SELECT copy_id FROM holds WHERE copy_id IN (\(binds: chunk)) AND state = 'ready'").all() {
                setAside.insert(try row.decode(column: "copy_id", as: UUID.self))
            }
        }
        for (copy, member) in lent where setAside.contains(copy) {
            try await Circulation.releaseAside(copy: copy, lentTo: member, on: db)
        }
    }
}
