import Fluent
import Foundation
import SQLKit

/// Members' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`), so
/// "小明" finds 王小明. Reads the columns it needs by name, not the model, which later migrations will grow.
struct MemberSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: Decodable { var id: UUID; var card_id: String; var first_name: String; var last_name: String; var grade: String?; var search_text: String }
        try await SearchWordsUpdate.run("members", on: database) { ids, database in
            let rows = try await database.sql.raw("SELECT id, card_id, first_name, last_name, grade, search_text FROM members WHERE id IN (\(binds: ids))")
                .all(decoding: Row.self)
            for row in rows {
                let text = Member.searchText(cardID: row.card_id, firstName: row.first_name, lastName: row.last_name, grade: row.grade)
                if text != row.search_text { try await SearchWordsUpdate.write("members", id: row.id, text: text, on: database) }
            }
        }
    }

    /// Not undone: the version before would find such a member by the first character of a name only,
    /// until the member is next saved.
    func revert(on database: any Database) async throws {}
}
