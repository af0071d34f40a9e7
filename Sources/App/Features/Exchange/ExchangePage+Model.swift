import Fluent
import Foundation
import ShelfmarkCore

/// Import & export: the import form, covers and details still being added, the exports,
/// and for those who administer, backup, restore and erase.
struct ExchangePage: Sendable {
    var libraryID: UUID
    var libraryName: String
    var mayAdminister: Bool
    var enrichment: Enrichment.Progress
    /// What the reading-level list just sent did.
    var levelsReport: LevelImportReport?

    static func make(library: LibraryContext, on db: any Database) async throws -> ExchangePage {
        ExchangePage(libraryID: library.libraryID, libraryName: library.name, mayAdminister: library.role.may(.administer),
                     enrichment: try await Enrichment.progress(library: library.libraryID, on: db))
    }
}
