import Fluent
import Foundation
import ShelfmarkCore

/// A title's page: cover, details, copies with their status and labels, loans, notes, and what
/// the role may do with it (edit, lend, add copies, delete).
struct TitlePage: Sendable {
    var libraryID: UUID
    var detail: TitleDetail
    var canEdit: Bool
    var canLend: Bool
    var maxRenewals: Int
    /// Who borrowed it and when, newest first (for staff who lend).
    var history: [LoanDTO]
    /// The queue of members waiting for it (for staff who lend).
    var holds: [HoldDTO]
    /// The signed-in reader's own reading of it, page photos and quotes.
    var reading: ReadingCard
    var notes: BookNotes
    /// The shelves its copies stand on, by name (each copy's place links to its shelf).
    var shelves: [String: UUID] = [:]
    /// A national library's record of the book, field by field.
    var marc: MARCRecord?

    static let historyLength = 50

    static func make(titleID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> TitlePage {
        let canLend = library.role.may(.circulate)
        let detail = try await TitleQuery.detail(titleID, libraryID: library.libraryID, now: now, on: db)
        var shelves: [String: UUID] = [:]
        for name in Set(detail.copies.compactMap(\.location)) {
            if let shelf = try await Shelves.id(named: name, library: library.libraryID, on: db) { shelves[name] = shelf }
        }
        var page = TitlePage(libraryID: library.libraryID, detail: detail,
                         canEdit: library.role.may(.catalog), canLend: canLend, maxRenewals: library.policy.maxRenewals,
                         history: canLend ? try await Circulation.history(titleID: titleID, libraryID: library.libraryID, limit: historyLength,
                                                                          now: now, on: db) : [],
                         holds: canLend ? try await Holds.queue(title: titleID, libraryID: library.libraryID, on: db) : [],
                         reading: try await ReadingCard.make(titleID: titleID, library: library, on: db),
                         notes: try await BookNotes.make(titleID: titleID, library: library, on: db))
        page.shelves = shelves
        if detail.hasMarcRecord { page.marc = try await TitleMARC.record(titleID, libraryID: library.libraryID, on: db) }
        return page
    }
}
