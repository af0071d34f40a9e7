import Fluent
import FluentSQL
import Foundation
import SQLKit

/// A copy names its library by the library's number (`copies.library_no`, `libraries.no`) instead of
/// its 16-byte id: the copies are the most numerous rows, and the library leads four of their indexes
/// (its barcodes, shelves, newest and last seen), so each copy is about 80 bytes smaller (decision 065).
/// The id stays what the API, URLs, backups and devices know;
/// a statement finds a library's copies by `library_no = (SELECT no FROM libraries WHERE id = ?)`
/// (`LibraryNumber.of`), one index seek of the libraries first.
///
/// The counts kept from the copies (`copy_counts`, `shelf_counts`) and the sync log go on naming the
/// library as they did: their triggers read the library of a copy's number.
///
/// Made again as `LibraryNumberRemake` makes a table (with foreign keys off, so that dropping the old
/// table does not run the loans', holds' and stocktake scans' `ON DELETE SET NULL`).
struct CopiesByLibraryNumber: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await Self.remake.run(on: database, numbered: true, postgresTriggers: Self.postgresTriggers(numbered: true), dropPostgresTriggers: Self.postgresTriggerNames)
    }

    func revert(on database: any Database) async throws {
        try await Self.remake.run(on: database, numbered: false, postgresTriggers: Self.postgresTriggers(numbered: false), dropPostgresTriggers: Self.postgresTriggerNames)
    }

    static let remake = LibraryNumberRemake(table: "copies", create: { name, to, library in
        """
        CREATE TABLE \(name) ("id" UUID PRIMARY KEY, "\(to)" \(library),
            "title_id" UUID NOT NULL REFERENCES "titles" ("id") ON DELETE CASCADE, "copy_number" INTEGER NOT NULL, "barcode" TEXT NOT NULL,
            "location" TEXT, "condition" TEXT, "status" TEXT NOT NULL, "created_at" REAL, "updated_at" REAL, "status_note" TEXT,
            "status_at" REAL, "seen_at" REAL, "last_lent_at" REAL, "call_number" TEXT,
            CONSTRAINT "uq:copies.\(to)+copies.barcode" UNIQUE ("\(to)", "barcode"))
        """
    }, columns: ["title_id", "copy_number", "barcode", "location", "condition", "status", "created_at", "updated_at", "status_note",
                 "status_at", "seen_at", "last_lent_at", "call_number"], unique: [["barcode"]])

    private static let postgresTriggerNames = ["copy_counts", "shelf_counts", "sync_copies"].flatMap { name in
        ["insert", "update", "delete"].map { "\(name)_\($0)" }
    }

    private static func postgresTriggers(numbered: Bool) -> [String] {
        numbered
            ? AddCopyCounts.postgresTriggers(numbered: true) + AddShelfCounts.postgresTriggers(numbered: true)
                + CreateSyncLog.postgresTriggers(.copy, rows: LibraryNumberRemake.postgresRows)
            : AddCopyCounts.postgresTriggers + AddShelfCounts.postgresTriggers + CreateSyncLog.postgresTriggers(.copy)
    }
}
