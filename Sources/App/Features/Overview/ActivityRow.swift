import Foundation

/// A row of `activities` as a plain value: the backup's and the restore's, column for column.
struct ActivityRow: Codable, Sendable, Equatable {
    var id: UUID
    var at: Date
    var type: String
    var title_id: UUID?
    var title_text: String?
    var author_text: String?
    var member_card_id: String?
    var info: String?
    var detail: String?
    var actor: String
}
