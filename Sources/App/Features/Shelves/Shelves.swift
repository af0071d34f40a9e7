import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A shelf of a library: its name (what its copies' `location` holds), room and short code.
struct ShelfDTO: Content, Equatable {
    var id: UUID
    var name: String
    var room: String?
    var code: String
    /// Copies whose place it is (withdrawn ones left out).
    var copies: Int
    /// When its last stocktake was finished.
    var lastStocktake: Date?
}

struct ShelfInput: Content, SchemaConstrained {
    var name: String
    var room: String?
    /// Latin letters, digits, "-" and "."; made from the name when absent.
    var code: String?

    static var schemaConstraints: [String: JSONValue] {
        ["name": Rule.text(200), "room": Rule.optionalText(100), "code": ["pattern": "^[A-Za-z0-9.-]{1,16}$"]]
    }
}

struct ShelfPatch: Content, SchemaConstrained {
    var name: String?
    var room: String?
    var code: String?

    static var schemaConstraints: [String: JSONValue] {
        ["name": Rule.text(200), "room": Rule.optionalText(100), "code": ["pattern": "^[A-Za-z0-9.-]{1,16}$"]]
    }
}

/// A copy put on a shelf by a scan.
struct ShelvedCopy: Content, Equatable {
    var copyId: UUID
    var barcode: String
    var titleId: UUID
    var title: String
    /// Where it was before (nil: nowhere).
    var from: String?
    var shelf: String
}

struct ShelfScanInput: Content, SchemaConstrained {
    /// What was scanned or typed: a copy's barcode or an ISBN.
    var code: String

    static var schemaConstraints: [String: JSONValue] { ["code": Rule.text(Stocktakes.maxCode)] }
}

enum ShelfError: DomainError, Equatable {
    case notFound
    case nameTaken(String)
    case codeTaken(String)
    case badCode(String)
    case notEmpty(copies: Int)
    case tooMany(max: Int)
    /// A scan that names no copy and no book of the library.
    case unknownItem(String)
    /// A book of the library without a copy to put on a shelf.
    case noCopy(title: String)
    /// A shelf's QR code scanned where a book was expected.
    case shelfScanned(String)
    case stocktakeNotFound
    case stocktakeFinished

    var described: Described {
        switch self {
        case .notFound: .init(.notFound, "shelf_not_found") { $0(.errShelfNotFound) }
        case .nameTaken(let name): .init(.conflict, "shelf_name_taken", field: "name") { $0.format(.errShelfNameTaken, name) }
        case .codeTaken(let code): .init(.conflict, "shelf_code_taken", field: "code") { $0.format(.errShelfCodeTaken, code) }
        case .badCode(let code): .init(.invalid, "invalid", field: "code") { $0.format(.errShelfCode, code) }
        case .notEmpty(let n): .init(.conflict, "shelf_not_empty", details: ["copies": String(n)]) { $0.format(.errShelfNotEmpty, $0.number(n)) }
        case .tooMany(let max): .init(.conflict, "too_many_shelves") { $0.format(.errTooManyShelves, $0.number(max)) }
        case .unknownItem(let code): .init(.notFound, "nothing_with_code", field: "code") { $0.format(.errNothingWithCode, code) }
        case .noCopy(let title): .init(.conflict, "no_copy", field: "code") { $0.format(.errBookWithoutCopy, title) }
        case .shelfScanned(let name): .init(.invalid, "shelf_scanned", field: "code") { $0.format(.errShelfScanned, name) }
        case .stocktakeNotFound: .init(.notFound, "stocktake_not_found") { $0(.errStocktakeNotFound) }
        case .stocktakeFinished: .init(.conflict, "stocktake_finished") { $0(.errStocktakeFinished) }
        }
    }
}

/// Shelves: made by hand or from the location a copy is given, renamed with their copies,
/// deleted when empty; books put on them by a scan.
enum Shelves {
    static let maxPerLibrary = 2_000

    /// A shelf's copies are read from `shelf_counts` (kept by triggers as copies change, `AddShelfCounts`):
    /// the page costs the same whatever the shelves hold.
    private static let columns: SQLQueryString = """
        s.id, s.name, s.room, s.code,
        COALESCE((SELECT k.n FROM shelf_counts k WHERE k.library_id = s.library_id AND k.location = s.name), 0) AS copies,
        (SELECT MAX(k.finished_at) FROM stocktakes k WHERE k.shelf_id = s.id) AS last_stocktake
        """

    private struct Row: Decodable { var id: UUID; var name: String; var room: String?; var code: String; var copies: Int; var last_stocktake: Date? }

    private static func dto(_ r: Row) -> ShelfDTO {
        ShelfDTO(id: r.id, name: r.name, room: r.room, code: r.code, copies: r.copies, lastStocktake: r.last_stocktake)
    }

    /// Every shelf of the library, in natural order ("B2" before "B10").
    static func list(library: UUID, on db: any Database) async throws -> [ShelfDTO] {
        let rows = try await db.sql.raw("SELECT " + columns + " FROM shelves s WHERE s.library_id = \(bind: library) LIMIT \(literal: maxPerLibrary)")
            .all(decoding: Row.self)
        return rows.map(dto).sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    static func get(_ id: UUID, library: UUID, on db: any Database) async throws -> ShelfDTO {
        guard let row = try await db.sql.raw("SELECT " + columns + " FROM shelves s WHERE s.id = \(bind: id) AND s.library_id = \(bind: library)")
            .first(decoding: Row.self) else { throw ShelfError.notFound }
        return dto(row)
    }

    /// The shelf of that name: its id only (a book's page links each copy's shelf).
    static func id(named name: String, library: UUID, on db: any Database) async throws -> UUID? {
        struct Row: Decodable { var id: UUID }
        return try await db.sql.raw("SELECT id FROM shelves WHERE library_id = \(bind: library) AND name = \(bind: name)")
            .first(decoding: Row.self)?.id
    }

    static func create(_ input: ShelfInput, in scope: Scope) async throws -> ShelfDTO {
        let name = try Check.required(input.name, field: "name", max: 200)
        let room = try Check.optional(input.room, field: "room", max: 100)
        let given = try input.code.flatMap { try code($0) }
        let id = UUID()
        try await scope.gate.transaction(on: scope.db) { db in
            let count = try await db.sql.raw("SELECT COUNT(*) AS n FROM shelves WHERE library_id = \(bind: scope.libraryID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard count < maxPerLibrary else { throw ShelfError.tooMany(max: maxPerLibrary) }
            try await refuseTaken(name: name, except: nil, library: scope.libraryID, on: db)
            let code: String
            if let given {
                try await refuseTaken(code: given, except: nil, library: scope.libraryID, on: db)
                code = given
            } else {
                code = try await freeCode(for: name, library: scope.libraryID, on: db)
            }
            try await db.sql.raw("""
                INSERT INTO shelves (id, library_id, name, room, code, created_at, updated_at)
                VALUES (\(bind: id), \(bind: scope.libraryID), \(bind: name), \(bind: room), \(bind: code), \(bind: scope.now), \(bind: scope.now))
                """).run()
        }
        return try await get(id, library: scope.libraryID, on: scope.db)
    }

    /// Renames a shelf with its copies (and the smart collections that name it), or changes its room or code.
    static func update(_ id: UUID, _ patch: ShelfPatch, in scope: Scope) async throws -> ShelfDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            let current = try await get(id, library: scope.libraryID, on: db)
            if let raw = patch.name {
                let name = try Check.required(raw, field: "name", max: 200)
                if name != current.name {
                    try await refuseTaken(name: name, except: id, library: scope.libraryID, on: db)
                    try await db.sql.raw("UPDATE shelves SET name = \(bind: name), updated_at = \(bind: scope.now) WHERE id = \(bind: id)").run()
                    try await db.sql.raw("""
                        UPDATE copies SET location = \(bind: name), updated_at = \(bind: scope.now)
                        WHERE library_no = \(LibraryNumber.of(scope.libraryID)) AND location = \(bind: current.name)
                        """).run()
                    for var collection in try await Collections.list(library: scope.libraryID, on: db) where collection.filter.shelf == current.name {
                        collection.filter.shelf = name
                        let json = String(decoding: try JSONEncoder().encode(collection.filter), as: UTF8.self)
                        try await db.sql.raw("UPDATE collections SET filter = \(bind: json) WHERE id = \(bind: collection.id)").run()
                    }
                }
            }
            if patch.room != nil {
                let room = try Check.optional(patch.room, field: "room", max: 100)
                try await db.sql.raw("UPDATE shelves SET room = \(bind: room), updated_at = \(bind: scope.now) WHERE id = \(bind: id)").run()
            }
            if let raw = patch.code, !raw.trimmingCharacters(in: .whitespaces).isEmpty {
                let code = try code(raw)
                if code != current.code {
                    try await refuseTaken(code: code, except: id, library: scope.libraryID, on: db)
                    try await db.sql.raw("UPDATE shelves SET code = \(bind: code), updated_at = \(bind: scope.now) WHERE id = \(bind: id)").run()
                }
            }
        }
        return try await get(id, library: scope.libraryID, on: scope.db)
    }

    /// Deletes an empty shelf (withdrawn copies that named it are left without a place); refused
    /// while copies stand on it.
    static func delete(_ id: UUID, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            let shelf = try await get(id, library: scope.libraryID, on: db)
            guard shelf.copies == 0 else { throw ShelfError.notEmpty(copies: shelf.copies) }
            try await db.sql.raw("UPDATE copies SET location = NULL WHERE library_no = \(LibraryNumber.of(scope.libraryID)) AND location = \(bind: shelf.name)").run()
            try await db.sql.raw("DELETE FROM shelves WHERE id = \(bind: id)").run()
        }
    }

    /// The shelf a copy's location names, made when there is none yet (inside the caller's
    /// transaction): every place a copy is given is a shelf.
    static func ensure(_ name: String?, library: UUID, now: Date = Date(), on db: any Database) async throws {
        guard let name, !name.isEmpty else { return }
        guard try await db.sql.raw("SELECT id FROM shelves WHERE library_id = \(bind: library) AND name = \(bind: name)").first() == nil else { return }
        let code = try await freeCode(for: name, library: library, on: db)
        try await db.sql.raw("""
            INSERT INTO shelves (id, library_id, name, code, created_at, updated_at)
            VALUES (\(bind: UUID()), \(bind: library), \(bind: name), \(bind: code), \(bind: now), \(bind: now))
            """).run()
    }

    /// Every location of the library's copies that is no shelf yet becomes one (after an import or a restore).
    static func ensureAll(library: UUID, now: Date = Date(), on db: any Database) async throws {
        let names = try await db.sql.raw("""
            SELECT DISTINCT c.location FROM copies c WHERE c.library_no = \(LibraryNumber.of(library)) AND c.location IS NOT NULL AND c.location <> ''
            AND NOT EXISTS (SELECT 1 FROM shelves s WHERE s.library_id = \(bind: library) AND s.name = c.location)
            """).all().map { try $0.decode(column: "location", as: String.self) }
        for name in names.prefix(maxPerLibrary) { try await ensure(name, library: library, now: now, on: db) }
    }

    // MARK: - Putting books on a shelf

    /// A copy a scan may name, with where it stands.
    struct Candidate: Decodable, Sendable {
        var id: UUID
        var barcode: String
        var title_id: UUID
        var title: String
        var location: String?
        var status: String
    }

    /// The copies a scan names: the one with that barcode, or the copies of the book with that ISBN
    /// (by copy number). Empty when neither.
    static func candidates(_ text: String, library: UUID, on db: any Database) async throws -> (copies: [Candidate], title: String?) {
        let select: SQLQueryString = "SELECT c.id, c.barcode, c.title_id, t.title, c.location, c.status FROM copies c JOIN titles t ON t.id = c.title_id WHERE "
        if let isbn = try? ISBN(text) {
            let titles = try await db.sql.raw("SELECT id, title FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND isbn13 = \(bind: isbn.isbn13) AND wishlist = \(bind: false)")
                .all()
            if let first = titles.first {
                let ids = try titles.map { try $0.decode(column: "id", as: UUID.self) }
                let copies = try await db.sql.raw(select + "c.title_id IN (\(binds: ids)) ORDER BY c.copy_number LIMIT 500").all(decoding: Candidate.self)
                return (copies, try first.decode(column: "title", as: String.self))
            }
        }
        guard let id = try await Lookup.copy(barcode: text, library: library, on: db) else { return ([], nil) }
        return (try await db.sql.raw(select + "c.id = \(bind: id)").all(decoding: Candidate.self), nil)
    }

    /// Puts the copy a scan names on the shelf (scan the shelf, then its books). For an ISBN,
    /// a copy not on this shelf yet: one without a place first, then one that is on the shelf (not lent).
    static func assign(_ text: String, to shelfID: UUID, in scope: Scope) async throws -> ShelvedCopy {
        let code = try Check.required(text, field: "code", max: 300)
        if case .shelf = ShelfScan.read(code) { throw ShelfError.shelfScanned(code) }
        if case .shelfNamed(let name) = ShelfScan.read(code) { throw ShelfError.shelfScanned(name) }
        return try await scope.gate.transaction(on: scope.db) { db in
            let shelf = try await get(shelfID, library: scope.libraryID, on: db)
            let (copies, title) = try await candidates(code, library: scope.libraryID, on: db)
            guard !copies.isEmpty else {
                if let title { throw ShelfError.noCopy(title: title) }
                throw ShelfError.unknownItem(code)
            }
            let usable = copies.filter { $0.status != CopyStatus.withdrawn.rawValue }
            let pick = usable.first { $0.location == nil || $0.location == "" } ?? usable.first { $0.location != shelf.name && $0.status != CopyStatus.onLoan.rawValue }
                ?? usable.first { $0.location != shelf.name } ?? usable.first ?? copies[0]
            if pick.location != shelf.name {
                try await db.sql.raw("UPDATE copies SET location = \(bind: shelf.name), updated_at = \(bind: scope.now) WHERE id = \(bind: pick.id)").run()
            }
            return ShelvedCopy(copyId: pick.id, barcode: pick.barcode, titleId: pick.title_id, title: pick.title,
                               from: pick.location.flatMap { $0.isEmpty ? nil : $0 }, shelf: shelf.name)
        }
    }

    // MARK: - Names and codes

    static func code(_ raw: String) throws -> String {
        guard let code = ShelfCode.normalized(raw) else { throw ShelfError.badCode(String(raw.prefix(40))) }
        return code
    }

    private static func freeCode(for name: String, library: UUID, on db: any Database) async throws -> String {
        let base = ShelfCode.derived(from: name)
        let taken = try await db.sql.raw("SELECT code FROM shelves WHERE library_id = \(bind: library) AND code LIKE \(bind: base + "%")").all()
            .map { try $0.decode(column: "code", as: String.self) }
        return ShelfCode.unique(base, taken: Set(taken))
    }

    private static func refuseTaken(name: String, except: UUID?, library: UUID, on db: any Database) async throws {
        var query: SQLQueryString = "SELECT name FROM shelves WHERE library_id = \(bind: library) AND lower(name) = lower(\(bind: name))"
        if let except { query += " AND id <> \(bind: except)" }
        if let taken = try await db.sql.raw(query).first() { throw ShelfError.nameTaken(try taken.decode(column: "name", as: String.self)) }
    }

    private static func refuseTaken(code: String, except: UUID?, library: UUID, on db: any Database) async throws {
        var query: SQLQueryString = "SELECT id FROM shelves WHERE library_id = \(bind: library) AND code = \(bind: code)"
        if let except { query += " AND id <> \(bind: except)" }
        if try await db.sql.raw(query).first() != nil { throw ShelfError.codeTaken(code) }
    }
}
