import Fluent
import Foundation
import SQLKit

/// A loan names its library by the library's number (`loans.library_no`, `libraries.no`) instead of its
/// 16-byte id, as the copies and titles do: the library leads the open loans' order and the loans by
/// day lent, so each loan is some 45 bytes smaller (decision 065). The id stays what the API, backups
/// and devices know; a statement finds a library's loans by `library_no = (SELECT no FROM libraries
/// WHERE id = ?)` (`LibraryNumber.of`), and the sync log's triggers read the library of a loan's number.
///
/// Made again as `LibraryNumberRemake` makes a table (foreign keys off, so that dropping the old table
/// does not run the fines' and reminders' `ON DELETE` actions); the rowids stay.
///
/// The open loans' order (`loans_active_order`: library, returned, due, id over every loan) becomes two
/// indexes: the open loans alone by due date (`loans_open`, partial: the loans list, the overdue, the
/// reminders and the counts read nothing else; its last column, always NULL, lets SQLite answer from the
/// index alone) and every loan by its return (`loans_library_returned`:
/// the returns in a report's period, the recount, the retention). A year of loans is mostly returned
/// ones, which no longer carry a due date and an id in the index. Made before the table is (if the update
/// stops between the two it starts again), so the table's remake names them by number.
struct LoansByLibraryNumber: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("CREATE INDEX IF NOT EXISTS loans_open ON loans (library_id, due_at, id, returned_at) WHERE returned_at IS NULL").run()
        try await sql.raw("CREATE INDEX IF NOT EXISTS loans_library_returned ON loans (library_id, returned_at)").run()
        try await sql.raw("DROP INDEX IF EXISTS loans_active_order").run()
        try await Self.remake.run(on: database, numbered: true, postgresTriggers: Self.postgresTriggers(numbered: true),
                                  dropPostgresTriggers: Self.postgresTriggerNames)
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.raw("CREATE INDEX IF NOT EXISTS loans_active_order ON loans (library_no, returned_at, due_at, id)").run()
        try await sql.raw("DROP INDEX IF EXISTS loans_open").run()
        try await sql.raw("DROP INDEX IF EXISTS loans_library_returned").run()
        try await Self.remake.run(on: database, numbered: false, postgresTriggers: Self.postgresTriggers(numbered: false),
                                  dropPostgresTriggers: Self.postgresTriggerNames)
    }

    static let remake = LibraryNumberRemake(table: "loans", create: { name, to, library in
        """
        CREATE TABLE \(name) ("id" UUID PRIMARY KEY, "\(to)" \(library),
            "copy_id" UUID REFERENCES "copies" ("id") ON DELETE SET NULL ON UPDATE NO ACTION,
            "title_id" UUID REFERENCES "titles" ("id") ON DELETE SET NULL ON UPDATE NO ACTION,
            "member_id" UUID REFERENCES "members" ("id") ON DELETE SET NULL ON UPDATE NO ACTION,
            "title_text" TEXT NOT NULL, "member_card_id" TEXT NOT NULL, "member_name" TEXT NOT NULL, "checked_out_at" REAL NOT NULL,
            "due_at" REAL NOT NULL, "returned_at" REAL, "renewals" INTEGER NOT NULL, "checked_out_by" TEXT NOT NULL,
            "reminder_stage" INTEGER NOT NULL DEFAULT 0, "reminded_at" REAL, "member_grade" TEXT)
        """
    }, columns: ["copy_id", "title_id", "member_id", "title_text", "member_card_id", "member_name", "checked_out_at", "due_at",
                 "returned_at", "renewals", "checked_out_by", "reminder_stage", "reminded_at", "member_grade"])

    private static let postgresTriggerNames = ["sync_loans_insert", "sync_loans_update", "sync_loans_delete"]

    private static func postgresTriggers(numbered: Bool) -> [String] {
        CreateSyncLog.postgresTriggers(.loan, rows: numbered ? LibraryNumberRemake.postgresRows : { $0 })
    }
}
