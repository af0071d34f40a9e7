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
    var sort: TitleSort
    var paging: Paging
    var result: TitleList
    var categories: [CategoryDTO]

    static func filters(q: String?, chip: String, sort: TitleSort) -> TitleQuery.Filters {
        var filters = TitleQuery.Filters()
        filters.query = q?.cleanedInput
        filters.favorites = chip == "favorites"
        filters.onLoan = chip == "onloan"
        filters.overdue = chip == "overdue"
        if chip.hasPrefix("cat-") { filters.categoryID = UUID(uuidString: String(chip.dropFirst(4))) }
        filters.sort = sort
        return filters
    }

    static func make(q: String?, chip: String, grid: Bool, sort: TitleSort, paging: Paging, library: LibraryContext, now: Date,
                     on db: any Database) async throws -> CatalogPage {
        var filters = filters(q: q, chip: chip, sort: sort)
        filters.includeSections = true
        filters.limit = paging.size
        filters.offset = paging.offset
        return CatalogPage(libraryID: library.libraryID, q: filters.query, chip: chip, grid: grid, sort: sort, paging: paging,
                           result: try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: db),
                           categories: try await Catalog.categories(libraryID: library.libraryID, on: db).filter { $0.titleCount > 0 })
    }

    /// The page where section `letter` starts (A–Z order under these filters), nil when it has no titles.
    static func page(ofSection letter: String, q: String?, chip: String, library: LibraryContext, now: Date, on db: any Database) async throws -> Int? {
        try await TitleQuery.position(ofSection: letter, filters(q: q, chip: chip, sort: .title), libraryID: library.libraryID, now: now, on: db)
            .map { Paging.page(holding: $0) }
    }

    /// This page's link with another chip, view, order or page (a new chip or order starts at page 1).
    func url(show: String? = nil, view: String? = nil, sort newSort: TitleSort? = nil, page: Int? = nil, letter: String? = nil) -> String {
        Self.link(libraryID, q: q, chip: show ?? chip, grid: (view.map { $0 == "grid" }) ?? grid, sort: newSort ?? sort,
                  page: page ?? (show == nil && newSort == nil ? paging.number : 1), letter: letter)
    }

    static func link(_ libraryID: UUID, q: String?, chip: String, grid: Bool, sort: TitleSort, page: Int, letter: String? = nil) -> String {
        let query: [(String, String?)] = [("q", q), ("show", chip == "all" ? nil : chip), ("view", grid ? "grid" : nil),
                                          ("sort", sort == .title ? nil : sort.rawValue), ("page", page > 1 && letter == nil ? String(page) : nil),
                                          ("letter", letter)]
        return WebRoute.catalog(library: libraryID).path(query: query)
    }

    var searching: Bool { !(q ?? "").isEmpty }
}
