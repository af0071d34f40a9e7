import Fluent
import Foundation

/// The loans out (B4), overdue ones marked, all or only the overdue.
struct LoansPage: Sendable {
    var libraryID: UUID
    var overdueOnly: Bool
    var loans: [LoanDTO]

    static func make(overdueOnly: Bool, library: LibraryContext, now: Date, on db: any Database) async throws -> LoansPage {
        LoansPage(libraryID: library.libraryID, overdueOnly: overdueOnly,
                  loans: try await Circulation.activeLoans(libraryID: library.libraryID, overdueOnly: overdueOnly, now: now,
                                                           limit: 500, offset: 0, on: db))
    }
}
