import Foundation
import ShelfmarkCore

/// A whole library in one JSON document (F4 full export, F5 backup): settings, categories, titles,
/// copies, members, loans (history included), the activity log and, in a backup, the cover images.
/// Rows are the tables' own columns, so a restore writes back exactly what was read.
struct LibraryBackup: Codable, Sendable, Equatable {
    static let currentVersion = 1

    var format = "shelfmark-library"
    var version = LibraryBackup.currentVersion
    var createdAt: Date
    var library: LibraryRow
    var categories: [CategoryRow]
    var titleCategories: [TitleCategoryRow]
    var titles: [TitleRow]
    var copies: [CopyRow]
    var members: [MemberRow]
    var loans: [LoanRow]
    var activities: [ActivityRow]
    var covers: [CoverRow]?
    /// Reading life, in a backup only: reads, their progress, goals, quotes and page photos.
    var reads: [ReadRow]?
    var progressEvents: [ProgressEventRow]?
    var readingGoals: [GoalRow]?
    var quotes: [QuoteRow]?
    var pagePhotos: [PhotoRow]?
    /// The holds queues; absent in backups made before them.
    var holds: [HoldRow]? = nil
    /// The fines ledger; absent in backups made before it.
    var fines: [FineRow]? = nil
    /// The templates the library edited; absent in backups made before them.
    var mailTemplates: [MailTemplateRow]? = nil
    /// The smart collections; absent in backups made before them.
    var collections: [CollectionRow]? = nil
    /// The shelves with their rooms and codes; absent in backups made before them (a
    /// restore then makes a shelf of every location its copies name).
    var shelves: [ShelfRow]? = nil
    /// The stocktakes taken at the shelves, and what each scan found; absent in backups made before them.
    var stocktakes: [StocktakeRow]? = nil
    var stocktakeScans: [StocktakeScanRow]? = nil

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

    struct ShelfRow: Codable, Sendable, Equatable {
        var id: UUID
        var name: String
        var room: String?
        var code: String
        var created_at: Date
        var updated_at: Date
    }

    struct CollectionRow: Codable, Sendable, Equatable {
        var id: UUID
        var name: String
        var name_key: String
        /// The `CollectionFilter` as JSON.
        var filter: String
        var created_at: Date
        var updated_at: Date
    }

    struct FineRow: Codable, Sendable, Equatable {
        var id: UUID
        var member_id: UUID
        var loan_id: UUID?
        var kind: String
        var amount: Int
        var title_text: String?
        var reason: String?
        var created_by: String
        var created_at: Date
    }

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

    struct LibraryRow: Codable, Sendable, Equatable {
        var name: String
        var loan_period_days: Int
        var max_renewals: Int
        var public_catalog: Bool
        var next_accession: Int
        var time_zone: String? = nil
        var renewal_days: Int? = nil
        var renew_window_days: Int? = nil
        var hold_pickup_days: Int? = nil
        var max_holds_per_member: Int? = nil
        var kiosk_asks_pin: Bool? = nil
        var fine_mode: String? = nil
        var fine_per_day: Int? = nil
        var fine_grace_days: Int? = nil
        var fine_cap: Int? = nil
        var fine_suspension_days: Int? = nil
        var fine_block_at: Int? = nil
        var currency: String? = nil
        /// Reminders; absent in backups made before them.
        var reminders_on: Bool? = nil
        var reminder_hour: Int? = nil
        var remind_before_days: Int? = nil
        var remind_overdue_1: Int? = nil
        var remind_overdue_2: Int? = nil
        var remind_overdue_3: Int? = nil
        var language: String? = nil
        var contact: String? = nil
    }

    /// A message template the library edited.
    struct MailTemplateRow: Codable, Sendable, Equatable {
        var id: UUID
        var kind: String
        var language: String
        var subject: String
        var body: String
        var updated_at: Date
    }

    struct HoldRow: Codable, Sendable, Equatable {
        var id: UUID
        var title_id: UUID
        var member_id: UUID
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

    struct CategoryRow: Codable, Sendable, Equatable {
        var id: UUID
        var name: String
        var created_at: Date?
    }

    struct TitleCategoryRow: Codable, Sendable, Equatable {
        var title_id: UUID
        var category_id: UUID
    }

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
    }

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
        /// The last reminder stage reached, and when: a restored loan is not reminded again.
        var reminder_stage: Int? = nil
        var reminded_at: Date? = nil
    }

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

    struct CoverRow: Codable, Sendable, Equatable {
        var id: UUID
        var sha256: String
        var content_type: String
        /// Base64 in JSON (Data's default encoding).
        var bytes: Data
        var source_url: String?
        var created_at: Date?
    }
}
