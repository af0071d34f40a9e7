import Fluent
import Foundation
import SQLKit

extension Catalog {
    /// A title's name in the library, nil when there is no such title (a form naming one that was
    /// deleted meanwhile).
    static func titleName(_ titleID: UUID, library: UUID, on db: any Database) async throws -> String? {
        struct Row: Decodable { var title: String }
        return try await db.sql.raw("SELECT title FROM titles WHERE id = \(bind: titleID) AND library_id = \(bind: library)")
            .first(decoding: Row.self)?.title
    }
}
