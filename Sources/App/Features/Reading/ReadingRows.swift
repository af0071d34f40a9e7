import Foundation

// The reading life's tables as plain values: the backup's and the restore's, column for column.

struct ReadRow: Codable, Sendable, Equatable {
    var id: UUID
    var user_id: UUID?
    var member_id: UUID?
    var title_id: UUID?
    var title_text: String
    var author_text: String?
    var page_count: Int?
    var status: String
    var started_at: Date?
    var finished_at: Date?
    var rating: Double?
    var review: String?
    var progress_page: Int?
    var progress_fraction: Double?
    var progress_label: String?
    var last_progress_at: Date?
    var created_at: Date
    var updated_at: Date
}

struct ProgressEventRow: Codable, Sendable, Equatable {
    var id: UUID
    var read_id: UUID
    var at: Date
    var unit: String
    var value: Int?
    var label: String?
    var created_at: Date
}

struct GoalRow: Codable, Sendable, Equatable {
    var id: UUID
    var user_id: UUID?
    var member_id: UUID?
    var reader_key: String
    var year: Int
    var books: Int?
    var pages: Int?
}

struct QuoteRow: Codable, Sendable, Equatable {
    var id: UUID
    var user_id: UUID
    var title_id: UUID
    var page: String?
    var text: String
    var note: String?
    var photo_id: UUID?
    var search_text: String
    var created_at: Date
}

struct PhotoRow: Codable, Sendable, Equatable {
    var id: UUID
    var user_id: UUID
    var title_id: UUID
    var page: String?
    var original: Data
    var original_width: Int
    var original_height: Int
    var corners: String?
    var image: Data
    var width: Int
    var height: Int
    var thumbnail: Data
    var markup: String?
    var created_at: Date
    var updated_at: Date
}
