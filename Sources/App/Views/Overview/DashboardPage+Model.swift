import Fluent
import Foundation

/// The overview (G6): counts that link to their lists, the books added last, recent activity.
struct DashboardPage: Sendable {
    var libraryID: UUID
    var dashboard: Dashboard

    static func make(library: LibraryContext, now: Date, on db: any Database) async throws -> DashboardPage {
        DashboardPage(libraryID: library.libraryID, dashboard: try await DashboardQuery.load(libraryID: library.libraryID, now: now, on: db))
    }
}
