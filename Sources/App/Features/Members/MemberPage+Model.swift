import Fluent
import Foundation
import ShelfmarkCore

/// A member's page: card, current loans (each can be returned), history.
struct MemberPage: Sendable {
    var libraryID: UUID
    var detail: MemberDetail
    var mayEdit: Bool
    var maxRenewals: Int
    /// The member's reading log, kept by staff: newest first.
    var reads: [ReadDTO]
    var readsTotal: Int
    /// Their reservations.
    var holds: [HoldDTO]
    /// Their calendar link.
    var calendar: CalendarCard
    /// Their fines: shown when the library has fines on, or the member owes or is suspended.
    var fines: FineAccountDTO?
    var mayWaive: Bool = false
    /// When the member was last reminded by email; staff who lend may remind them now.
    var lastReminder: Date? = nil
    var mayRemind: Bool = false

    static let readsShown = 50

    static func make(memberID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> MemberPage {
        let reader = Reader.member(memberID)
        return MemberPage(libraryID: library.libraryID, detail: try await Members.detail(memberID, libraryID: library.libraryID, now: now, on: db),
                          mayEdit: library.role.may(.manageMembers), maxRenewals: library.policy.maxRenewals,
                          reads: try await ReadingLog.list(reader: reader, status: nil, libraryID: library.libraryID, limit: readsShown, offset: 0, on: db),
                          readsTotal: try await ReadingLog.count(reader: reader, status: nil, libraryID: library.libraryID, on: db),
                          holds: try await Holds.ofMember(memberID, libraryID: library.libraryID, on: db),
                          calendar: CalendarCard(since: try await CalendarFeeds.since(member: memberID, libraryID: library.libraryID, on: db),
                                                 new: nil, action: .memberCalendar(library: library.libraryID, member: memberID),
                                                 hint: .calendarHint),
                          fines: try await Self.fines(memberID, library: library, now: now, on: db), mayWaive: library.role.may(.manageMembers),
                          lastReminder: try await Reminders.lastReminded([memberID], library: library.libraryID, on: db)[memberID],
                          mayRemind: library.role.may(.circulate))
    }

    static func fines(_ memberID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> FineAccountDTO? {
        let account = try await Fines.account(member: memberID, libraryID: library.libraryID, now: now, on: db)
        return account.mode == .off && account.balance == 0 && account.suspendedUntil == nil && account.entries.isEmpty ? nil : account
    }
}
