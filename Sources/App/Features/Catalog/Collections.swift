import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A smart collection's filter: any combination of a search, a category, a shelf, a series, a
/// reading level range, availability, favourites, a lowest rating and "added in the last N days".
struct CollectionFilter: Content, Equatable, SchemaConstrained {
    enum Availability: String, Codable, Sendable, CaseIterable, SchemaEnum {
        /// A copy can be lent now.
        case available
        case onLoan = "on_loan"
        case overdue
    }

    var q: String?
    var categoryId: UUID?
    var shelf: String?
    var series: String?
    var levelScheme: ReadingLevel.Scheme?
    var levelMin: Double?
    var levelMax: Double?
    var availability: Availability?
    var favorites: Bool?
    var minRating: Double?
    /// Where the one looking is with each book (their own reading): each person sees the collection by theirs.
    var readStatus: ReadingFilter?
    /// Titles added in the last this many days ("everything added this month": 31).
    var addedWithinDays: Int?

    static var schemaConstraints: [String: JSONValue] {
        ["q": Rule.optionalText(200), "shelf": Rule.optionalText(100), "series": Rule.optionalText(300),
         "levelMin": ["minimum": -2000, "maximum": 2500], "levelMax": ["minimum": -2000, "maximum": 2500],
         "minRating": Rule.rating, "addedWithinDays": Rule.range(1...3650)]
    }

    /// The filter checked: text trimmed and bounded, numbers in range; a range without a scheme is AR's.
    func checked() throws -> CollectionFilter {
        var f = self
        f.q = try Check.optional(q, field: "q", max: 200)
        f.shelf = try Check.optional(shelf, field: "shelf", max: 100)
        f.series = try Check.optional(series, field: "series", max: 300)
        for (field, value) in [("levelMin", levelMin), ("levelMax", levelMax)] {
            if let value, !(value.isFinite && (-2000...2500).contains(value)) { throw InputProblem.outOfRange(field: field, min: -2000, max: 2500, got: Int(value.isFinite ? min(max(value, -1e9), 1e9) : 0)) }
        }
        if let rating = minRating, !(0...5).contains(rating) { throw CatalogError.ratingOutOfRange(rating) }
        if let days = addedWithinDays { f.addedWithinDays = try Check.range(days, 1...3650, field: "addedWithinDays") }
        if f.levelScheme == nil, f.levelMin != nil || f.levelMax != nil { f.levelScheme = .ar }
        if f.favorites == false { f.favorites = nil }
        return f
    }

    /// The catalog's filters for this collection at `now`.
    /// The filter on `f`; `reader` is the one looking (whose reading `readStatus` means; without one it
    /// is left out: a printed sheet or a report is everyone's).
    func apply(to f: inout TitleQuery.Filters, now: Date, reader: UUID? = nil) {
        if let q { f.query = q }
        if let categoryId { f.categoryID = categoryId }
        if let shelf { f.location = shelf }
        if let series { f.series = series }
        if let levelScheme { (f.levelScheme, f.levelMin, f.levelMax) = (levelScheme, levelMin, levelMax) }
        switch availability {
        case .available: f.available = true
        case .onLoan: f.onLoan = true
        case .overdue: f.overdue = true
        case nil: break
        }
        if favorites == true { f.favorites = true }
        if let minRating { f.minRating = minRating }
        if let readStatus, let reader { (f.readStatus, f.reader) = (readStatus, reader) }
        if let days = addedWithinDays { f.addedSince = now.addingTimeInterval(-Double(days) * 86_400) }
    }
}

struct CollectionDTO: Content {
    var id: UUID
    var name: String
    var filter: CollectionFilter
}

struct CollectionInput: Content, SchemaConstrained {
    var name: String
    var filter: CollectionFilter

    static var schemaConstraints: [String: JSONValue] { ["name": Rule.text(80)] }
}

struct CollectionPatch: Content, SchemaConstrained {
    var name: String?
    var filter: CollectionFilter?

    static var schemaConstraints: [String: JSONValue] { ["name": Rule.text(80)] }
}

enum CollectionError: DomainError, Equatable {
    case notFound
    case nameTaken(String)
    case tooMany(max: Int)

    var described: Described {
        switch self {
        case .notFound: .init(.notFound, "collection_not_found") { $0(.errCollectionNotFound) }
        case .nameTaken(let name): .init(.conflict, "collection_name_taken", field: "name") { $0.format(.errCollectionNameTaken, name) }
        case .tooMany(let max): .init(.conflict, "too_many_collections") { $0.format(.errTooManyCollections, $0.number(max)) }
        }
    }
}

/// Smart collections: saved filters of a library, by name.
enum Collections {
    static let maxPerLibrary = 100

    static func list(library: UUID, on db: any Database) async throws -> [CollectionDTO] {
        try await db.sql.raw("SELECT id, name, filter FROM collections WHERE library_id = \(bind: library) ORDER BY name_key LIMIT \(literal: maxPerLibrary)")
            .all().map(dto)
    }

    static func get(_ id: UUID, library: UUID, on db: any Database) async throws -> CollectionDTO {
        guard let row = try await db.sql.raw("SELECT id, name, filter FROM collections WHERE id = \(bind: id) AND library_id = \(bind: library)").first()
        else { throw CollectionError.notFound }
        return try dto(row)
    }

    static func dto(_ row: any SQLRow) throws -> CollectionDTO {
        let filter = (try? JSONDecoder().decode(CollectionFilter.self, from: Data(try row.decode(column: "filter", as: String.self).utf8))) ?? CollectionFilter()
        return CollectionDTO(id: try row.decode(column: "id", as: UUID.self), name: try row.decode(column: "name", as: String.self), filter: filter)
    }

    static func create(_ input: CollectionInput, in scope: Scope) async throws -> CollectionDTO {
        let name = try Check.required(input.name, field: "name", max: 80)
        let filter = try input.filter.checked()
        let json = String(decoding: try JSONEncoder().encode(filter), as: UTF8.self)
        let id = UUID()
        try await scope.gate.transaction(on: scope.db) { db in
            let count = try await db.sql.raw("SELECT COUNT(*) AS n FROM collections WHERE library_id = \(bind: scope.libraryID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard count < maxPerLibrary else { throw CollectionError.tooMany(max: maxPerLibrary) }
            try await refuseTaken(name, except: nil, library: scope.libraryID, on: db)
            try await db.sql.raw("""
                INSERT INTO collections (id, library_id, name, name_key, filter, created_at, updated_at)
                VALUES (\(bind: id), \(bind: scope.libraryID), \(bind: name), \(bind: name.lowercased()), \(bind: json), \(bind: scope.now), \(bind: scope.now))
                """).run()
        }
        return CollectionDTO(id: id, name: name, filter: filter)
    }

    static func update(_ id: UUID, _ patch: CollectionPatch, in scope: Scope) async throws -> CollectionDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            var current = try await get(id, library: scope.libraryID, on: db)
            if let raw = patch.name {
                let name = try Check.required(raw, field: "name", max: 80)
                try await refuseTaken(name, except: id, library: scope.libraryID, on: db)
                current.name = name
            }
            if let filter = patch.filter { current.filter = try filter.checked() }
            let json = String(decoding: try JSONEncoder().encode(current.filter), as: UTF8.self)
            try await db.sql.raw("""
                UPDATE collections SET name = \(bind: current.name), name_key = \(bind: current.name.lowercased()), filter = \(bind: json),
                updated_at = \(bind: scope.now) WHERE id = \(bind: id)
                """).run()
            return current
        }
    }

    static func delete(_ id: UUID, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            _ = try await get(id, library: scope.libraryID, on: db)
            try await db.sql.raw("DELETE FROM collections WHERE id = \(bind: id)").run()
        }
    }

    static func refuseTaken(_ name: String, except: UUID?, library: UUID, on db: any Database) async throws {
        var query: SQLQueryString = "SELECT id FROM collections WHERE library_id = \(bind: library) AND name_key = \(bind: name.lowercased())"
        if let except { query += " AND id <> \(bind: except)" }
        if try await db.sql.raw(query).first() != nil { throw CollectionError.nameTaken(name) }
    }

    /// The ids of the titles in a collection now (for printing its labels), at most `limit`.
    static func titleIDs(_ filter: CollectionFilter, library: UUID, now: Date, limit: Int, on db: any Database) async throws -> [UUID] {
        var f = TitleQuery.Filters()
        filter.apply(to: &f, now: now)
        f.limit = limit
        return try await TitleQuery.list(f, libraryID: library, now: now, on: db).items.map(\.id)
    }
}
