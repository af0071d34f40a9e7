import Fluent
import Foundation
import SQLKit

/// Members' search texts with Chinese and Japanese characters cut into words (`SearchWordsUpdate`), so
/// "小明" finds 王小明. Reads the columns it needs by name, not the model, which later migrations will grow.
struct MemberSearchWords: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: SearchWordsUpdate.Row { var id: UUID; var search_text: String; var card_id: String; var first_name: String; var last_name: String; var grade: String? }
        try await SearchWordsUpdate.run("members", columns: "x.card_id, x.first_name, x.last_name, x.grade", on: database) { (row: Row) in
            Member.searchText(cardID: row.card_id, firstName: row.first_name, lastName: row.last_name, grade: row.grade)
        }
    }

    /// Not undone: the version before would find such a member by the first character of a name only,
    /// until the member is next saved.
    func revert(on database: any Database) async throws {}
}
