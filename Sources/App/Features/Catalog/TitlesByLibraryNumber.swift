import Fluent
import Foundation
import SQLKit

/// A title names its library by the library's number (`titles.library_no`, `libraries.no`) instead of
/// its 16-byte id, as the copies do (`CopiesByLibraryNumber`): the library leads ten of the titles'
/// indexes (every list order, the ids, the ISBNs), so each title is some 150 bytes smaller (decision 065).
/// The id stays what the API, URLs, backups and devices know; a statement finds a library's titles by
/// `library_no = (SELECT no FROM libraries WHERE id = ?)` (`LibraryNumber.of`).
///
/// The kept counts (`title_counts`), the search index's scope (the library's id in hex) and the sync log
/// go on naming the library as they did: their triggers read the library of a title's number, and so
/// do the readers' votes that a title's rating averages. Made again as `LibraryNumberRemake` makes a
/// table (foreign keys off, so that dropping the old table does not run the copies', loans', holds',
/// reads' and categories' `ON DELETE` actions); the rowids stay, which the search index names titles by.
struct TitlesByLibraryNumber: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await Self.remake.run(on: database, numbered: true, postgresTriggers: Self.postgresTriggers(numbered: true),
                                  dropPostgresTriggers: Self.postgresTriggerNames)
    }

    func revert(on database: any Database) async throws {
        try await Self.remake.run(on: database, numbered: false, postgresTriggers: Self.postgresTriggers(numbered: false),
                                  dropPostgresTriggers: Self.postgresTriggerNames)
    }

    static let remake = LibraryNumberRemake(table: "titles", create: { name, to, library in
        """
        CREATE TABLE \(name) ("id" UUID PRIMARY KEY, "\(to)" \(library), "isbn13" TEXT, "title" TEXT NOT NULL,
            "subtitle" TEXT, "authors" JSON NOT NULL, "publisher" TEXT, "published_date" TEXT, "page_count" INTEGER, "language" TEXT,
            "description" TEXT, "cover_url" TEXT, "notes" TEXT, "favorite" INTEGER NOT NULL, "rating" DOUBLE, "wishlist" INTEGER NOT NULL,
            "series" TEXT, "series_number" TEXT, "reading_level" TEXT, "sort_key" TEXT NOT NULL, "section" TEXT NOT NULL,
            "search_text" TEXT NOT NULL, "created_at" REAL, "updated_at" REAL, "requested_by" TEXT, "priority" INTEGER, "asin" TEXT,
            "author_key" TEXT NOT NULL DEFAULT '', "loan_count" INTEGER NOT NULL DEFAULT 0, "level_scheme" TEXT, "level_value" DOUBLE,
            "level_points" DOUBLE, "call_number" TEXT, "call_number_sort" TEXT NOT NULL DEFAULT '~', "marc_record" TEXT,
            "rating_score" DOUBLE, "open_loans" INTEGER NOT NULL DEFAULT 0)
        """
    }, columns: ["isbn13", "title", "subtitle", "authors", "publisher", "published_date", "page_count", "language", "description",
                 "cover_url", "notes", "favorite", "rating", "wishlist", "series", "series_number", "reading_level", "sort_key", "section",
                 "search_text", "created_at", "updated_at", "requested_by", "priority", "asin", "author_key", "loan_count", "level_scheme",
                 "level_value", "level_points", "call_number", "call_number_sort", "marc_record", "rating_score", "open_loans"])

    private static let postgresTriggerNames = ["title_counts_insert", "title_counts_delete", "title_counts_update",
                                               "sync_titles_insert", "sync_titles_update", "sync_titles_delete"]

    /// The counts' and the sync log's statement triggers, and the rating's functions (replaced: their
    /// triggers on titles and reads stay).
    private static func postgresTriggers(numbered: Bool) -> [String] {
        let ratings = AddRatingScores.postgresTriggers.filter { $0.hasPrefix("CREATE FUNCTION") }.map { statement in
            let replacing = statement.replacingOccurrences(of: "CREATE FUNCTION", with: "CREATE OR REPLACE FUNCTION")
            return numbered ? LibraryNumberRemake.rewrite(replacing, on: "titles", own: false) : replacing
        }
        return AddOpenLoanCounts.postgresCountTriggers(numbered: numbered)
            + CreateSyncLog.postgresTriggers(.title, rows: numbered ? LibraryNumberRemake.postgresRows : { $0 })
            + ratings
    }
}
