import Foundation

/// A row of `holds` as a plain value: the backup's and the restore's, column for column.
struct HoldRow: Codable, Sendable, Equatable {
    var id: UUID
    var title_id: UUID
    /// Nil once the member was deleted (the hold was closed first): counted, not named.
    var member_id: UUID?
    var copy_id: UUID?
    var rank: Int
    var state: String
    var suspended: Bool
    var ready_at: Date?
    var pickup_by: Date?
    var placed_by: String
    var created_at: Date
    var closed_at: Date?
}
