import Fluent
import FluentSQL
import SQLKit

/// The A–Z and by-author keys compared byte by byte on PostgreSQL (`COLLATE "C"`), as SQLite compares
/// them and as they are built to be compared (`SearchText.sortKey`, `Title.authorKey`: folded words;
/// `call_number_sort` has been so since it was added). Under the database's own collation a list could
/// come out in another order than on SQLite (en_US sets spaces and punctuation aside), while the kept
/// counts' "sorts before a" (`sort_key < 'a'`) assumes bytes; and every index entry of the six list
/// orders was compared through the C library's `strcoll` as it was inserted, most of a bulk import's
/// index time. SQLite: nothing to do.
struct SortKeysCompareAsBytes: AsyncMigration {
    static let columns = ["sort_key", "author_key"]

    func prepare(on database: any Database) async throws {
        try await collate(database, "\"C\"")
    }

    func revert(on database: any Database) async throws {
        try await collate(database, "\"default\"")
    }

    private func collate(_ database: any Database, _ collation: String) async throws {
        guard Dialect(database) == .postgresql else { return }
        let changes = Self.columns.map { "ALTER COLUMN \($0) TYPE TEXT COLLATE \(collation)" }.joined(separator: ", ")
        // One statement: the table's indexes over these columns are built again once.
        try await database.sql.raw(SQLQueryString("ALTER TABLE titles \(changes)")).run()
    }
}
