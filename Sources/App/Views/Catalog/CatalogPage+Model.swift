import Fluent
import Foundation
import ShelfmarkCore

/// The catalog (A5): search as you type, filter chips (favourites, on loan, overdue, categories),
/// list A–Z in sections or as a wall of covers.
struct CatalogPage: Sendable {
    var libraryID: UUID
    var q: String?
    /// The chosen chip: `all`, `favorites`, `onloan`, `overdue` or `cat-<id>`.
    var chip: String
    var grid: Bool
    var result: TitleList
    var categories: [CategoryDTO]

    static func make(q: String?, chip: String, grid: Bool, library: LibraryContext, now: Date, on db: any Database) async throws -> CatalogPage {
        var filters = TitleQuery.Filters()
        let q = q?.cleanedInput
        filters.query = q
        filters.favorites = chip == "favorites"
        filters.onLoan = chip == "onloan"
        filters.overdue = chip == "overdue"
        if chip.hasPrefix("cat-") { filters.categoryID = UUID(uuidString: String(chip.dropFirst(4))) }
        filters.includeSections = true
        filters.limit = 200
        return CatalogPage(libraryID: library.libraryID, q: q, chip: chip, grid: grid,
                           result: try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: db),
                           categories: try await Catalog.categories(libraryID: library.libraryID, on: db).filter { $0.titleCount > 0 })
    }

    /// This page's link with another chip or view.
    func url(show: String? = nil, view: String? = nil) -> String {
        let s = show ?? chip
        let v = view ?? (grid ? "grid" : "list")
        let query: [(String, String?)] = [("q", q), ("show", s == "all" ? nil : s), ("view", v == "grid" ? "grid" : nil)]
        return WebRoute.catalog(library: libraryID).path(query: query)
    }

    var searching: Bool { !(q ?? "").isEmpty }
}
