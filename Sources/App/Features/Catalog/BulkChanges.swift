import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// What one change to many books does.
enum BulkAction: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// Into a category by its name (made when the library has none of that name).
    case addCategory = "add_category"
    /// Out of a category by its name.
    case removeCategory = "remove_category"
    /// Every copy of each book to this shelf (empty: no shelf).
    case shelf
    /// This reading level (empty: none).
    case readingLevel = "reading_level"
    /// This series, each book keeping its number (empty: none).
    case series
    /// This prefix before each book's call number (`CallNumber.withPrefix`; empty: the prefix taken away).
    case callNumberPrefix = "call_number_prefix"
    /// Out of the catalog with their copies.
    case delete

    /// A category is named; the others may be emptied.
    var needsValue: Bool { self == .addCategory || self == .removeCategory }

    var maxValueLength: Int {
        switch self {
        case .addCategory, .removeCategory: 100
        case .shelf: 200
        case .readingLevel: 40
        case .series: 300
        case .callNumberPrefix: 12
        case .delete: 0
        }
    }
}

struct BulkChangeInput: Content {
    /// The books to change: at most `BulkChanges.maxTitles`, each a title of this library's catalog.
    var titleIds: [UUID]
    var action: BulkAction
    /// The category, shelf, level, series or prefix; not read for `delete`.
    var value: String?
}

/// A book a change left as it was, and why.
struct BulkSkip: Content, Equatable {
    enum Reason: String, Codable, Sendable, CaseIterable, SchemaEnum {
        /// Not a book of this library's catalog (another library's, a wishlist item, deleted since).
        case notInCatalog = "not_in_catalog"
        /// A copy is on loan: it is returned first.
        case onLoan = "on_loan"
        /// Members wait for it.
        case holds
        /// Readers keep quotes or page photos of it: deleted from its own page, where that is said.
        case readersNotes = "readers_notes"
    }
    var titleId: UUID
    var title: String?
    var reason: Reason
}

/// One change to many books, as made (or undone).
struct BulkChangeReport: Content, Equatable {
    var id: UUID
    var action: BulkAction
    var value: String?
    /// How many books it changed.
    var changed: Int
    var skipped: [BulkSkip]
    var at: Date
    /// Who made it.
    var by: String
    /// True when this answer is the undo of the change.
    var undone: Bool
}

/// Changes to many books at once, each one transaction and one activity entry per book, and the
/// undo of the library's last one: what the change overwrote is kept with it (`bulk_changes`, one row
/// per library), so the undo puts exactly that back — a deleted book comes back with its copies,
/// categories, past holds, and its loans and reads linked to it again.
enum BulkChanges {
    static let maxTitles = 1_000
    /// How long a change can be undone.
    static let undoFor: TimeInterval = 24 * 3600

    /// What the change overwrote.
    struct Undo: Codable, Sendable {
        /// Each title's value before (series, reading level or call number; for books put into a category,
        /// those its call-number scheme gave one).
        var titleValues: [Before] = []
        /// Each copy's shelf before.
        var copyLocations: [Before] = []
        /// The category books were put into or taken out of, and those books.
        var categoryID: UUID?
        var categoryMade = false
        var linked: [UUID] = []
        var deleted: Deleted?
        /// The other series of books whose series a change took away (a book without one has no others).
        var moreSeries: [TitleSeriesRow] = []
    }

    struct Before: Codable, Sendable {
        var id: UUID
        var value: String?
    }

    /// Deleted books, as the backup holds them, and the rows that pointed at them.
    struct Deleted: Codable, Sendable {
        var titles: [TitleRow]
        var copies: [CopyRow]
        var categories: [TitleCategoryRow]
        var holds: [HoldRow]
        /// Loans and reads of these books (their link is emptied by the delete), by book and by copy.
        var loansByTitle: [UUID: [UUID]]
        var loansByCopy: [UUID: [UUID]]
        var readsByTitle: [UUID: [UUID]]
        var scansByCopy: [UUID: [UUID]]
        var moreSeries: [TitleSeriesRow]? = nil
    }

    private struct Picked: Decodable {
        var id: UUID
        var title: String
        var subtitle: String?
        var authors: [String]
        var isbn13: String?
        var series: String?
        var reading_level: String?
        var call_number: String?
    }

    private struct Stored: Decodable {
        var id: UUID
        var at: Date
        var actor: String
        var action: String
        var value: String?
        var changed: Int
        var skipped: String
        /// Read only to undo: a delete's can hold a thousand books' rows.
        var undo: String?
    }

    // MARK: - Change

    static func apply(_ input: BulkChangeInput, in scope: Scope) async throws -> BulkChangeReport {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        var seen = Set<UUID>()
        let ids = input.titleIds.filter { seen.insert($0).inserted }
        guard !ids.isEmpty else { throw BulkChangeError.noTitles }
        guard ids.count <= maxTitles else { throw BulkChangeError.tooManyTitles(max: maxTitles) }
        let value = try value(input.action, input.value)
        return try await gate.transaction(on: db) { db in
            let sql = db.sql
            let picked = try await books(ids, library: library.libraryID, catalogOnly: true, on: sql)
            let found = Set(picked.map(\.id))
            var skipped = ids.filter { !found.contains($0) }.map { BulkSkip(titleId: $0, title: nil, reason: .notInCatalog) }
            var undo = Undo()
            var books = picked
            switch input.action {
            case .addCategory, .removeCategory:
                let name = value ?? ""
                var category = try await Catalog.category(named: name, library: library.libraryID, on: db)
                if category == nil, input.action == .addCategory {
                    let made = Category(libraryID: library.libraryID, name: name)
                    try await made.create(on: db)
                    (category, undo.categoryMade) = (made, true)
                }
                guard let categoryID = try category?.requireID() else { throw CatalogError.categoryNotFound }
                undo.categoryID = categoryID
                var linked = Set<UUID>()
                for chunk in picked.map(\.id).chunked(500) {
                    let rows = try await sql.raw("""
                        SELECT title_id FROM title_categories WHERE category_id = \(bind: categoryID) AND title_id IN (\(binds: chunk))
                        """).all()
                    for row in rows { linked.insert(try row.decode(column: "title_id", as: UUID.self)) }
                }
                if input.action == .addCategory {
                    books = picked.filter { !linked.contains($0.id) }
                    try await TitleCategoryRow.insert(books.map { TitleCategoryRow(title_id: $0.id, category_id: categoryID) }, on: db)
                    // Books without a call number take the one the category's scheme makes; the undo takes it away.
                    undo.titleValues = try await CategoryCallNumbers.fill(books.map(\.id), now: now, on: db).map { Before(id: $0, value: nil) }
                } else {
                    books = picked.filter { linked.contains($0.id) }
                    for chunk in books.map(\.id).chunked(500) {
                        try await sql.raw("DELETE FROM title_categories WHERE category_id = \(bind: categoryID) AND title_id IN (\(binds: chunk))").run()
                    }
                }
                undo.linked = books.map(\.id)
            case .shelf:
                try await Shelves.ensure(value, library: library.libraryID, now: now, on: db)
                for chunk in picked.map(\.id).chunked(500) {
                    let rows = try await sql.raw("SELECT id, location FROM copies WHERE title_id IN (\(binds: chunk))").all()
                    for row in rows {
                        undo.copyLocations.append(Before(id: try row.decode(column: "id", as: UUID.self),
                                                         value: try row.decode(column: "location", as: String?.self)))
                    }
                    try await sql.raw("""
                        UPDATE copies SET location = \(bind: value), updated_at = \(bind: now) WHERE title_id IN (\(binds: chunk))
                        """).run()
                }
            case .readingLevel:
                undo.titleValues = picked.map { Before(id: $0.id, value: $0.reading_level) }
                try await setReadingLevel(value, titles: picked.map(\.id), now: now, on: sql)
            case .series:
                undo.titleValues = picked.map { Before(id: $0.id, value: $0.series) }
                for book in picked { try await setSeries(value, of: book, now: now, on: sql) }
                if value == nil {
                    undo.moreSeries = try await TitleSeries.rows(of: picked.map(\.id), on: sql)
                    for chunk in picked.map(\.id).chunked(500) {
                        try await sql.raw("DELETE FROM title_series WHERE title_id IN (\(binds: chunk))").run()
                    }
                }
            case .callNumberPrefix:
                undo.titleValues = picked.map { Before(id: $0.id, value: $0.call_number) }
                var byNew: [String?: [UUID]] = [:]
                for book in picked {
                    let new = CallNumber.withPrefix(value, callNumber: book.call_number, authors: book.authors, title: book.title)
                    byNew[new, default: []].append(book.id)
                }
                for (new, titles) in byNew { try await setCallNumber(new, titles: titles, now: now, on: sql) }
            case .delete:
                let refused = try await notDeletable(picked.map(\.id), on: sql)
                skipped += picked.compactMap { book in refused[book.id].map { BulkSkip(titleId: book.id, title: book.title, reason: $0) } }
                books = picked.filter { refused[$0.id] == nil }
                undo.deleted = try await delete(books.map(\.id), library: library.libraryID, on: sql)
            }
            let report = BulkChangeReport(id: UUID(), action: input.action, value: value, changed: books.count, skipped: skipped, at: now,
                                          by: library.user.username, undone: false)
            try await keep(report, undo: undo, library: library.libraryID, on: sql)
            let detail = ActivityDetail.bulkChange(action: input.action, value: value, undone: false)
            try await ActivityLog.record(books.map { book in
                (ActivityLog.Entry(type: input.action == .delete ? .deleteBook : .editBook, titleID: book.id, title: book.title,
                                   author: book.authors.joined(separator: ", "), detail: detail), now)
            }, library: library, on: db)
            return report
        }
    }

    /// The library's last change while it can be undone, else nil.
    static func last(library: UUID, now: Date, on db: any Database) async throws -> BulkChangeReport? {
        try await stored(library: library, now: now, withUndo: false, on: db.sql)?.report
    }

    /// Puts back what the library's last change overwrote; 404 `nothing_to_undo` when there is none
    /// (undone already, replaced by a newer change, or older than a day).
    static func undo(in scope: Scope) async throws -> BulkChangeReport {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            let sql = db.sql
            guard let (report, kept) = try await stored(library: library.libraryID, now: now, withUndo: true, on: sql), let undo = kept else {
                throw BulkChangeError.nothingToUndo
            }
            try await sql.raw("DELETE FROM bulk_changes WHERE id = \(bind: report.id)").run()
            switch report.action {
            case .addCategory, .removeCategory:
                guard let categoryID = undo.categoryID else { break }
                let exists = try await sql.raw("SELECT id FROM categories WHERE id = \(bind: categoryID)").first() != nil
                if report.action == .addCategory {
                    for chunk in undo.linked.chunked(500) {
                        try await sql.raw("DELETE FROM title_categories WHERE category_id = \(bind: categoryID) AND title_id IN (\(binds: chunk))").run()
                    }
                    try await setCallNumber(nil, titles: try await existing(undo.titleValues.map(\.id), library: library.libraryID, on: sql), now: now, on: sql)
                    let left = try await sql.raw("SELECT title_id FROM title_categories WHERE category_id = \(bind: categoryID)").first()
                    if undo.categoryMade, left == nil { try await sql.raw("DELETE FROM categories WHERE id = \(bind: categoryID)").run() }
                } else if exists {
                    let titles = try await existing(undo.linked, library: library.libraryID, on: sql)
                    try await TitleCategoryRow.insert(titles.map { TitleCategoryRow(title_id: $0, category_id: categoryID) }, on: db)
                }
            case .shelf:
                for (old, copies) in Dictionary(grouping: undo.copyLocations, by: \.value) {
                    try await Shelves.ensure(old, library: library.libraryID, now: now, on: db)
                    for chunk in copies.map(\.id).chunked(500) {
                        try await sql.raw("""
                            UPDATE copies SET location = \(bind: old), updated_at = \(bind: now)
                            WHERE library_no = \(LibraryNumber.of(library.libraryID)) AND id IN (\(binds: chunk))
                            """).run()
                    }
                }
            case .readingLevel:
                for (old, titles) in Dictionary(grouping: undo.titleValues, by: \.value) {
                    try await setReadingLevel(old, titles: try await existing(titles.map(\.id), library: library.libraryID, on: sql), now: now, on: sql)
                }
            case .series:
                let old = Dictionary(undo.titleValues.map { ($0.id, $0.value) }, uniquingKeysWith: { a, _ in a })
                for book in try await books(Array(old.keys), library: library.libraryID, catalogOnly: false, on: sql) {
                    try await setSeries(old[book.id] ?? nil, of: book, now: now, on: sql)
                }
                let kept = Set(try await existing(Array(Set(undo.moreSeries.map(\.title_id))), library: library.libraryID, on: sql))
                try await TitleSeries.insert(undo.moreSeries.filter { kept.contains($0.title_id) }, on: db)
            case .callNumberPrefix:
                for (old, titles) in Dictionary(grouping: undo.titleValues, by: \.value) {
                    try await setCallNumber(old, titles: try await existing(titles.map(\.id), library: library.libraryID, on: sql), now: now, on: sql)
                }
            case .delete:
                if let deleted = undo.deleted { try await restore(deleted, library: library.libraryID, on: db) }
            }
            let back = BulkChangeReport(id: report.id, action: report.action, value: report.value, changed: report.changed, skipped: [],
                                        at: now, by: library.user.username, undone: true)
            let detail = ActivityDetail.bulkChange(action: report.action, value: report.value, undone: true)
            let titles = try await books(Array(Set(undo.titleValues.map(\.id) + undo.linked + (undo.deleted?.titles.map(\.id) ?? []))),
                                         library: library.libraryID, catalogOnly: false, on: sql)
            try await ActivityLog.record(titles.map { book in
                (ActivityLog.Entry(type: report.action == .delete ? .addBook : .editBook, titleID: book.id, title: book.title,
                                   author: book.authors.joined(separator: ", "), detail: detail), now)
            }, library: library, on: db)
            return back
        }
    }

    // MARK: - Parts

    /// The value as stored, checked for the action.
    static func value(_ action: BulkAction, _ raw: String?) throws -> String? {
        guard action != .delete else { return nil }
        let text = try Check.optional(raw, field: "value", max: action.maxValueLength)
        if action.needsValue, text == nil { throw BulkChangeError.valueNeeded(action) }
        switch action {
        case .callNumberPrefix:
            if let text, text.contains(where: { $0.isWhitespace }) { throw BulkChangeError.prefixIsOneWord }
            return text?.uppercased()
        default:
            return text
        }
    }

    private static func setReadingLevel(_ value: String?, titles: [UUID], now: Date, on sql: any SQLDatabase) async throws {
        let level = value.flatMap(ReadingLevel.parse)
        for chunk in titles.chunked(500) {
            try await sql.raw("""
                UPDATE titles SET reading_level = \(bind: value), level_scheme = \(bind: level?.scheme.rawValue), level_value = \(bind: level?.value),
                  level_points = \(bind: level?.points), updated_at = \(bind: now) WHERE id IN (\(binds: chunk))
                """).run()
        }
    }

    /// The series and the search text that reads it (a series' name finds its books).
    private static func setSeries(_ value: String?, of book: Picked, now: Date, on sql: any SQLDatabase) async throws {
        let derived = Title.derived(title: book.title, subtitle: book.subtitle, authors: book.authors, series: value, isbn13: book.isbn13)
        try await sql.raw("""
            UPDATE titles SET series = \(bind: value), search_text = \(bind: derived.searchText), updated_at = \(bind: now) WHERE id = \(bind: book.id)
            """).run()
    }

    private static func setCallNumber(_ value: String?, titles: [UUID], now: Date, on sql: any SQLDatabase) async throws {
        for chunk in titles.chunked(500) {
            try await sql.raw("""
                UPDATE titles SET call_number = \(bind: value), call_number_sort = \(bind: Title.callNumberSortKey(value)), updated_at = \(bind: now)
                WHERE id IN (\(binds: chunk))
                """).run()
        }
    }

    /// These titles of the library (of its catalog only: no wishes), as a change reads them.
    private static func books(_ ids: [UUID], library: UUID, catalogOnly: Bool, on sql: any SQLDatabase) async throws -> [Picked] {
        var out: [Picked] = []
        for chunk in ids.chunked(500) {
            out += try await sql.raw("""
                SELECT id, title, subtitle, authors, isbn13, series, reading_level, call_number FROM titles
                WHERE library_no = \(LibraryNumber.of(library)) AND id IN (\(binds: chunk))
                """ + (catalogOnly ? " AND wishlist = \(bind: false)" : "")).all(decoding: Picked.self)
        }
        return out
    }

    /// Of these titles, those still in the library.
    private static func existing(_ ids: [UUID], library: UUID, on sql: any SQLDatabase) async throws -> [UUID] {
        var out: [UUID] = []
        for chunk in ids.chunked(500) {
            for row in try await sql.raw("SELECT id FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND id IN (\(binds: chunk))").all() {
                out.append(try row.decode(column: "id", as: UUID.self))
            }
        }
        return out
    }

    /// Books a delete leaves, and why: a copy on loan, members waiting, readers' quotes or page photos.
    private static func notDeletable(_ ids: [UUID], on sql: any SQLDatabase) async throws -> [UUID: BulkSkip.Reason] {
        var out: [UUID: BulkSkip.Reason] = [:]
        let rank = { (reason: BulkSkip.Reason) in BulkSkip.Reason.allCases.firstIndex(of: reason) ?? BulkSkip.Reason.allCases.count }
        let active = HoldState.active.map(\.rawValue)
        for chunk in ids.chunked(300) {
            let rows = try await sql.raw("""
                SELECT title_id, 'on_loan' AS reason FROM loans WHERE returned_at IS NULL AND title_id IN (\(binds: chunk))
                UNION SELECT title_id, 'holds' AS reason FROM holds WHERE state IN (\(binds: active)) AND title_id IN (\(binds: chunk))
                UNION SELECT title_id, 'readers_notes' AS reason FROM quotes WHERE title_id IN (\(binds: chunk))
                UNION SELECT title_id, 'readers_notes' AS reason FROM page_photos WHERE title_id IN (\(binds: chunk))
                """).all()
            for row in rows {
                let id = try row.decode(column: "title_id", as: UUID.self)
                guard let reason = BulkSkip.Reason(rawValue: try row.decode(column: "reason", as: String.self)) else { continue }
                // A loan is the first reason to give, then holds (the reasons' order).
                if let had = out[id], rank(had) <= rank(reason) { continue }
                out[id] = reason
            }
        }
        return out
    }

    /// Deletes the titles (their copies, categories and holds go with them) and returns all of it.
    private static func delete(_ ids: [UUID], library: UUID, on sql: any SQLDatabase) async throws -> Deleted {
        var deleted = Deleted(titles: [], copies: [], categories: [], holds: [], loansByTitle: [:], loansByCopy: [:], readsByTitle: [:], scansByCopy: [:])
        func group(_ query: SQLQueryString, key: String, into map: inout [UUID: [UUID]]) async throws {
            for row in try await sql.raw(query).all() {
                guard let owner = try row.decode(column: key, as: UUID?.self) else { continue }
                map[owner, default: []].append(try row.decode(column: "id", as: UUID.self))
            }
        }
        for chunk in ids.chunked(500) {
            deleted.titles += try await sql.raw("SELECT * FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND id IN (\(binds: chunk))").all(decoding: TitleRow.self)
            let copies = try await sql.raw("SELECT * FROM copies WHERE title_id IN (\(binds: chunk))").all(decoding: CopyRow.self)
            deleted.copies += copies
            deleted.categories += try await sql.raw("SELECT title_id, category_id FROM title_categories WHERE title_id IN (\(binds: chunk))")
                .all(decoding: TitleCategoryRow.self)
            deleted.holds += try await sql.raw("SELECT * FROM holds WHERE title_id IN (\(binds: chunk))").all(decoding: HoldRow.self)
            deleted.moreSeries = (deleted.moreSeries ?? []) + (try await TitleSeries.rows(of: chunk, on: sql))
            try await group("SELECT id, title_id FROM loans WHERE title_id IN (\(binds: chunk))", key: "title_id", into: &deleted.loansByTitle)
            try await group("SELECT id, title_id FROM reads WHERE title_id IN (\(binds: chunk))", key: "title_id", into: &deleted.readsByTitle)
            for copyChunk in copies.map(\.id).chunked(500) {
                try await group("SELECT id, copy_id FROM loans WHERE copy_id IN (\(binds: copyChunk))", key: "copy_id", into: &deleted.loansByCopy)
                try await group("SELECT id, copy_id FROM stocktake_scans WHERE copy_id IN (\(binds: copyChunk))", key: "copy_id", into: &deleted.scansByCopy)
            }
            try await sql.raw("DELETE FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND id IN (\(binds: chunk))").run()
        }
        return deleted
    }

    /// Puts deleted books back as they were, with the same ids, and links their loans, reads and
    /// stocktake scans to them again.
    private static func restore(_ d: Deleted, library: UUID, on db: any Database) async throws {
        let sql = db.sql
        // Books whose ISBN another book took since stay deleted rather than make two of one edition.
        var taken = Set<String>()
        for chunk in d.titles.compactMap(\.isbn13).chunked(500) {
            for row in try await sql.raw("SELECT isbn13 FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND isbn13 IN (\(binds: chunk))").all() {
                if let isbn = try row.decode(column: "isbn13", as: String?.self) { taken.insert(isbn) }
            }
        }
        let titles = d.titles.filter { $0.isbn13.map { !taken.contains($0) } ?? true }
        let back = Set(titles.map(\.id))
        let no = try await LibraryNumber.read(library, on: sql)
        try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: titles, values: { $0.values(library: no) }, on: db)
        // A barcode given to another copy since is not given twice: that copy comes back without a clash by taking a new one.
        var copies = d.copies.filter { back.contains($0.title_id) }
        var usedBarcodes = Set<String>()
        for chunk in copies.map(\.barcode).chunked(500) {
            for row in try await sql.raw("SELECT barcode FROM copies WHERE library_no = \(LibraryNumber.of(library)) AND barcode IN (\(binds: chunk))").all() {
                usedBarcodes.insert(try row.decode(column: "barcode", as: String.self))
            }
        }
        let clashing = copies.indices.filter { usedBarcodes.contains(copies[$0].barcode) }
        if !clashing.isEmpty {
            let first = try await Catalog.allocateAccessions(clashing.count, library: library, on: db).first
            for (n, i) in clashing.enumerated() { copies[i].barcode = Copy.barcode(accession: first + n) }
        }
        try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: copies, values: { $0.values(library: no) }, on: db)
        try await Shelves.ensureAll(library: library, on: db)
        var categories = Set<UUID>()
        for chunk in Array(Set(d.categories.map(\.category_id))).chunked(500) {
            for row in try await sql.raw("SELECT id FROM categories WHERE library_id = \(bind: library) AND id IN (\(binds: chunk))").all() {
                categories.insert(try row.decode(column: "id", as: UUID.self))
            }
        }
        try await TitleCategoryRow.insert(d.categories.filter { back.contains($0.title_id) && categories.contains($0.category_id) }, on: db)
        try await TitleSeries.insert((d.moreSeries ?? []).filter { back.contains($0.title_id) }, on: db)
        let copyIDs = Set(copies.map(\.id))
        let holds = d.holds.filter { back.contains($0.title_id) }.map { h -> HoldRow in
            var r = h
            if let copy = r.copy_id, !copyIDs.contains(copy) { r.copy_id = nil }
            return r
        }
        for chunk in holds.chunked(200) {
            try await sql.insert(into: "holds").models(chunk.map { InLibrary(row: $0, libraryID: library) }, nilEncodingStrategy: .asNil).run()
        }
        func relink(_ table: String, column: String, _ map: [UUID: [UUID]], keep: Set<UUID>) async throws {
            for (owner, rows) in map where keep.contains(owner) {
                for chunk in rows.chunked(500) {
                    try await sql.raw("UPDATE \(unsafeRaw: table) SET \(unsafeRaw: column) = \(bind: owner) WHERE id IN (\(binds: chunk)) AND \(unsafeRaw: column) IS NULL").run()
                }
            }
        }
        try await relink("loans", column: "title_id", d.loansByTitle, keep: back)
        try await relink("loans", column: "copy_id", d.loansByCopy, keep: copyIDs)
        try await relink("reads", column: "title_id", d.readsByTitle, keep: back)
        try await relink("stocktake_scans", column: "copy_id", d.scansByCopy, keep: copyIDs)
        // How often each was lent and when each copy last went out, as the check-out keeps them.
        for chunk in Array(back).chunked(500) {
            try await sql.raw("""
                UPDATE titles SET loan_count = (SELECT COUNT(*) FROM loans l WHERE l.title_id = titles.id) WHERE id IN (\(binds: chunk))
                """).run()
        }
        for chunk in Array(copyIDs).chunked(500) {
            try await sql.raw("""
                UPDATE copies SET last_lent_at = (SELECT MAX(l.checked_out_at) FROM loans l WHERE l.copy_id = copies.id) WHERE id IN (\(binds: chunk))
                """).run()
        }
    }

    /// Keeps the change as the library's last (the one before it can no longer be undone).
    private static func keep(_ report: BulkChangeReport, undo: Undo, library: UUID, on sql: any SQLDatabase) async throws {
        let skipped = String(decoding: try JSONEncoder().encode(report.skipped), as: UTF8.self)
        let undoText = String(decoding: try JSONEncoder().encode(undo), as: UTF8.self)
        try await sql.raw("DELETE FROM bulk_changes WHERE library_id = \(bind: library)").run()
        try await sql.raw("""
            INSERT INTO bulk_changes (id, library_id, at, actor, action, value, changed, skipped, undo)
            VALUES (\(bind: report.id), \(bind: library), \(bind: report.at), \(bind: report.by), \(bind: report.action.rawValue), \(bind: report.value),
                    \(bind: report.changed), \(bind: skipped), \(bind: undoText))
            """).run()
    }

    /// The library's last change while it can be undone, with what it overwrote when `withUndo` (the catalog
    /// page shows the change on every visit and needs only that).
    private static func stored(library: UUID, now: Date, withUndo: Bool, on sql: any SQLDatabase) async throws -> (report: BulkChangeReport, undo: Undo?)? {
        let columns: SQLQueryString = withUndo ? "id, at, actor, action, value, changed, skipped, undo" : "id, at, actor, action, value, changed, skipped"
        guard let row = try await sql.raw("SELECT " + columns + " FROM bulk_changes WHERE library_id = \(bind: library)").first(decoding: Stored.self),
            now.timeIntervalSince(row.at) < undoFor, let action = BulkAction(rawValue: row.action) else { return nil }
        let skipped = (try? JSONDecoder().decode([BulkSkip].self, from: Data(row.skipped.utf8))) ?? []
        let undo = try row.undo.map { try JSONDecoder().decode(Undo.self, from: Data($0.utf8)) }
        return (BulkChangeReport(id: row.id, action: action, value: row.value, changed: row.changed, skipped: skipped, at: row.at, by: row.actor,
                                 undone: false), undo)
    }
}

enum BulkChangeError: DomainError, Equatable {
    case noTitles
    case tooManyTitles(max: Int)
    case valueNeeded(BulkAction)
    case prefixIsOneWord
    case nothingToUndo

    var described: Described {
        switch self {
        case .noTitles: .init(.invalid, "invalid", field: "titleIds") { $0(.errBulkNoTitles) }
        case .tooManyTitles(let max): .init(.invalid, "invalid", field: "titleIds") { $0.format(.errBulkTooMany, $0.number(max)) }
        case .valueNeeded: .init(.invalid, "invalid", field: "value") { $0(.errBulkCategoryNeeded) }
        case .prefixIsOneWord: .init(.invalid, "invalid", field: "value") { $0(.errBulkPrefixOneWord) }
        case .nothingToUndo: .init(.notFound, "nothing_to_undo") { $0(.errBulkNothingToUndo) }
        }
    }
}
