import Foundation
import ShelfmarkCore

/// A whole library in one JSON document (the full export and the backup): settings, categories, titles,
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
    /// The series titles belong to besides their own; absent in backups made before they were kept.
    var titleSeries: [TitleSeriesRow]? = nil
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
    /// Reports saved under a name (and when they are mailed); absent in backups made before them.
    var savedReports: [SavedReportRow]? = nil
    /// The audit log; absent in backups made before it.
    var auditLog: [AuditRow]? = nil
}
