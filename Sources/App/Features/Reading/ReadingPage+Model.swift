import Fluent
import Foundation
import ShelfmarkCore

/// The Reading list: what the reader is reading now (with the page field on each), wants to
/// read, has finished and has stopped, 50 at a time.
struct ReadingPage: Sendable {
    var libraryID: UUID
    var show: ReadStatus
    var paging: Paging
    var reads: [ReadDTO]
    var counts: [ReadStatus: Int]

    static func make(show: ReadStatus, paging: Paging, library: LibraryContext, on db: any Database) async throws -> ReadingPage {
        let reader = Reader.user(library.user.id)
        var counts: [ReadStatus: Int] = [:]
        for status in ReadStatus.allCases {
            counts[status] = try await ReadingLog.count(reader: reader, status: status, libraryID: library.libraryID, on: db)
        }
        let reads = try await ReadingLog.list(reader: reader, status: show, libraryID: library.libraryID, limit: paging.size,
                                              offset: paging.offset, on: db)
        return ReadingPage(libraryID: library.libraryID, show: show, paging: paging, reads: reads, counts: counts)
    }
}
