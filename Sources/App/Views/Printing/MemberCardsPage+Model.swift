import Fluent
import Foundation
import ShelfmarkCore

/// A sheet of member cards to print (B1): one class (or a search), each card with the name, class
/// and the card's barcode.
struct MemberCardsPage: Sendable {
    /// At most this many cards on one sheet (a whole school prints class by class).
    static let maxCards = 500

    var libraryID: UUID
    var libraryName: String
    var q: String?
    var members: [MemberDTO]
    var total: Int

    static func make(q: String?, library: LibraryContext, on db: any Database) async throws -> MemberCardsPage {
        let q = q?.cleanedInput
        return MemberCardsPage(libraryID: library.libraryID, libraryName: library.name, q: q,
                               members: try await Members.list(query: q, sort: .grade, libraryID: library.libraryID, limit: maxCards, offset: 0, on: db),
                               total: try await Members.count(query: q, libraryID: library.libraryID, on: db))
    }
}

/// Labels for a title's copies, to print and stick in the books (A9): title, author, call number
/// and the copy's barcode.
struct CopyLabelsPage: Sendable {
    var libraryID: UUID
    var detail: TitleDetail

    static func make(titleID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> CopyLabelsPage {
        CopyLabelsPage(libraryID: library.libraryID, detail: try await TitleQuery.detail(titleID, libraryID: library.libraryID, now: now, on: db))
    }
}
