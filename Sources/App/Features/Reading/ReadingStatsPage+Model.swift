import Fluent
import Foundation
import ShelfmarkCore

/// A reader's year in books: the goal and its pace, books and pages per month and per year,
/// streaks, the pace of each current read, statuses, ratings, top authors and categories.
struct ReadingStatsPage: Sendable {
    var libraryID: UUID
    var year: Int
    var thisYear: Int
    var stats: ReadingStatsDTO
    var now: Date
    /// A member's log (staff who lend), else the signed-in reader's own.
    var memberID: UUID?
    var memberName: String?
    /// When the reader's secret link for this year was made (nil: not shared); the link's token only
    /// on the page that follows its making (it is stored as a hash), and this server's address for it.
    var sharedSince: Date?
    var newShareToken: String?
    var origin: String = ""

    static func make(year: Int, thisYear: Int, member: Member?, library: LibraryContext, scope: Scope) async throws -> ReadingStatsPage {
        let reader: Reader = member.flatMap { $0.id }.map(Reader.member) ?? .user(library.user.id)
        return ReadingStatsPage(libraryID: library.libraryID, year: year, thisYear: thisYear,
                                stats: try await ReadingLog.stats(year: year, reader: reader, in: scope), now: scope.now,
                                memberID: member?.id, memberName: member?.fullName,
                                sharedSince: member == nil ? try await ReadingShares.sharedSince(year: year, userID: library.user.id,
                                                                                                 libraryID: library.libraryID, on: scope.db) : nil)
    }
}
