import Foundation

// Shelves and stocktakes as plain values: the backup's and the restore's, column for column.

struct ShelfRow: Codable, Sendable, Equatable {
    var id: UUID
    var name: String
    var room: String?
    var code: String
    var created_at: Date
    var updated_at: Date
}

struct StocktakeRow: Codable, Sendable, Equatable {
    var id: UUID
    var shelf_id: UUID
    var shelf_name: String
    var started_at: Date
    var finished_at: Date?
    var started_by: String?
    var found: Int
    var missing: Int
    var misplaced: Int
    var unknown: Int
}

struct StocktakeScanRow: Codable, Sendable, Equatable {
    var id: UUID
    var stocktake_id: UUID
    var copy_id: UUID?
    var code: String
    var outcome: String
    var expected: String?
    var scanned_at: Date
}
