import Fluent
import Foundation
import ShelfmarkCore

/// The loans out, overdue ones marked, all or only the overdue.
struct LoansPage: Sendable {
    var libraryID: UUID
    var overdueOnly: Bool
    var paging: Paging
    var total: Int
    var loans: [LoanDTO]
    var maxRenewals: Int
    /// The staff's calendar link.
    var calendar: CalendarCard
    /// Overdue at a glance, on the overdue list: by member, with one-tap reminders.
    var overdueGroups: [OverdueMemberDTO] = []
    var mayRemind = false
    var withoutEmail = 0

    static func make(overdueOnly: Bool, paging: Paging, library: LibraryContext, now: Date, on db: any Database) async throws -> LoansPage {
        var page = try await list(overdueOnly: overdueOnly, paging: paging, library: library, now: now, on: db)
        if overdueOnly, paging.number == 1 {
            page.overdueGroups = try await OverdueGlance.members(library: library.libraryID, policy: library.policy, now: now, limit: 100, on: db)
            page.mayRemind = library.role.may(.circulate)
            page.withoutEmail = try await OverdueGlance.withoutEmail(library: library.libraryID, now: now, on: db)
        }
        return page
    }

    static func list(overdueOnly: Bool, paging: Paging, library: LibraryContext, now: Date, on db: any Database) async throws -> LoansPage {
        LoansPage(libraryID: library.libraryID, overdueOnly: overdueOnly, paging: paging,
                  total: try await Circulation.activeLoanCount(libraryID: library.libraryID, overdueOnly: overdueOnly, now: now, on: db),
                  loans: try await Circulation.activeLoans(libraryID: library.libraryID, overdueOnly: overdueOnly, now: now,
                                                           limit: paging.size, offset: paging.offset, on: db),
                  maxRenewals: library.policy.maxRenewals,
                  calendar: CalendarCard(since: try await CalendarFeeds.since(member: nil, libraryID: library.libraryID, on: db), new: nil,
                                         action: .staffCalendar(library: library.libraryID), hint: .calendarStaffHint))
    }

    func url(page: Int) -> String {
        WebRoute.loans(library: libraryID).path(query: [("show", overdueOnly ? "overdue" : nil), ("page", page > 1 ? String(page) : nil)])
    }
}
