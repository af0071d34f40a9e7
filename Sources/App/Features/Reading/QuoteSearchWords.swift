import Fluent
import Foundation
import SQLKit

/// Quotes' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`).
/// Reads the columns it needs by name, not the models, which later migrations will grow.
struct QuoteSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: SearchWordsUpdate.Row { var id: UUID; var search_text: String; var text: String; var note: String?; var title: String; var authors: [String] }
        try await SearchWordsUpdate.run("quotes", columns: "x.text, x.note, t.title, t.authors", join: "JOIN titles t ON t.id = x.title_id", on: database) { (row: Row) in
            Quote.searchText(text: row.text, note: row.note, title: row.title, authors: row.authors)
        }
    }

    /// Not undone: the version before would find such a quote by its first character only.
    func revert(on database: any Database) async throws {}
}
