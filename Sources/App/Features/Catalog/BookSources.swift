import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Which catalogues a lookup by ISBN asks, in which order (the first that knows a field gives it):
/// Google Books and Open Library by default; the national libraries' SRU catalogues (DNB, Library
/// of Congress, K10plus) when the administrator turns them on. An installation's setting, as the
/// lookup cache it fills is shared by every library; a change empties that cache, so the next
/// lookup of a book asks the sources as they now are.
struct BookSources: Codable, Sendable, Equatable {
    var order: [ProviderID]

    static let key = "book_sources"
    static let standard = BookSources(order: ProviderID.defaultOrder)

    static func load(on db: any Database) async throws -> BookSources {
        let stored = try await ServerSettings.stored(key, as: BookSources.self, on: db)
        guard let stored, !stored.order.isEmpty else { return standard }
        return stored
    }

    /// Checks and keeps a new order; empties the lookup cache when it changed.
    static func save(_ order: [ProviderID], gate: WriteGate, on db: any Database) async throws -> BookSources {
        guard !order.isEmpty else { throw BookSourcesError.none }
        if let again = order.indices.first(where: { order[..<$0].contains(order[$0]) }) {
            throw BookSourcesError.listedTwice(order[again])
        }
        let before = try await load(on: db)
        let next = BookSources(order: order)
        try await ServerSettings.store(next, key: key, gate: gate, on: db)
        if next != before {
            try await gate.transaction(on: db) { db in try await db.sql.raw("DELETE FROM lookup_cache").run() }
        }
        return next
    }
}

enum BookSourcesError: DomainError, Equatable {
    case none
    /// The page gave two sources one place.
    case twice(position: Int)
    /// The API's order names a source twice.
    case listedTwice(ProviderID)

    var described: Described {
        switch self {
        case .none: .init(.invalid, "invalid", field: "order") { $0(.errBookSourcesNone) }
        case .twice(let n): .init(.invalid, "invalid", field: "order") { $0.format(.errBookSourcesTwice, $0.number(n)) }
        case .listedTwice(let source): .init(.invalid, "invalid", field: "order") { $0.format(.errBookSourceListedTwice, source.displayName) }
        }
    }
}

/// One source as the API and the page show it.
struct BookSourceDTO: Content {
    var id: ProviderID
    var name: String
    /// Its place in the order (1 first); nil when it is not asked.
    var position: Int?
    var nationalLibrary: Bool
}

struct BookSourcesDTO: Content {
    /// Every source this build knows: those asked first, in their order, then the others.
    var sources: [BookSourceDTO]

    init(_ s: BookSources) {
        let others = ProviderID.allCases.filter { !s.order.contains($0) }
        sources = s.order.enumerated().map { BookSourceDTO(id: $1, name: $1.displayName, position: $0 + 1, nationalLibrary: $1.isNationalLibrary) }
            + others.map { BookSourceDTO(id: $0, name: $0.displayName, position: nil, nationalLibrary: $0.isNationalLibrary) }
    }
}

/// `PATCH /api/v1/server/book-sources`: the sources to ask, first first.
struct BookSourcesPatch: Content, SchemaConstrained {
    var order: [ProviderID]

    static var schemaConstraints: [String: JSONValue] {
        ["order": ["minItems": 1, "maxItems": .number(Double(ProviderID.allCases.count)), "uniqueItems": true]]
    }
}

enum BookSourcesController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "server", "book-sources", doc: .init(
            summary: "The catalogues a lookup by ISBN asks and their order (the administrator): Google Books, Open Library and the national libraries' SRU catalogues",
            tag: "Catalog", response: BookSourcesDTO.self), use: show)
        api.on(.PATCH, "server", "book-sources", doc: .init(
            summary: "Choose the catalogues a lookup asks, first first (the administrator). Sources left out are not asked; at least one stays. A change empties the lookup cache",
            tag: "Catalog", request: BookSourcesPatch.self, response: BookSourcesDTO.self), use: update)
    }

    @Sendable static func show(req: Request) async throws -> BookSourcesDTO {
        try await ServerSettings.requireAdmin(req)
        return BookSourcesDTO(try await BookSources.load(on: req.db))
    }

    @Sendable static func update(req: Request) async throws -> BookSourcesDTO {
        try await ServerSettings.requireAdmin(req)
        let patch = try req.content.decode(BookSourcesPatch.self)
        return BookSourcesDTO(try await BookSources.save(patch.order, gate: req.application.writeGate, on: req.db))
    }
}

/// The administrator's page: a place (or "not asked") for each source.
enum BookSourcesPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.bookSources(library: .pattern), use: show)
        web.post(.bookSources(library: .pattern), use: save).maxBody(4 << 10)
    }

    @Sendable static func show(req: Request) async throws -> HTML {
        let ctx = try await ServerSettings.administratorPage(req)
        let page = try await req.page(library: ctx)
        return BookSourcesPage(libraryID: ctx.libraryID, sources: BookSourcesDTO(try await BookSources.load(on: req.db))).render(page)
    }

    /// The form: `position_<source id>` = 1, 2, … or empty (not asked).
    @Sendable static func save(req: Request) async throws -> Response {
        let ctx = try await ServerSettings.administratorPage(req)
        do {
            var placed: [(Int, ProviderID)] = []
            for id in ProviderID.allCases {
                let raw = (try? req.content.get(String.self, at: "position_\(id.rawValue)")) ?? ""
                guard let n = Int(raw.trimmingCharacters(in: .whitespaces)) else { continue }
                guard (1...ProviderID.allCases.count).contains(n) else { throw BookSourcesError.none }
                if placed.contains(where: { $0.0 == n }) { throw BookSourcesError.twice(position: n) }
                placed.append((n, id))
            }
            _ = try await BookSources.save(placed.sorted { $0.0 < $1.0 }.map(\.1), gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.bookSources(library: ctx.libraryID).path, flash: req.t(.bookSourcesSaved))
        } catch let error as BookSourcesError {
            var page = try await req.page(library: ctx)
            (page.flash, page.flashIsError) = (req.t.message(error), true)
            return try await req.refused(BookSourcesPage(libraryID: ctx.libraryID, sources: BookSourcesDTO(try await BookSources.load(on: req.db))).render(page))
        }
    }
}

struct BookSourcesPage: Sendable {
    var libraryID: UUID
    var sources: BookSourcesDTO

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let count = sources.sources.count
        return Layout.page(page, title: t(.bookSourcesTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.bookSourcesTitle)) }
            H.el(.p, [.class: "muted"]) { EscapedText(t(.bookSourcesIntro)) }
            H.form(WebRoute.bookSources(library: libraryID).path, csrf: page.csrf, attrs: [.class: "card"]) {
                for source in sources.sources {
                    H.el(.div, [.class: "field"]) {
                        H.el(.label, [.for: "f-\(source.id.rawValue)"]) { EscapedText(source.name) }
                        H.el(.select, [.id: "f-\(source.id.rawValue)", .name: "position_\(source.id.rawValue)"]) {
                            H.el(.option, [.value: "", .selected: source.position == nil ? "" : nil]) { EscapedText(t(.bookSourceOff)) }
                            for n in 1...count {
                                H.el(.option, [.value: String(n), .selected: source.position == n ? "" : nil]) {
                                    EscapedText(t.format(.bookSourcePosition, t.number(n)))
                                }
                            }
                        }
                    }
                }
                H.button(t(.save))
            }
        }
    }
}

extension ProviderID: SchemaEnum {}
