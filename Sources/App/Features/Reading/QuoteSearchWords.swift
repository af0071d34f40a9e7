import Fluent
import Foundation
import SQLKit

/// Quotes' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`).
/// Reads the columns it needs by name, not the models, which later migrations will grow.
struct QuoteSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: Decodable { var id: UUID; var text: String; var note: String?; var title: String; var authors: [String]; var search_text: String }
        try await SearchWordsUpdate.run("quotes", on: database) { ids, database in
            let rows = try await database.sql.raw("""
                SELECT q.id, q.text, q.note, t.title, t.authors, q.search_text FROM quotes q JOIN titles t ON t.id = q.title_id
                WHERE q.id IN (\(binds: ids))
                """).all(decoding: Row.self)
            for row in rows {
                let text = Quote.searchText(text: row.text, note: row.note, title: row.title, authors: row.authors)
                if text != row.search_text { try await SearchWordsUpdate.write("quotes", id: row.id, text: text, on: database) }
            }
        }
    }

    /// Not undone: the version before would find such a quote by its first character only.
    func revert(on database: any Database) async throws {}
}
