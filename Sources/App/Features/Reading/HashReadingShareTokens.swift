import Fluent
import Foundation
import SQLKit

/// A shared year's secret link is kept as the SHA-256 of its token, as sessions and API
/// tokens are, so a copy of the database (a backup, a leaked disk) opens no reader's year. The links
/// already given keep working: their tokens are hashed in place.
struct HashReadingShareTokens: AsyncMigration {
    func prepare(on database: any Database) async throws {
        struct Row: Decodable { var id: UUID; var token: String }
        let sql = database as! any SQLDatabase
        let rows = try await sql.select().column("id").column("token").from("reading_shares").all(decoding: Row.self)
        for row in rows where row.token.count != 64 {
            try await sql.update("reading_shares").set("token", to: Credential.hash(row.token)).where("id", .equal, row.id).run()
        }
    }

    /// A hash cannot be turned back into its token: reverting ends every shared link.
    func revert(on database: any Database) async throws {
        try await (database as! any SQLDatabase).delete(from: "reading_shares").run()
    }
}
