import Foundation

/// A row of `members` as a plain value: the backup's and the restore's, column for column.
struct MemberRow: Codable, Sendable, Equatable {
    var id: UUID
    var card_id: String
    var first_name: String
    var last_name: String
    var grade: String?
    var email: String?
    var notes: String?
    var search_text: String
    var created_at: Date?
    var updated_at: Date?
    /// No loans before this moment (fines by suspension).
    var suspended_until: Date? = nil
    /// The language messages are written in.
    var language: String? = nil
    /// The member's id in the school's records, their guardian's e-mail, and when they left.
    var roster_id: String? = nil
    var guardian_email: String? = nil
    var archived_at: Date? = nil
}
