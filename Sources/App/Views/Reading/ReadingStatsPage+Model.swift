import Fluent
import Foundation
import ShelfmarkCore

/// A reader's year in books (E3): the goal and its pace, books and pages per month and per year,
/// streaks, the pace of each current read, statuses, ratings, top authors and categories.
struct ReadingStatsPage: Sendable {
    var libraryID: UUID
    var year: Int
    var thisYear: Int
    var stats: ReadingStatsDTO
    var now: Date

    static func make(year: Int, thisYear: Int, library: LibraryContext, scope: Scope) async throws -> ReadingStatsPage {
        ReadingStatsPage(libraryID: library.libraryID, year: year, thisYear: thisYear,
                         stats: try await ReadingLog.stats(year: year, reader: .user(library.user.id), in: scope), now: scope.now)
    }
}
