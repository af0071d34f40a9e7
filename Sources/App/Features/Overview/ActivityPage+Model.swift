import Fluent
import Foundation
import ShelfmarkCore

/// The activity log, newest first, filtered by type with chips.
struct ActivityPage: Sendable {
    /// The types offered as filter chips: every type.
    static let filterTypes = ActivityType.allCases

    var libraryID: UUID
    var type: ActivityType?
    var paging: Paging
    var items: [ActivityDTO]
    /// Whether older entries follow this page.
    var hasMore: Bool

    static func make(type: ActivityType?, paging: Paging, library: LibraryContext, on db: any Database) async throws -> ActivityPage {
        // One more than a page tells whether there is a next one, without counting the whole log.
        let items = try await ActivityLog.list(libraryID: library.libraryID, type: type, limit: paging.size + 1, offset: paging.offset, on: db)
        return ActivityPage(libraryID: library.libraryID, type: type, paging: paging, items: Array(items.prefix(paging.size)),
                            hasMore: items.count > paging.size)
    }

    func url(type: ActivityType?, page: Int = 1) -> String {
        WebRoute.activity(library: libraryID).path(query: [("type", type?.rawValue), ("page", page > 1 ? String(page) : nil)])
    }
}
