import Fluent
import Foundation
import ShelfmarkCore

/// A named library with its own catalog, members and settings.
final class Library: Model, @unchecked Sendable {
    static let schema = "libraries"

    @ID(key: .id) var id: UUID?
    @Field(key: "name") var name: String
    @Field(key: "loan_period_days") var loanPeriodDays: Int
    @Field(key: "max_renewals") var maxRenewals: Int
    @Field(key: "public_catalog") var publicCatalog: Bool
    /// Whether search engines may index the public catalog (`CreateMemberPortal`).
    @Field(key: "catalog_indexable") var catalogIndexable: Bool
    /// The public catalog shows how many books went out this school year and the most borrowed this month.
    @Field(key: "public_figures") var publicFigures: Bool
    /// Months a closed loan keeps its borrower (nil: for ever).
    @OptionalField(key: "retention_months") var retentionMonths: Int?
    /// Reads the school's roster from its drop folder each night.
    @Field(key: "roster_nightly") var rosterNightly: Bool
    /// The next accession number handed to a new copy's barcode.
    @Field(key: "next_accession") var nextAccession: Int
    /// An IANA time zone name; nil: the server's.
    @OptionalField(key: "time_zone") var timeZone: String?
    /// Days a renewal adds (nil: the loan period); days before the due day a renewal opens (nil: any time).
    @OptionalField(key: "renewal_days") var renewalDays: Int?
    @OptionalField(key: "renew_window_days") var renewWindowDays: Int?
    /// Days a book set aside for a hold waits to be collected.
    @Field(key: "hold_pickup_days") var holdPickupDays: Int
    /// Holds one member may have waiting or set aside at once (`AddHoldLimit`).
    @Field(key: "max_holds_per_member") var maxHoldsPerMember: Int
    /// Whether the kiosk asks for the member's PIN after their card (`AddPublicDoorSettings`).
    @Field(key: "kiosk_asks_pin") var kioskAsksPIN: Bool
    /// Fines (`CreateFines`): off, money per day late, or suspension; amounts in minor units.
    @Field(key: "fine_mode") var fineMode: String
    @Field(key: "fine_per_day") var finePerDay: Int
    @Field(key: "fine_grace_days") var fineGraceDays: Int
    @OptionalField(key: "fine_cap") var fineCap: Int?
    @Field(key: "fine_suspension_days") var fineSuspensionDays: Int
    @OptionalField(key: "fine_block_at") var fineBlockAt: Int?
    @Field(key: "currency") var currency: String
    /// Reminders (`CreateReminders`): off by default; the daily run's hour; due-soon and overdue days.
    @Field(key: "reminders_on") var remindersOn: Bool
    @Field(key: "reminder_hour") var reminderHour: Int
    @OptionalField(key: "remind_before_days") var remindBeforeDays: Int?
    @OptionalField(key: "remind_overdue_1") var remindOverdue1: Int?
    @OptionalField(key: "remind_overdue_2") var remindOverdue2: Int?
    @OptionalField(key: "remind_overdue_3") var remindOverdue3: Int?
    /// The language of messages to members who have none of their own.
    @Field(key: "language") var language: String
    /// Who to ask, where, when: the last line of every message and letter.
    @OptionalField(key: "contact") var contact: String?
    /// The restore job still writing this library (`AddLibraryPendingJob`); nil once it is anyone's.
    @OptionalField(key: "pending_job_id") var pendingJobID: UUID?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    init() {}

    init(id: UUID? = nil, name: String, policy: LoanPolicy = .init(), publicCatalog: Bool = false) {
        self.id = id
        self.name = name
        self.loanPeriodDays = policy.loanPeriodDays
        self.maxRenewals = policy.maxRenewals
        self.publicCatalog = publicCatalog
        self.catalogIndexable = false
        self.publicFigures = false
        self.rosterNightly = false
        self.nextAccession = 1
        self.holdPickupDays = 7
        self.maxHoldsPerMember = Limits.defaultHoldsPerMember
        self.kioskAsksPIN = false
        let reminders = ReminderPolicy()
        (remindersOn, reminderHour, remindBeforeDays, language) = (reminders.on, reminders.hour, reminders.beforeDays, "en")
        (remindOverdue1, remindOverdue2, remindOverdue3) = (reminders.overdueDays[0], reminders.overdueDays[1], reminders.overdueDays[2])
        let fines = FinePolicy()
        (fineMode, finePerDay, fineGraceDays, fineSuspensionDays, currency) =
            (fines.mode.rawValue, fines.perDay, fines.graceDays, fines.suspensionDaysPerDay, fines.currency)
    }

    var finePolicy: FinePolicy {
        FinePolicy(mode: .init(rawValue: fineMode) ?? .off, perDay: finePerDay, graceDays: fineGraceDays, cap: fineCap,
                   suspensionDaysPerDay: fineSuspensionDays, blockAt: fineBlockAt, currency: currency)
    }

    var reminderPolicy: ReminderPolicy {
        ReminderPolicy(on: remindersOn, hour: reminderHour, beforeDays: remindBeforeDays,
                       overdueDays: [remindOverdue1, remindOverdue2, remindOverdue3].compactMap { $0 })
    }

    var policy: LoanPolicy {
        LoanPolicy(loanPeriodDays: loanPeriodDays, maxRenewals: maxRenewals, timeZone: Self.zone(timeZone), renewalDays: renewalDays,
                   renewWindowDays: renewWindowDays)
    }

    /// The zone named `name`, the server's when it names none (or one this system does not know).
    static func zone(_ name: String?) -> TimeZone {
        name.flatMap(TimeZone.init(identifier:)) ?? .current
    }
}
