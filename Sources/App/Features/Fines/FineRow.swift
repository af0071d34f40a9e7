import Foundation

/// A row of `fines` as a plain value: the backup's and the restore's, column for column.
struct FineRow: Codable, Sendable, Equatable {
    var id: UUID
    /// Nil once the member was deleted: the money stays counted, not named.
    var member_id: UUID?
    var loan_id: UUID?
    var kind: String
    var amount: Int
    var title_text: String?
    var reason: String?
    var created_by: String
    var created_at: Date
}
