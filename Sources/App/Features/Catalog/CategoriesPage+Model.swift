import Fluent
import Foundation
import ShelfmarkCore

/// The library's categories: each with its books, to rename, merge into another or
/// delete; a new one added here. A refused form comes back as typed with its reason.
struct CategoriesPage: Sendable {
    var libraryID: UUID
    var categories: [CategoryDTO]
    /// The form that was refused (a category's id, or nil for the new-category form) and how.
    var refused: (category: UUID?, form: FormState)?

    static func make(refused: (category: UUID?, form: FormState)? = nil, library: LibraryContext, on db: any Database) async throws -> CategoriesPage {
        CategoriesPage(libraryID: library.libraryID, categories: try await Catalog.categories(libraryID: library.libraryID, on: db), refused: refused)
    }

    func form(for category: UUID?) -> FormState {
        guard let refused, refused.category == category else { return FormState() }
        return refused.form
    }
}
