import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// Search texts written again after the way they cut words changed (`SearchText.searchWords`: Chinese
/// and Japanese characters each a word): only rows whose text holds a character outside ASCII are read,
/// a page at a time with the columns the text is made from, and only those it changes are written, so a
/// library in other scripts costs one pass over an index-free condition and nothing else.
enum SearchWordsUpdate {
    /// A row as a migration reads it: `id`, `search_text` and the columns its text is derived from.
    protocol Row: Decodable, Sendable {
        var id: UUID { get }
        var search_text: String { get }
    }

    /// Each row of `table` (as `x`, with `join`'s tables) whose `search_text` holds a Chinese or Japanese
    /// character, a page of 500 at a time in one query with `columns`; the rows whose `text` differs are
    /// written in a transaction per page (one transaction per row cost 50 s for 100,000 Chinese titles).
    static func run<R: Row>(_ table: String, columns: SQLQueryString, join: SQLQueryString = "", on database: any Database,
                            text: @escaping @Sendable (R) -> String) async throws {
        // Anything outside printable ASCII, then the characters themselves in Swift.
        let nonASCII: SQLQueryString = Dialect(database) == .sqlite ? "x.search_text GLOB '*[^ -~]*'" : "x.search_text ~ '[^ -~]'"
        var after: UUID?
        while true {
            let seek: SQLQueryString = after.map { " AND x.id > \(bind: $0)" } ?? ""
            let select: SQLQueryString = "SELECT x.id, x.search_text, " + columns + " FROM \(ident: table) x " + join
            let rows = try await database.sql.raw(select + " WHERE " + nonASCII + seek + " ORDER BY x.id LIMIT 500").all(decoding: R.self)
            guard let last = rows.last else { return }
            after = last.id
            let changed = rows.compactMap { row -> (UUID, String)? in
                guard row.search_text.unicodeScalars.contains(where: SearchText.isHanOrKana) else { return nil }
                let new = text(row)
                return new == row.search_text ? nil : (row.id, new)
            }
            guard !changed.isEmpty else { continue }
            try await database.transaction { db in
                for (id, new) in changed {
                    try await db.sql.raw("UPDATE \(ident: table) SET search_text = \(bind: new) WHERE id = \(bind: id)").run()
                }
            }
        }
    }
}

/// Titles' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`).
/// Reads the columns it needs by name, not the model, which later migrations will grow.
struct TitleSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: SearchWordsUpdate.Row { var id: UUID; var search_text: String; var title: String; var subtitle: String?; var authors: [String]; var series: String?; var isbn13: String? }
        try await SearchWordsUpdate.run("titles", columns: "x.title, x.subtitle, x.authors, x.series, x.isbn13", on: database) { (row: Row) in
            Title.derived(title: row.title, subtitle: row.subtitle, authors: row.authors, series: row.series, isbn13: row.isbn13).searchText
        }
    }

    /// Not undone: the version before would find such a title by its first character only, until the
    /// title is next saved.
    func revert(on database: any Database) async throws {}
}
