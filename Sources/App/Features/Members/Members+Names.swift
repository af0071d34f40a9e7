import Fluent
import Foundation
import SQLKit

extension Members {
    /// A member's card ID, nil when there is no such member (a form naming one deleted meanwhile).
    static func cardID(_ memberID: UUID, library: UUID, on db: any Database) async throws -> String? {
        struct Row: Decodable { var card_id: String }
        return try await db.sql.raw("SELECT card_id FROM members WHERE id = \(bind: memberID) AND library_id = \(bind: library)")
            .first(decoding: Row.self)?.card_id
    }
}
