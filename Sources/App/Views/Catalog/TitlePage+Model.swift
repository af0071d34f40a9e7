import Fluent
import Foundation
import ShelfmarkCore

/// A title's page (A4): cover, details, copies with their status and labels, loans, notes, and what
/// the role may do with it (edit, lend, add copies, delete).
struct TitlePage: Sendable {
    var libraryID: UUID
    var detail: TitleDetail
    var canEdit: Bool
    var canLend: Bool
    var maxRenewals: Int

    static func make(titleID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> TitlePage {
        TitlePage(libraryID: library.libraryID, detail: try await TitleQuery.detail(titleID, libraryID: library.libraryID, now: now, on: db),
                  canEdit: library.role.may(.catalog), canLend: library.role.may(.circulate), maxRenewals: library.policy.maxRenewals)
    }
}
