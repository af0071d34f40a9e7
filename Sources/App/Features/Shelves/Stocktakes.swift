import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A stocktake of one shelf: when, by whom, and what it found.
struct StocktakeDTO: Content, Equatable {
    var id: UUID
    var shelfId: UUID
    var shelfName: String
    var startedAt: Date
    var finishedAt: Date?
    var startedBy: String?
    /// Seen on the shelf and belonging there (moved here included).
    var found: Int
    /// Expected on the shelf and not seen (known when finished).
    var missing: Int
    /// Seen here while their place is elsewhere.
    var misplaced: Int
    /// Scans that named nothing of the library.
    var unknown: Int
}

/// One copy (or unknown code) in a stocktake's report.
struct StocktakeItem: Content, Equatable {
    var copyId: UUID?
    var code: String
    var titleId: UUID?
    var title: String?
    var authors: [String]?
    /// The copy's place in the catalog (when scanned: its place then).
    var location: String?
    var outcome: StocktakeOutcome?
    var scannedAt: Date?
}

/// What a stocktake found so far, in groups.
struct StocktakeReport: Content {
    var stocktake: StocktakeDTO
    /// Copies whose place is this shelf, now (lent ones and lost or withdrawn ones left out).
    var expected: Int
    var here: [StocktakeItem]
    var misplaced: [StocktakeItem]
    /// Scanned here while the catalog says they are on loan.
    var onLoan: [StocktakeItem]
    var unknown: [StocktakeItem]
    /// Expected here and not scanned (yet, or — finished — missing).
    var notScanned: [StocktakeItem]
    /// Copies of this shelf that are on loan: not expected on it.
    var lent: [StocktakeItem]
}

/// The answer to one scan.
struct StocktakeScanAnswer: Content {
    var outcome: StocktakeOutcome
    /// The copy had been scanned in this stocktake already: nothing new was recorded.
    var again: Bool
    var item: StocktakeItem
    var found: Int
    var expected: Int
}

/// Stocktakes: scan a shelf's books; see what is there, what is missing, what belongs elsewhere;
/// kept with their date. A copy's `seen_at` is the last time a stocktake saw it.
enum Stocktakes {
    /// A stocktake holds at most this many scans (a shelf of books, several times over).
    static let maxScans = 5_000
    /// The longest code a scan keeps (a barcode, an ISBN, or whatever a scanner typed).
    static let maxCode = 300

    private static let columns: SQLQueryString = "id, shelf_id, shelf_name, started_at, finished_at, started_by, found, missing, misplaced, unknown"

    private struct Row: Decodable {
        var id: UUID; var shelf_id: UUID; var shelf_name: String; var started_at: Date; var finished_at: Date?; var started_by: String?
        var found: Int; var missing: Int; var misplaced: Int; var unknown: Int
        var dto: StocktakeDTO {
            StocktakeDTO(id: id, shelfId: shelf_id, shelfName: shelf_name, startedAt: started_at, finishedAt: finished_at, startedBy: started_by,
                         found: found, missing: missing, misplaced: misplaced, unknown: unknown)
        }
    }

    static func get(_ id: UUID, library: UUID, on db: any Database) async throws -> StocktakeDTO {
        guard let row = try await db.sql.raw("SELECT " + columns + " FROM stocktakes WHERE id = \(bind: id) AND library_id = \(bind: library)")
            .first(decoding: Row.self) else { throw ShelfError.stocktakeNotFound }
        return row.dto
    }

    /// The shelf's stocktakes, newest first (at most 100).
    static func history(shelf: UUID, library: UUID, on db: any Database) async throws -> [StocktakeDTO] {
        try await db.sql.raw("""
            SELECT \(columns) FROM stocktakes WHERE shelf_id = \(bind: shelf) AND library_id = \(bind: library) ORDER BY started_at DESC LIMIT 100
            """).all(decoding: Row.self).map(\.dto)
    }

    /// The shelf's stocktake under way, if one is.
    static func open(shelf: UUID, library: UUID, on db: any Database) async throws -> StocktakeDTO? {
        try await db.sql.raw("""
            SELECT \(columns) FROM stocktakes WHERE shelf_id = \(bind: shelf) AND library_id = \(bind: library) AND finished_at IS NULL
            ORDER BY started_at DESC LIMIT 1
            """).first(decoding: Row.self)?.dto
    }

    /// Starts a stocktake of the shelf, or answers the one under way (a second tap starts nothing new).
    static func start(shelf shelfID: UUID, in scope: Scope) async throws -> StocktakeDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            let shelf = try await Shelves.get(shelfID, library: scope.libraryID, on: db)
            if let open = try await open(shelf: shelfID, library: scope.libraryID, on: db) { return open }
            let id = UUID()
            try await db.sql.raw("""
                INSERT INTO stocktakes (id, library_id, shelf_id, shelf_name, started_at, started_by, found, missing, misplaced, unknown)
                VALUES (\(bind: id), \(bind: scope.libraryID), \(bind: shelfID), \(bind: shelf.name), \(bind: scope.now),
                \(bind: scope.library.user.displayName), 0, 0, 0, 0)
                """).run()
            return try await get(id, library: scope.libraryID, on: db)
        }
    }

    /// One scan at the shelf: the copy it names (for an ISBN, one of the book's copies not scanned yet,
    /// this shelf's first), what that means, and the count so far.
    static func scan(_ stocktakeID: UUID, _ text: String, in scope: Scope) async throws -> StocktakeScanAnswer {
        let code = try Check.required(text, field: "code", max: maxCode)
        switch ShelfScan.read(code) {
        case .shelf, .shelfNamed: throw ShelfError.shelfScanned(code)
        case .item: break
        }
        return try await scope.gate.transaction(on: scope.db) { db in
            let stocktake = try await get(stocktakeID, library: scope.libraryID, on: db)
            guard stocktake.finishedAt == nil else { throw ShelfError.stocktakeFinished }
            let scans = try await db.sql.raw("SELECT COUNT(*) AS n FROM stocktake_scans WHERE stocktake_id = \(bind: stocktakeID)").first()?
                .decode(column: "n", as: Int.self) ?? 0
            guard scans < maxScans else { throw InputProblem.outOfRange(field: "code", min: 0, max: maxScans, got: scans + 1) }
            let (copies, _) = try await Shelves.candidates(code, library: scope.libraryID, on: db)
            let seen = Set(try await db.sql.raw("""
                SELECT copy_id FROM stocktake_scans WHERE stocktake_id = \(bind: stocktakeID) AND copy_id IN (\(binds: copies.map(\.id) + [UUID()]))
                """).all().map { try $0.decode(column: "copy_id", as: UUID.self) })
            let fresh = copies.filter { !seen.contains($0.id) && $0.status != CopyStatus.withdrawn.rawValue }
            let pick = fresh.first { $0.location == stocktake.shelfName } ?? fresh.first
            guard let copy = pick else {
                if let again = copies.first(where: { seen.contains($0.id) }) {
                    // Scanned twice: recorded once.
                    let outcome = try await db.sql.raw("SELECT outcome FROM stocktake_scans WHERE stocktake_id = \(bind: stocktakeID) AND copy_id = \(bind: again.id)")
                        .first()?.decode(column: "outcome", as: String.self)
                    return try await answer(stocktake, outcome: outcome.flatMap(StocktakeOutcome.init(rawValue:)) ?? .here, again: true,
                                            item: item(again, code: again.barcode), on: db)
                }
                try await record(stocktakeID, copy: nil, code: code, outcome: .unknown, expected: nil, at: scope.now, on: db)
                try await db.sql.raw("UPDATE stocktakes SET unknown = unknown + 1 WHERE id = \(bind: stocktakeID)").run()
                return try await answer(stocktake, outcome: .unknown, again: false, item: StocktakeItem(code: code), on: db)
            }
            let place = copy.location.flatMap { $0.isEmpty ? nil : $0 }
            let outcome: StocktakeOutcome = copy.status == CopyStatus.onLoan.rawValue ? .onLoan : place == stocktake.shelfName ? .here : .elsewhere
            try await record(stocktakeID, copy: copy.id, code: code, outcome: outcome, expected: place, at: scope.now, on: db)
            switch outcome {
            case .here: try await db.sql.raw("UPDATE stocktakes SET found = found + 1 WHERE id = \(bind: stocktakeID)").run()
            case .elsewhere: try await db.sql.raw("UPDATE stocktakes SET misplaced = misplaced + 1 WHERE id = \(bind: stocktakeID)").run()
            default: break
            }
            try await db.sql.raw("UPDATE copies SET seen_at = \(bind: scope.now) WHERE id = \(bind: copy.id)").run()
            return try await answer(stocktake, outcome: outcome, again: false, item: item(copy, code: code), on: db)
        }
    }

    /// Puts misplaced copies seen in the stocktake on its shelf: one, or (no copy named) all of them.
    @discardableResult
    static func moveHere(_ stocktakeID: UUID, copy: UUID?, in scope: Scope) async throws -> Int {
        try await scope.gate.transaction(on: scope.db) { db in
            let stocktake = try await get(stocktakeID, library: scope.libraryID, on: db)
            _ = try await Shelves.get(stocktake.shelfId, library: scope.libraryID, on: db)
            var query: SQLQueryString = "SELECT copy_id FROM stocktake_scans WHERE stocktake_id = \(bind: stocktakeID) AND outcome = 'elsewhere' AND copy_id IS NOT NULL"
            if let copy { query += " AND copy_id = \(bind: copy)" }
            let ids = try await db.sql.raw(query).all().map { try $0.decode(column: "copy_id", as: UUID.self) }
            guard !ids.isEmpty else { if copy != nil { throw CatalogError.copyNotFound }; return 0 }
            for batch in ids.chunked(500) {
                try await db.sql.raw("""
                    UPDATE copies SET location = \(bind: stocktake.shelfName), updated_at = \(bind: scope.now)
                    WHERE library_no = \(LibraryNumber.of(scope.libraryID)) AND id IN (\(binds: Array(batch)))
                    """).run()
                try await db.sql.raw("""
                    UPDATE stocktake_scans SET outcome = 'moved' WHERE stocktake_id = \(bind: stocktakeID) AND copy_id IN (\(binds: Array(batch)))
                    """).run()
            }
            try await db.sql.raw("""
                UPDATE stocktakes SET found = found + \(literal: ids.count), misplaced = misplaced - \(literal: ids.count) WHERE id = \(bind: stocktakeID)
                """).run()
            return ids.count
        }
    }

    /// Ends the stocktake: every copy expected on the shelf and not scanned is kept as missing.
    static func finish(_ stocktakeID: UUID, in scope: Scope) async throws -> StocktakeDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            let stocktake = try await get(stocktakeID, library: scope.libraryID, on: db)
            guard stocktake.finishedAt == nil else { return stocktake }
            let missing = try await db.sql.raw("""
                SELECT c.id, c.barcode FROM copies c WHERE c.library_no = \(LibraryNumber.of(scope.libraryID)) AND c.location = \(bind: stocktake.shelfName)
                AND c.status IN ('available', 'damaged')
                AND NOT EXISTS (SELECT 1 FROM stocktake_scans s WHERE s.stocktake_id = \(bind: stocktakeID) AND s.copy_id = c.id)
                """).all()
            for row in missing {
                try await record(stocktakeID, copy: try row.decode(column: "id", as: UUID.self), code: try row.decode(column: "barcode", as: String.self),
                                 outcome: .missing, expected: stocktake.shelfName, at: scope.now, on: db)
            }
            try await db.sql.raw("""
                UPDATE stocktakes SET finished_at = \(bind: scope.now), missing = \(literal: missing.count) WHERE id = \(bind: stocktakeID)
                """).run()
            return try await get(stocktakeID, library: scope.libraryID, on: db)
        }
    }

    /// What the stocktake found, in groups; before it is finished, what is still to scan.
    static func report(_ stocktakeID: UUID, library: UUID, on db: any Database) async throws -> StocktakeReport {
        let stocktake = try await get(stocktakeID, library: library, on: db)
        let scanned = try await db.sql.raw("""
            SELECT s.copy_id, s.code, s.outcome, s.expected, s.scanned_at, c.title_id, t.title, t.authors FROM stocktake_scans s
            LEFT JOIN copies c ON c.id = s.copy_id LEFT JOIN titles t ON t.id = c.title_id
            WHERE s.stocktake_id = \(bind: stocktakeID) ORDER BY s.scanned_at DESC
            """).all().map { row in
            StocktakeItem(copyId: try row.decode(column: "copy_id", as: UUID?.self), code: try row.decode(column: "code", as: String.self),
                          titleId: try row.decode(column: "title_id", as: UUID?.self), title: try row.decode(column: "title", as: String?.self),
                          authors: try row.decode(column: "authors", as: [String]?.self), location: try row.decode(column: "expected", as: String?.self),
                          outcome: StocktakeOutcome(rawValue: try row.decode(column: "outcome", as: String.self)),
                          scannedAt: try row.decode(column: "scanned_at", as: Date.self))
        }
        let onShelf = try await db.sql.raw("""
            SELECT c.id, c.barcode, c.title_id, t.title, t.authors, c.status FROM copies c JOIN titles t ON t.id = c.title_id
            WHERE c.library_no = \(LibraryNumber.of(library)) AND c.location = \(bind: stocktake.shelfName) AND c.status IN ('available', 'damaged', 'on_loan')
            ORDER BY t.sort_key, c.copy_number LIMIT \(literal: maxScans)
            """).all()
        let scannedIDs = Set(scanned.compactMap(\.copyId))
        var notScanned: [StocktakeItem] = [], lent: [StocktakeItem] = [], expected = 0
        for row in onShelf {
            let id = try row.decode(column: "id", as: UUID.self)
            let item = StocktakeItem(copyId: id, code: try row.decode(column: "barcode", as: String.self), titleId: try row.decode(column: "title_id", as: UUID.self),
                                     title: try row.decode(column: "title", as: String.self), authors: try row.decode(column: "authors", as: [String].self),
                                     location: stocktake.shelfName)
            if try row.decode(column: "status", as: String.self) == CopyStatus.onLoan.rawValue {
                if !scannedIDs.contains(id) { lent.append(item) }
            } else {
                expected += 1
                if stocktake.finishedAt == nil && !scannedIDs.contains(id) { notScanned.append(item) }
            }
        }
        if stocktake.finishedAt != nil {
            notScanned = scanned.filter { $0.outcome == .missing }.sorted { ($0.title ?? "").localizedStandardCompare($1.title ?? "") == .orderedAscending }
        }
        return StocktakeReport(stocktake: stocktake, expected: expected,
                               here: scanned.filter { $0.outcome == .here || $0.outcome == .moved },
                               misplaced: scanned.filter { $0.outcome == .elsewhere }, onLoan: scanned.filter { $0.outcome == .onLoan },
                               unknown: scanned.filter { $0.outcome == .unknown }, notScanned: notScanned, lent: lent)
    }

    // MARK: - Not seen for a year

    /// A copy no stocktake has seen since a day.
    struct Unseen: Content {
        var copyId: UUID
        var barcode: String
        var titleId: UUID
        var title: String
        var location: String?
        /// The last time a stocktake saw it (nil: never).
        var seenAt: Date?
    }

    struct UnseenList: Content {
        var total: Int
        var items: [Unseen]
    }

    /// Copies on the shelves (not lent, lost or withdrawn) that no stocktake has seen since `since`
    /// and that were in the library before then, by shelf and title.
    static func unseen(since: Date, library: UUID, limit: Int, offset: Int, on db: any Database) async throws -> UnseenList {
        let clause: SQLQueryString = """
            c.library_no = \(LibraryNumber.of(library)) AND c.status IN ('available', 'damaged') AND (c.seen_at IS NULL OR c.seen_at < \(bind: since))
            AND c.created_at < \(bind: since)
            """
        let total = try await db.sql.raw("SELECT COUNT(*) AS n FROM copies c WHERE " + clause).first()?.decode(column: "n", as: Int.self) ?? 0
        let items = try await db.sql.raw("""
            SELECT c.id, c.barcode, c.title_id, t.title, c.location, c.seen_at FROM copies c JOIN titles t ON t.id = c.title_id WHERE \(clause)
            ORDER BY c.location, t.sort_key, c.copy_number LIMIT \(literal: limit) OFFSET \(literal: offset)
            """).all().map { row in
            Unseen(copyId: try row.decode(column: "id", as: UUID.self), barcode: try row.decode(column: "barcode", as: String.self),
                   titleId: try row.decode(column: "title_id", as: UUID.self), title: try row.decode(column: "title", as: String.self),
                   location: try row.decode(column: "location", as: String?.self), seenAt: try row.decode(column: "seen_at", as: Date?.self))
        }
        return UnseenList(total: total, items: items)
    }

    // MARK: - Helpers

    private static func record(_ stocktakeID: UUID, copy: UUID?, code: String, outcome: StocktakeOutcome, expected: String?, at: Date,
                               on db: any Database) async throws {
        try await db.sql.raw("""
            INSERT INTO stocktake_scans (id, stocktake_id, copy_id, code, outcome, expected, scanned_at)
            VALUES (\(bind: UUID()), \(bind: stocktakeID), \(bind: copy), \(bind: code), \(bind: outcome.rawValue), \(bind: expected), \(bind: at))
            """).run()
    }

    private static func item(_ c: Shelves.Candidate, code: String) -> StocktakeItem {
        StocktakeItem(copyId: c.id, code: c.barcode, titleId: c.title_id, title: c.title, location: c.location)
    }

    private static func answer(_ stocktake: StocktakeDTO, outcome: StocktakeOutcome, again: Bool, item: StocktakeItem,
                               on db: any Database) async throws -> StocktakeScanAnswer {
        let row = try await db.sql.raw("""
            SELECT (SELECT found FROM stocktakes WHERE id = \(bind: stocktake.id)) AS found,
            (SELECT COUNT(*) FROM copies WHERE library_no = (SELECT l.no FROM stocktakes s JOIN libraries l ON l.id = s.library_id WHERE s.id = \(bind: stocktake.id))
             AND location = \(bind: stocktake.shelfName) AND status IN ('available', 'damaged')) AS expected
            """).first()
        var item = item
        item.outcome = outcome
        return StocktakeScanAnswer(outcome: outcome, again: again, item: item, found: try row?.decode(column: "found", as: Int.self) ?? 0,
                                   expected: try row?.decode(column: "expected", as: Int.self) ?? 0)
    }
}
