import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// Members are found by their class too: each member's search text is written again with it
/// (`Member.searchText`). Plain SQL, so it reads only the columns that existed when it landed.
struct AddClassToMemberSearch: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        struct Row: Decodable { var id: UUID; var card_id: String; var first_name: String; var last_name: String; var grade: String? }
        for row in try await sql.raw("SELECT id, card_id, first_name, last_name, grade FROM members").all(decoding: Row.self) {
            let text = Member.searchText(cardID: row.card_id, firstName: row.first_name, lastName: row.last_name, grade: row.grade)
            try await sql.raw("UPDATE members SET search_text = \(bind: text) WHERE id = \(bind: row.id)").run()
        }
    }

    func revert(on database: any Database) async throws {}
}
