import Foundation

/// A row of `loans` as a plain value: the backup's and the restore's, column for column.
struct LoanRow: Codable, Sendable, Equatable {
    var id: UUID
    var copy_id: UUID?
    var title_id: UUID?
    var member_id: UUID?
    var title_text: String
    var member_card_id: String
    var member_name: String
    var checked_out_at: Date
    var due_at: Date
    var returned_at: Date?
    var renewals: Int
    var checked_out_by: String
    /// The borrower's class when the book was lent (the reports count by it; a class changes each year).
    var member_grade: String? = nil
    /// The last reminder stage reached, and when: a restored loan is not reminded again.
    var reminder_stage: Int? = nil
    var reminded_at: Date? = nil
}
