import Fluent
import SQLKit

/// The loans list is ordered by due date, then id (a stable order for paging). Loans made the same
/// day share one due moment (the end of the due day), so an index ending at `due_at` left the
/// database sorting every open loan by id and joining each to its copy before taking a page (16 ms
/// at 3,000 loans in sqlite3; 2 ms with this index). This index ends with `id` and replaces the old one.
struct AddLoanOrderIndex: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.create(index: "loans_active_order").on("loans")
            .column("library_id").column("returned_at").column("due_at").column("id").run()
        try await sql.drop(index: "loans_library_active_due").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await sql.create(index: "loans_library_active_due").on("loans")
            .column("library_id").column("returned_at").column("due_at").run()
        try await sql.drop(index: "loans_active_order").run()
    }
}
