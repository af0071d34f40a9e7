import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// Search texts written again after the way they cut words changed (`SearchText.searchWords`: Chinese
/// and Japanese characters each a word): only rows whose text holds such a character are read and
/// written, a page of ids at a time, so a library in other scripts costs one pass over an index-free
/// condition and nothing else.
enum SearchWordsUpdate {
    /// Each row of `table` whose `search_text` holds a Chinese or Japanese character: its id, a page of
    /// them at a time, handed to `rewrite` inside a transaction of its own, which writes the new texts of
    /// those it changes (one transaction per row cost 50 s for 100,000 Chinese titles).
    static func run(_ table: String, on database: any Database, rewrite: @escaping @Sendable ([UUID], any Database) async throws -> Void) async throws {
        let sql = database.sql
        // Anything outside printable ASCII, then the characters themselves in Swift.
        let nonASCII: SQLQueryString = Dialect(database) == .sqlite ? "search_text GLOB '*[^ -~]*'" : "search_text ~ '[^ -~]'"
        struct Row: Decodable { var id: UUID; var search_text: String }
        var after: UUID?
        while true {
            let seek: SQLQueryString = after.map { " AND id > \(bind: $0)" } ?? ""
            let rows = try await sql.raw("SELECT id, search_text FROM \(ident: table) WHERE " + nonASCII + seek + " ORDER BY id LIMIT 500")
                .all(decoding: Row.self)
            guard let last = rows.last else { return }
            after = last.id
            let ids = rows.filter { $0.search_text.unicodeScalars.contains(where: SearchText.isHanOrKana) }.map(\.id)
            if !ids.isEmpty { try await database.transaction { db in try await rewrite(ids, db) } }
        }
    }

    static func write(_ table: String, id: UUID, text: String, on database: any Database) async throws {
        try await database.sql.raw("UPDATE \(ident: table) SET search_text = \(bind: text) WHERE id = \(bind: id)").run()
    }
}

/// Titles' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`).
/// Reads the columns it needs by name, not the model, which later migrations will grow.
struct TitleSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: Decodable { var id: UUID; var title: String; var subtitle: String?; var authors: [String]; var series: String?; var isbn13: String?; var search_text: String }
        try await SearchWordsUpdate.run("titles", on: database) { ids, database in
            let rows = try await database.sql.raw("SELECT id, title, subtitle, authors, series, isbn13, search_text FROM titles WHERE id IN (\(binds: ids))")
                .all(decoding: Row.self)
            for row in rows {
                let text = Title.derived(title: row.title, subtitle: row.subtitle, authors: row.authors, series: row.series, isbn13: row.isbn13).searchText
                if text != row.search_text { try await SearchWordsUpdate.write("titles", id: row.id, text: text, on: database) }
            }
        }
    }

    /// Not undone: the version before would find such a title by its first character only, until the
    /// title is next saved.
    func revert(on database: any Database) async throws {}
}
