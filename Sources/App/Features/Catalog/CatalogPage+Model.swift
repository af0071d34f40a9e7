import Fluent
import Foundation
import ShelfmarkCore

/// The catalog: search as you type, filter chips (favourites, on loan, overdue, categories),
/// list A–Z in sections or as a wall of covers.
struct CatalogPage: Sendable {
    var libraryID: UUID
    var q: String?
    /// The chosen chip: `all`, `favorites`, `onloan`, `overdue` or `cat-<id>`.
    var chip: String
    var grid: Bool
    var sort: TitleSort
    var paging: Paging
    /// How this page was found: from a neighbouring title (the pager's links) or by number.
    var seek: TitleQuery.Seek?
    var result: TitleList
    var categories: [CategoryDTO]
    /// A shelf and a reading level range ("AR 3.0–4.5 on Room 12's shelves"), with any chip.
    var narrow = Narrowing()
    /// The shelves copies are on, for the narrowing form.
    var locations: [String] = []
    /// The library's smart collections, as chips (`col-<id>`).
    var collections: [CollectionDTO] = []
    /// Choosing books to change many at once (`select=1`; `select=all` with every box of the page ticked).
    var select: Selecting = .off
    /// The library's last change to many books, while it can be undone (shown to those who may change books).
    var lastChange: BulkChangeReport?

    enum Selecting: String, Sendable {
        case off, on = "1", all
        var query: String? { self == .off ? nil : rawValue }
    }

    /// A shelf and a reading level range, from the page's query (`shelf`, `level`, `levelMin`,
    /// `levelMax`); what cannot be read is left out.
    struct Narrowing: Sendable, Equatable {
        var shelf: String?
        var scheme: ReadingLevel.Scheme?
        var levelMin: Double?
        var levelMax: Double?
        /// At least this rating (1–5), as the book's page shows it (`rating`).
        var minRating: Double?
        /// The signed-in person's own reading (`reading`).
        var reading: ReadingFilter?

        init(shelf: String? = nil, scheme: ReadingLevel.Scheme? = nil, levelMin: Double? = nil, levelMax: Double? = nil) {
            (self.shelf, self.scheme, self.levelMin, self.levelMax) = (shelf, scheme, levelMin, levelMax)
        }

        init(query: (String) -> String?) {
            shelf = query("shelf")?.cleanedInput.trimmingCharacters(in: .whitespaces).prefix(100).description
            if shelf?.isEmpty == true { shelf = nil }
            scheme = query("level").flatMap(ReadingLevel.Scheme.init(rawValue:))
            func number(_ name: String) -> Double? {
                query(name).flatMap { Double($0.replacingOccurrences(of: ",", with: ".")) }.flatMap { $0.isFinite && abs($0) <= 2500 ? $0 : nil }
            }
            (levelMin, levelMax) = (number("levelMin"), number("levelMax"))
            if scheme == nil, levelMin != nil || levelMax != nil { scheme = .ar }
            minRating = query("rating").flatMap(Int.init).flatMap { (1...5).contains($0) ? Double($0) : nil }
            reading = query("reading").flatMap(ReadingFilter.init(rawValue:))
        }

        var isEmpty: Bool { shelf == nil && scheme == nil && minRating == nil && reading == nil }

        var query: [(String, String?)] {
            func text(_ n: Double?) -> String? { n.map { $0 == $0.rounded() ? String(Int($0)) : String($0) } }
            return [("shelf", shelf), ("level", scheme?.rawValue), ("levelMin", text(levelMin)), ("levelMax", text(levelMax)),
                    ("rating", text(minRating)), ("reading", reading?.rawValue)]
        }
    }

    /// `reader`: the one looking, whose own reading `reading` and a collection's `readStatus` mean.
    static func filters(q: String?, chip: String, sort: TitleSort, narrow: Narrowing = Narrowing(), collection: CollectionFilter? = nil,
                        now: Date = Date(), reader: UUID? = nil) -> TitleQuery.Filters {
        var filters = TitleQuery.Filters()
        filters.reader = reader
        // A collection's chip: its saved filter, then what the page narrows it by.
        if chip.hasPrefix("col-"), let collection { collection.apply(to: &filters, now: now, reader: reader) }
        if let shelf = narrow.shelf { filters.location = shelf }
        if let scheme = narrow.scheme { (filters.levelScheme, filters.levelMin, filters.levelMax) = (scheme, narrow.levelMin, narrow.levelMax) }
        if let rating = narrow.minRating { filters.minRating = rating }
        if let reading = narrow.reading { filters.readStatus = reading }
        if let q = q?.cleanedInput, !q.isEmpty { filters.query = q }
        if chip == "favorites" { filters.favorites = true }
        if chip == "onloan" { filters.onLoan = true }
        if chip == "overdue" { filters.overdue = true }
        if chip.hasPrefix("cat-") { filters.categoryID = UUID(uuidString: String(chip.dropFirst(4))) }
        filters.sort = sort
        return filters
    }

    static func make(q: String?, chip: String, grid: Bool, sort: TitleSort, paging: Paging, seek: TitleQuery.Seek?, narrow: Narrowing = Narrowing(),
                     library: LibraryContext, now: Date, on db: any Database) async throws -> CatalogPage {
        let collections = try await Collections.list(library: library.libraryID, on: db)
        let collection = collections.first { "col-" + $0.id.uuidString == chip }?.filter
        var filters = filters(q: q, chip: chip, sort: sort, narrow: narrow, collection: collection, now: now, reader: library.user.id)
        filters.includeSections = true
        filters.limit = paging.size
        filters.offset = paging.offset
        filters.seek = paging.number > 1 ? seek : nil
        return CatalogPage(libraryID: library.libraryID, q: q?.cleanedInput, chip: chip, grid: grid, sort: sort, paging: paging, seek: filters.seek,
                           result: try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: db),
                           categories: try await Catalog.categories(libraryID: library.libraryID, on: db).filter { $0.titleCount > 0 },
                           narrow: narrow, locations: try await LabelSheets.locations(library: library.libraryID, on: db), collections: collections)
    }

    /// The page where section `letter` starts (A–Z order under these filters) and, without a search,
    /// the title that page starts at (so it is found by seeking, not by skipping); nil when the letter
    /// has no titles.
    static func page(ofSection letter: String, q: String?, chip: String, narrow: Narrowing = Narrowing(), library: LibraryContext, now: Date,
                     on db: any Database) async throws -> (number: Int, start: UUID?)? {
        let collection = chip.hasPrefix("col-") ? try await Collections.list(library: library.libraryID, on: db).first { "col-" + $0.id.uuidString == chip }?.filter : nil
        let f = filters(q: q, chip: chip, sort: .title, narrow: narrow, collection: collection, now: now, reader: library.user.id)
        guard let position = try await TitleQuery.position(ofSection: letter, f, libraryID: library.libraryID, now: now, on: db) else { return nil }
        let number = Paging.page(holding: position)
        guard number > 1, SearchText.tokens(f.query ?? "").isEmpty else { return (number, nil) }
        return (number, try await TitleQuery.pageStart(ofSection: letter, position: position, f, libraryID: library.libraryID, now: now, on: db.sql))
    }

    /// The seek a catalog link asks for: `after`, `before` or `from` a title's id, or `end` (the last page)
    /// (`TitleQuery.Seek.queryItem` writes it).
    static func seek(after: String?, before: String?, from: String?, end: String?) -> TitleQuery.Seek? {
        if let id = after.flatMap(UUID.init(uuidString:)) { return .after(id) }
        if let id = before.flatMap(UUID.init(uuidString:)) { return .before(id) }
        if let id = from.flatMap(UUID.init(uuidString:)) { return .from(id) }
        return end == "1" ? .end : nil
    }

    /// This page's link with another chip, view, order or page (a new chip or order starts at page 1;
    /// the same page in another view keeps how it was found).
    func url(show: String? = nil, view: String? = nil, sort newSort: TitleSort? = nil, page: Int? = nil, letter: String? = nil) -> String {
        let same = show == nil && newSort == nil && page == nil && letter == nil
        return Self.link(libraryID, q: q, chip: show ?? chip, grid: (view.map { $0 == "grid" }) ?? grid, sort: newSort ?? sort,
                         page: page ?? (show == nil && newSort == nil ? paging.number : 1), letter: letter, seek: same ? seek : nil, narrow: narrow,
                         select: select == .off ? nil : Selecting.on.rawValue)
    }

    /// This page in another select mode (the same books, found the same way).
    func url(select mode: Selecting) -> String {
        Self.link(libraryID, q: q, chip: chip, grid: grid, sort: sort, page: paging.number, seek: seek, narrow: narrow, select: mode.query)
    }

    /// The pager's link for `step`: the next and previous pages are found from this page's last and
    /// first titles, the last page from the end, so none of them skips over the catalog.
    func url(_ step: PageStep) -> String {
        let first = result.items.first?.id, last = result.items.last?.id
        switch step {
        case .first: return url(page: 1)
        case .previous(let n): return Self.link(libraryID, q: q, chip: chip, grid: grid, sort: sort, page: n, seek: searching || n == 1 ? nil : first.map { .before($0) }, narrow: narrow, select: select.query == nil ? nil : "1")
        case .next(let n): return Self.link(libraryID, q: q, chip: chip, grid: grid, sort: sort, page: n, seek: searching ? nil : last.map { .after($0) }, narrow: narrow, select: select.query == nil ? nil : "1")
        case .last(let n): return Self.link(libraryID, q: q, chip: chip, grid: grid, sort: sort, page: n, seek: searching ? nil : .end, narrow: narrow, select: select.query == nil ? nil : "1")
        }
    }

    static func link(_ libraryID: UUID, q: String?, chip: String, grid: Bool, sort: TitleSort, page: Int, letter: String? = nil,
                     seek: TitleQuery.Seek? = nil, narrow: Narrowing = Narrowing(), select: String? = nil) -> String {
        var query: [(String, String?)] = [("q", q), ("show", chip == "all" ? nil : chip), ("view", grid ? "grid" : nil),
                                          ("sort", sort == .title ? nil : sort.rawValue), ("page", page > 1 && letter == nil ? String(page) : nil),
                                          ("letter", letter)] + narrow.query + [("select", select)]
        if page > 1, letter == nil, let seek { query.append(seek.queryItem) }
        return WebRoute.catalog(library: libraryID).path(query: query)
    }

    var searching: Bool { !(q ?? "").isEmpty }
}
