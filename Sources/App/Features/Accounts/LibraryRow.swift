import Foundation

/// A library's settings as the backup keeps them: the `libraries` row's columns a restore writes back.
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
    /// Whether search engines may index the public catalog; absent in backups made before it.
    var catalog_indexable: Bool? = nil
    /// Whether the public catalog shows the library's figures; absent in backups made before it.
    var public_figures: Bool? = nil
    /// Months a closed loan keeps its borrower; absent in backups made before it.
    var retention_months: Int? = nil
    /// Reads the school's roster from its drop folder each night; absent in backups made before it.
    var roster_nightly: Bool? = nil
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
