import Fluent
import FluentSQL
import SQLKit

/// The catalog's list orders indexed with no more than they need, on SQLite: every index of a rowid
/// table already ends in the rowid, so an order made total by the rowid (`TitleQuery.tiebreak`) is
/// read off an index without the 36 characters of text id each entry repeated (a third of each
/// entry). PostgreSQL's indexes keep the id, its tiebreak (16 bytes there).
///
/// One narrow index of the ids (`titles_library_ids`: library, list, A–Z section, id) stands in for the
/// ids the six order indexes carried: a count, and the A–Z sections' counts, under a filter that names
/// a title's id (its copies, categories, the reader's reads) are read off it without reading the rows
/// (measured at 100,000 titles: "not read by me" counted in 111 ms without it, 8 ms with it; its
/// sections in 139 ms and 3 ms).
struct LeanListIndexes: AsyncMigration {
    /// Each list order's index (after library and list), as `AddTitleListKeys` and `AddCallNumbers`
    /// made them, less the trailing id.
    static let indexes: [(String, String)] = [
        ("titles_list_title", "sort_key"),
        ("titles_list_section", "section, sort_key"),
        ("titles_list_author", "author_key, sort_key"),
        ("titles_list_newest", "created_at"),
        ("titles_list_borrowed", "loan_count DESC, sort_key"),
        ("titles_list_shelf", "call_number_sort, sort_key"),
    ]

    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await make(on: database, trailing: "")
        try await database.sql.raw("CREATE INDEX titles_library_ids ON titles (library_id, wishlist, section, id)").run()
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        try await database.sql.raw("DROP INDEX IF EXISTS titles_library_ids").run()
        try await make(on: database, trailing: ", id")
    }

    private func make(on database: any Database, trailing: String) async throws {
        let sql = database.sql
        for (name, columns) in Self.indexes {
            try await sql.raw(SQLQueryString("DROP INDEX IF EXISTS \(name)")).run()
            try await sql.raw(SQLQueryString("CREATE INDEX \(name) ON titles (library_id, wishlist, \(columns)\(trailing))")).run()
        }
    }
}
