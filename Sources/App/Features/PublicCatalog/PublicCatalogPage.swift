import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// The public catalog's list: search, the A–Z index and pages found by seeking, as the
/// staff catalog (so it costs the same at any size); each book with its cover, authors, shelf and
/// whether a copy is on the shelf. Nothing about members.
struct PublicCatalogPage: Sendable {
    var library: MemberPortal.PublicLibrary
    var q: String?
    var paging: Paging
    var seek: TitleQuery.Seek?
    var result: TitleList
    /// A shelf and reading level (as the staff catalog narrows), a series (a book page's link).
    var narrow = CatalogPage.Narrowing()
    var series: String?
    /// The library's figures, on the first page of the whole catalog when it shows them.
    var figures: PublicFigures.Figures?

    var searching: Bool { !(q ?? "").isEmpty }
    var narrowed: Bool { !narrow.isEmpty || series != nil }

    static func filters(q: String?, narrow: CatalogPage.Narrowing = .init(), series: String? = nil) -> TitleQuery.Filters {
        var filters = CatalogPage.filters(q: q, chip: "all", sort: .title, narrow: narrow)
        filters.series = series
        return filters
    }

    static func make(q: String?, paging: Paging, seek: TitleQuery.Seek?, narrow: CatalogPage.Narrowing, series: String?,
                     library: MemberPortal.PublicLibrary, now: Date, on db: any Database) async throws -> PublicCatalogPage {
        var filters = filters(q: q, narrow: narrow, series: series)
        filters.includeSections = true
        (filters.limit, filters.offset) = (paging.size, paging.offset)
        filters.seek = paging.number > 1 ? seek : nil
        var page = PublicCatalogPage(library: library, q: q?.cleanedInput, paging: paging, seek: filters.seek,
                                     result: try await TitleQuery.list(filters, libraryID: library.id, now: now, on: db), narrow: narrow, series: series)
        if library.figures, paging.number == 1, !page.searching, !page.narrowed {
            page.figures = try await PublicFigures.get(library: library.id, calendar: library.policy.calendar, now: now, on: db)
        }
        return page
    }

    static func page(ofSection letter: String, q: String?, narrow: CatalogPage.Narrowing, series: String?, library: UUID, now: Date,
                     on db: any Database) async throws -> (number: Int, start: UUID?)? {
        let f = filters(q: q, narrow: narrow, series: series)
        guard let position = try await TitleQuery.position(ofSection: letter, f, libraryID: library, now: now, on: db) else { return nil }
        let number = Paging.page(holding: position)
        guard number > 1, SearchText.tokens(f.query ?? "").isEmpty else { return (number, nil) }
        return (number, try await TitleQuery.pageStart(ofSection: letter, position: position, f, libraryID: library, now: now, on: db.sql))
    }

    static func link(_ library: UUID, q: String?, page: Int, letter: String? = nil, seek: TitleQuery.Seek? = nil,
                     narrow: CatalogPage.Narrowing = .init(), series: String? = nil) -> String {
        var query: [(String, String?)] = [("q", q), ("series", series)] + narrow.query
            + [("page", page > 1 && letter == nil ? String(page) : nil), ("letter", letter)]
        if page > 1, letter == nil, let seek { query.append(seek.queryItem) }
        return WebRoute.publicCatalog(library: library).path(query: query)
    }

    func url(_ step: PageStep) -> String {
        let (lib, first, last, narrow, series) = (library.id, result.items.first?.id, result.items.last?.id, narrow, series)
        switch step {
        case .first: return Self.link(lib, q: q, page: 1, narrow: narrow, series: series)
        case .previous(let n): return Self.link(lib, q: q, page: n, seek: searching || n == 1 ? nil : first.map { .before($0) }, narrow: narrow, series: series)
        case .next(let n): return Self.link(lib, q: q, page: n, seek: searching ? nil : last.map { .after($0) }, narrow: narrow, series: series)
        case .last(let n): return Self.link(lib, q: q, page: n, seek: searching ? nil : .end, narrow: narrow, series: series)
        }
    }

    /// Books lent this school year and the most borrowed this month, as titles to open.
    private func figuresSection(_ figures: PublicFigures.Figures, _ t: Strings) -> any Component {
        let lib = library.id
        return H.el(.section, [.class: "public-figures", .ariaLabelledby: "figures"]) {
            H.el(.h2, [.id: "figures"]) { EscapedText(t.format(.publicFiguresLent, t.number(figures.lentThisYear))) }
            if !figures.mostBorrowed.isEmpty {
                H.el(.p, [.class: "hint"]) { EscapedText(t(.publicFiguresMostBorrowed)) }
                H.el(.ol, [:]) {
                    for title in figures.mostBorrowed {
                        H.el(.li, [:]) { H.link(title.title, WebRoute.publicTitle(library: lib, title: title.id).path) }
                    }
                }
            }
        }
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = library.id
        return Layout.page(page, title: library.name) {
            H.el(.h1, [:]) { EscapedText(t.format(.portalCatalogHeading, library.name)) }
            H.el(.form, [.method: "get", .action: WebRoute.publicCatalog(library: lib).path, .class: "search", .role: "search"]) {
                H.el(.label, [.for: "f-q", .class: "visually-hidden"]) { EscapedText(t(.search)) }
                H.void(.input, [.type: "search", .id: "f-q", .name: "q", .value: q, .placeholder: t(.searchPlaceholder), .autocomplete: "off"])
                H.button(t(.search), kind: "quiet")
            }
            narrowing(t)
            if let figures, figures.lentThisYear > 0 { figuresSection(figures, t) }
            if let series { H.el(.h2, [:]) { EscapedText(t(.seriesField) + ": " + series) } }
            if result.items.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(searching ? t(.portalNothingFound) : t(.portalCatalogEmpty)) }
            } else if searching || result.order == .recent {
                H.el(.ul, [.class: "titles"]) { for item in result.items { Self.row(item, lib: lib, t: t) } }
            } else {
                if let sections = result.sections, sections.count > 1 {
                    H.el(.nav, [.class: "az", .ariaLabel: t(.jumpTo)]) {
                        for s in sections { H.link(s.letter, Self.link(lib, q: q, page: 1, letter: s.letter, narrow: narrow, series: series)) }
                    }
                }
                for (letter, items) in CatalogPage.grouped(result.items) {
                    H.el(.section, [.class: "az-section", .id: "sec-" + (letter == "#" ? "num" : letter)]) {
                        H.el(.h2, [:]) { EscapedText(letter) }
                        H.el(.ul, [.class: "titles"]) { for item in items { Self.row(item, lib: lib, t: t) } }
                    }
                }
            }
            Components.pager(paging, total: result.totalIsLowerBound ? nil : result.total, hasMore: result.items.count == paging.size, t: t,
                             step: { self.url($0) })
        }
    }

    /// A shelf and a reading level to narrow the list by (open while one is chosen).
    func narrowing(_ t: Strings) -> any Component {
        let (lib, narrow, q, series) = (library.id, narrow, q, series)
        return H.el(.details, [.class: "narrow card", .open: narrow.isEmpty ? nil : ""]) {
            H.el(.summary, [:]) { EscapedText(t(.narrowTitle)) }
            CatalogPage.narrowForm(action: WebRoute.publicCatalog(library: lib).path, keep: [("q", q), ("series", series)], narrow: narrow,
                                   locations: [], clear: narrowed ? Self.link(lib, q: q, page: 1) : nil, t: t)
        }
    }

    /// A book in the list: what anyone may see (no favourites, no notes).
    static func row(_ item: TitleSummary, lib: UUID, t: Strings) -> any Component {
        H.el(.li, [:]) {
            H.el(.a, [.class: "title-row", .href: WebRoute.publicTitle(library: lib, title: item.id).path]) {
                Components.cover(item.coverUrl, title: item.title, t: t)
                H.el(.span, [.class: "meta"]) {
                    H.el(.span, [.class: "name"]) { EscapedText(item.title) }
                    if !item.authors.isEmpty { H.el(.span, [.class: "authors"]) { EscapedText(item.authors.joined(separator: ", ")) } }
                    if let shelf = item.shelves.first {
                        H.el(.span, [.class: "shelf"]) { EscapedText(t.format(.shelfHeading, shelf) + (item.shelves.count > 1 ? " …" : "")) }
                    }
                }
                Components.badge(item.availability, overdue: false, t: t)
            }
        }
    }
}
