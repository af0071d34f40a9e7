import Fluent
import Foundation
import SQLKit

/// A library's number (`libraries.no`): how the sync log and the copies name their library in the
/// database (`SyncLogLibraryNumbers`, `CopiesByLibraryNumber`, `TitlesByLibraryNumber`, `LoansByLibraryNumber`). The id is what everything outside the
/// database knows; the number never leaves it.
enum LibraryNumber {
    /// The number of library `id`, in a statement: one seek of the libraries' id, evaluated once.
    static func of(_ id: UUID) -> SQLQueryString { "(SELECT no FROM libraries WHERE id = \(bind: id))" }

    /// The number of library `id`, read once for statements that write many rows.
    static func read(_ id: UUID, on db: any SQLDatabase) async throws -> Int {
        guard let no = try await db.raw("SELECT no FROM libraries WHERE id = \(bind: id)").first()?.decode(column: "no", as: Int?.self).flatMap({ $0 }) else {
            throw AccountError.libraryNotFound
        }
        return no
    }
}

extension LibraryNumber {
    /// The tables whose rows name their library by number: every other table of a library's rows has a
    /// `library_id`.
    static let tables: Set<String> = ["copies", "loans", "titles"]

    /// The column that names a row's library in `table`.
    static func column(of table: String) -> String { tables.contains(table) ? "library_no" : "library_id" }

    /// The rows of `table` in library `id`, as a condition (on `alias.` when given).
    static func rows(of table: String, _ id: UUID, alias: String? = nil) -> SQLQueryString {
        let column = SQLQueryString((alias.map { $0 + "." } ?? "") + Self.column(of: table))
        return column + " = " + value(for: table, id)
    }

    /// Whether `table` names its library by number in the database as it stands: for code that older
    /// migrations run before the table was moved.
    static func numbered(_ table: String, on sql: any SQLDatabase) async throws -> Bool {
        let query: SQLQueryString = sql.dialect.name == "sqlite"
            ? "SELECT 1 AS n FROM pragma_table_info(\(bind: table)) WHERE name = 'library_no'"
            : "SELECT 1 AS n FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(bind: table) AND column_name = 'library_no'"
        return try await sql.raw(query).first() != nil
    }

    /// What `table`'s library column holds for library `id`.
    static func value(for table: String, _ id: UUID) -> SQLQueryString {
        tables.contains(table) ? of(id) : "\(bind: id)"
    }
}
