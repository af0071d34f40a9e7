import Fluent
import Foundation
import ShelfmarkCore

/// The activity log (D1), newest first, filtered by type with chips.
struct ActivityPage: Sendable {
    /// The types offered as filter chips.
    static let filterTypes: [ActivityType] = [.checkout, .returnBook, .addBook, .addCopy, .addWishlist, .fulfillWishlist, .deleteBook,
                                              .importBooks, .addMember, .deleteMember]

    var libraryID: UUID
    var type: ActivityType?
    var items: [ActivityDTO]

    static func make(type: ActivityType?, library: LibraryContext, on db: any Database) async throws -> ActivityPage {
        ActivityPage(libraryID: library.libraryID, type: type,
                     items: try await ActivityLog.list(libraryID: library.libraryID, type: type, limit: 200, offset: 0, on: db))
    }
}
