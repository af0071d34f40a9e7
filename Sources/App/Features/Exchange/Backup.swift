import Fluent
import Foundation
import NIOHTTP1
import ShelfmarkCore
import SQLKit

enum Backup {
    static func make(libraryID: UUID, includeCovers: Bool, now: Date, on db: any Database) async throws -> LibraryBackup {
        let sql = db.sql
        guard let library = try await sql.select().columns(SchemaDerivation.keys(of: LibraryRow.self).map { SQLIdentifier($0) })
            .from("libraries").where("id", .equal, libraryID).first(decoding: LibraryRow.self) else {
            throw AccountError.libraryNotFound
        }
        func rows<T: Decodable>(_ table: String, _ type: T.Type, order: String = "id") async throws -> [T] {
            try await sql.select().column("*").from(table).where(LibraryNumber.rows(of: table, libraryID)).orderBy(order).all(decoding: T.self)
        }
        let titles = try await rows("titles", TitleRow.self)
        let titleCategories = try await sql.raw("""
            SELECT tc.title_id, tc.category_id FROM title_categories tc JOIN titles t ON t.id = tc.title_id
            WHERE t.library_no = \(LibraryNumber.of(libraryID)) ORDER BY tc.title_id, tc.category_id
            """).all(decoding: TitleCategoryRow.self)
        let titleSeries = try await sql.raw("""
            SELECT ts.title_id, ts.position, ts.name, ts.number FROM title_series ts JOIN titles t ON t.id = ts.title_id
            WHERE t.library_no = \(LibraryNumber.of(libraryID)) ORDER BY ts.title_id, ts.position
            """).all(decoding: TitleSeriesRow.self)
        var covers: [CoverRow]?
        if includeCovers {
            let ids = titles.compactMap { $0.cover_url.flatMap(coverID) }
            covers = ids.isEmpty ? [] : try await sql.select().column("*").from("covers").where("id", .in, Array(Set(ids)))
                .orderBy("id").all(decoding: CoverRow.self)
        }
        var reading: (reads: [ReadRow], events: [ProgressEventRow], goals: [GoalRow],
                      quotes: [QuoteRow], photos: [PhotoRow])? = nil
        if includeCovers {
            reading = (try await rows("reads", ReadRow.self),
                       try await sql.raw("""
                           SELECT e.id, e.read_id, e.at, e.unit, e.value, e.label, e.created_at FROM progress_events e
                           JOIN reads r ON r.id = e.read_id WHERE r.library_id = \(bind: libraryID) ORDER BY e.read_id, e.at
                           """).all(decoding: ProgressEventRow.self),
                       try await rows("reading_goals", GoalRow.self),
                       try await rows("quotes", QuoteRow.self),
                       try await rows("page_photos", PhotoRow.self))
        }
        return LibraryBackup(
            createdAt: now, library: library,
            categories: try await rows("categories", CategoryRow.self),
            titleCategories: titleCategories, titleSeries: titleSeries, titles: titles,
            copies: try await rows("copies", CopyRow.self),
            members: try await rows("members", MemberRow.self),
            loans: try await rows("loans", LoanRow.self),
            activities: try await rows("activities", ActivityRow.self),
            covers: covers, reads: reading?.reads, progressEvents: reading?.events, readingGoals: reading?.goals,
            quotes: reading?.quotes, pagePhotos: reading?.photos, holds: try await rows("holds", HoldRow.self),
            fines: try await rows("fines", FineRow.self),
            mailTemplates: try await sql.select().columns("id", "kind", "language", "subject", "body", "updated_at").from("mail_templates")
                .where("library_id", .equal, libraryID).orderBy("kind").orderBy("language").all(decoding: MailTemplateRow.self),
            collections: try await rows("collections", CollectionRow.self, order: "name_key"),
            shelves: try await rows("shelves", ShelfRow.self, order: "name"),
            stocktakes: try await rows("stocktakes", StocktakeRow.self, order: "started_at"),
            stocktakeScans: try await sql.raw("""
                SELECT s.id, s.stocktake_id, s.copy_id, s.code, s.outcome, s.expected, s.scanned_at FROM stocktake_scans s
                JOIN stocktakes t ON t.id = s.stocktake_id WHERE t.library_id = \(bind: libraryID) ORDER BY s.stocktake_id, s.scanned_at, s.id
                """).all(decoding: StocktakeScanRow.self),
            savedReports: try await rows("saved_reports", SavedReportRow.self, order: "name_key"),
            auditLog: try await sql.select().columns("id", "at", "actor_id", "actor", "action", "target", "detail").from("audit_log")
                .where("library_id", .equal, libraryID).orderBy("at").orderBy("id").all(decoding: AuditRow.self))
    }

    /// Deletes everything a library holds: the tables whose policy says `erased` (`Features`), children
    /// before their parents. The library itself, its settings, its staff and their reading life stay.
    static func eraseData(libraryID: UUID, on db: any Database) async throws {
        for table in Features.eraseOrder(includingRestoreOnly: false) {
            try await db.sql.raw(deleteAll(table, library: libraryID)).run()
        }
    }

    /// The one statement that deletes every row `table` holds of `libraryID` (its rows by `library_id`
    /// or its number, or a child table's through its parent).
    static func deleteAll(_ table: DataTable, library libraryID: UUID) -> SQLQueryString {
        switch table.rows {
        case .byLibrary(let only):
            return "DELETE FROM \(ident: table.name) WHERE \(LibraryNumber.rows(of: table.name, libraryID))\(unsafeRaw: only.map { " AND " + $0 } ?? "")"
        case .childOf(let parent, let key):
            return "DELETE FROM \(ident: table.name) WHERE \(ident: key) IN (SELECT id FROM \(ident: parent) WHERE \(LibraryNumber.rows(of: parent, libraryID)))"
        case .library, .server:
            preconditionFailure("\(table.name) has no rows of one library to erase")
        }
    }

    /// A library's settings as a backup holds them (written by a restore, copied by a swap).
    struct Settings: Codable, Sendable {
        var loan_period_days: Int; var max_renewals: Int; var public_catalog: Bool; var next_accession: Int; var time_zone: String?
        var renewal_days: Int?; var renew_window_days: Int?; var hold_pickup_days: Int; var max_holds_per_member: Int; var kiosk_asks_pin: Bool
        var catalog_indexable: Bool; var public_figures: Bool
        var fine_mode: String; var fine_per_day: Int; var fine_grace_days: Int; var fine_cap: Int?; var fine_suspension_days: Int
        var fine_block_at: Int?; var currency: String
        var reminders_on: Bool; var reminder_hour: Int; var remind_before_days: Int?; var remind_overdue_1: Int?; var remind_overdue_2: Int?
        var remind_overdue_3: Int?; var language: String; var contact: String?
        var retention_months: Int? = nil
        var roster_nightly: Bool = false
    }

    /// What a restore did not bring back, for its report (it was silent): the reading life
    /// of accounts this server does not have (a backup from another server brings its members' logs,
    /// not strangers' diaries), and page photos whose bytes are not images.
    struct LeftOut: Codable, Sendable, Equatable {
        var readers = 0
        var reads = 0
        var goals = 0
        var quotes = 0
        var photos = 0

        var isEmpty: Bool { reads + goals + quotes + photos == 0 }
    }

    /// Creates a library owned by `user` (named `name`, else as in the backup) holding the backup.
    /// On failure nothing is left behind; while it is written (by `job`), nobody sees it, and if the
    /// process dies on the way, the library is removed when the job is found dead
    /// (`Jobs.removeUnfinishedLibraries`).
    static func restoreAsNew(_ backup: LibraryBackup, name: String?, user: AuthenticatedUser, job: UUID?, gate: WriteGate,
                             on db: any Database) async throws -> (library: LibraryDTO, leftOut: LeftOut) {
        let typed = name.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        let created = try await Accounts.createLibrary(LibraryInput(name: typed ?? backup.library.name, loanPeriodDays: nil, maxRenewals: nil,
                                                                    publicCatalog: nil),
                                                       user: user, numberIfTaken: typed == nil, pendingJob: job, gate: gate, on: db)
        let leftOut: LeftOut
        do {
            leftOut = try await restore(backup, into: created.id, on: db, batches: gate)
            try await gate.transaction(on: db) { db in
                try await db.sql.raw("UPDATE libraries SET pending_job_id = NULL WHERE id = \(bind: created.id)").run()
            }
        } catch {
            await Accounts.removeNewLibrary(created.id, gate: gate, on: db)
            throw error
        }
        var dto = created
        dto.loanPeriodDays = backup.library.loan_period_days
        dto.maxRenewals = backup.library.max_renewals
        dto.publicCatalog = backup.library.public_catalog
        return (dto, leftOut)
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// ISO 8601 with milliseconds, so a restore keeps times to the millisecond.
    static var iso8601withFractions: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            // Rounded to the millisecond (a date read back from the database is a float a hair below
            // what was written; the formatter would truncate it to the millisecond before).
            let ms = (date.timeIntervalSince1970 * 1000).rounded()
            let seconds = Date(timeIntervalSince1970: (ms / 1000).rounded(.down))
            let millis = Int(ms - (ms / 1000).rounded(.down) * 1000)
            let base = seconds.formatted(Date.ISO8601FormatStyle())  // 2026-11-22T12:00:00Z
            var c = encoder.singleValueContainer()
            try c.encode(String(base.dropLast()) + String(format: ".%03dZ", millis))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    static var iso8601withFractions: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            if let d = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return d }
            if let d = try? Date(text, strategy: .iso8601) { return d }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "“\(text)” is not an ISO 8601 date")
        }
    }
}
