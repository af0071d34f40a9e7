import Foundation

/// A physical copy's state.
public enum CopyStatus: String, Codable, Sendable, CaseIterable {
    case available
    case onLoan = "on_loan"
    case lost
    case damaged
    case withdrawn
}

/// How many copies of a title exist and how many can be lent now, derived from its copies' statuses.
public struct Availability: Equatable, Codable, Sendable {
    public var total: Int
    public var available: Int
    public var onLoan: Int

    public init(total: Int, available: Int, onLoan: Int) {
        self.total = total
        self.available = available
        self.onLoan = onLoan
    }

    /// Lost and withdrawn copies count towards nothing a borrower can take.
    public init(statuses: some Sequence<CopyStatus>) {
        var total = 0, available = 0, onLoan = 0
        for status in statuses {
            switch status {
            case .available: total += 1; available += 1
            case .onLoan: total += 1; onLoan += 1
            case .lost, .damaged, .withdrawn: break
            }
        }
        self.init(total: total, available: available, onLoan: onLoan)
    }
}

/// The library's lending settings.
public struct LoanPolicy: Equatable, Sendable {
    public static let defaultLoanPeriodDays = 14
    public static let defaultMaxRenewals = 2
    public static let loanPeriodRange = 1...365

    public var loanPeriodDays: Int
    public var maxRenewals: Int
    /// The library's time zone: a loan is due at the end of its due day there.
    public var timeZone: TimeZone
    /// How many days a renewal adds; nil: the loan period.
    public var renewalDays: Int?
    /// A loan can be renewed only this many days before its due day (or after it); nil: any time.
    public var renewWindowDays: Int?

    public init(loanPeriodDays: Int = LoanPolicy.defaultLoanPeriodDays, maxRenewals: Int = LoanPolicy.defaultMaxRenewals,
                timeZone: TimeZone = .current, renewalDays: Int? = nil, renewWindowDays: Int? = nil) {
        self.loanPeriodDays = loanPeriodDays
        self.maxRenewals = maxRenewals
        self.timeZone = timeZone
        self.renewalDays = renewalDays
        self.renewWindowDays = renewWindowDays
    }

    /// The new due date of a loan due `dueAt`, renewed `renewals` times so far, asked for at `now`
    /// while `waiting` members (holds not suspended) wait for the title and no other copy is on the
    /// shelf for them. Refused, in this order: someone is waiting, the limit is reached, too early.
    /// The renewal runs from the due date, or from today for a loan already overdue.
    public func renewal(dueAt: Date, renewals: Int, now: Date, waiting: Int) throws(CirculationError) -> Date {
        guard waiting == 0 else { throw .renewalWaitedFor(waiting: waiting) }
        guard renewals < maxRenewals else { throw .renewalLimitReached(maxRenewals) }
        if let window = renewWindowDays {
            let dueDay = calendar.startOfDay(for: dueAt)
            let opens = calendar.date(byAdding: .day, value: -window, to: dueDay)!
            guard now >= opens else { throw .renewalTooEarly(opensOn: opens) }
        }
        return try dueDate(from: max(dueAt, now), days: renewalDays ?? loanPeriodDays)
    }

    /// The Gregorian calendar in the library's time zone.
    public var calendar: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The last second of the day `day` (year, month, day) in the library's time zone.
    public func endOfDay(_ day: DateComponents) -> Date? {
        var components = DateComponents(year: day.year, month: day.month, day: day.day)
        components.timeZone = timeZone
        guard let start = calendar.date(from: components) else { return nil }
        return calendar.date(byAdding: DateComponents(day: 1, second: -1), to: start)
    }

    /// The due date of a loan starting `now`: an explicit due day wins, then an explicit number of
    /// days, then the library's loan period. Either way the loan is due at the end of its due day in
    /// the library's time zone, so it is never overdue on the day it is due. An explicit date that is
    /// a day alone (midnight UTC: "2026-12-01") is that day; any other moment is the day it falls on
    /// in the library's time zone.
    public func dueDate(from now: Date, days: Int? = nil, explicit: Date? = nil) throws(CirculationError) -> Date {
        if let explicit {
            var utc = Calendar(identifier: .gregorian)
            utc.timeZone = TimeZone(identifier: "UTC")!
            let time = utc.dateComponents([.hour, .minute, .second, .nanosecond], from: explicit)
            let dayOnly = time.hour == 0 && time.minute == 0 && time.second == 0 && (time.nanosecond ?? 0) < 1_000_000
            let day = (dayOnly ? utc : calendar).dateComponents([.year, .month, .day], from: explicit)
            guard let due = endOfDay(day), due > now else { throw .dueDateInPast }
            // Due today at the earliest, at most a year ahead.
            let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: due)).day ?? 0
            guard days <= LoanPolicy.loanPeriodRange.upperBound else { throw .loanPeriodOutOfRange(days) }
            return due
        }
        let period = days ?? loanPeriodDays
        guard LoanPolicy.loanPeriodRange.contains(period) else { throw .loanPeriodOutOfRange(period) }
        let dueDay = calendar.date(byAdding: .day, value: period, to: calendar.startOfDay(for: now))!
        return endOfDay(calendar.dateComponents([.year, .month, .day], from: dueDay))!
    }
}

/// A loan is overdue once its due date has passed and it has not come back.
public func isOverdue(dueAt: Date, returnedAt: Date?, now: Date) -> Bool {
    returnedAt == nil && dueAt < now
}

/// Whole days a loan is overdue at `now`, 0 when it is not.
public func daysOverdue(dueAt: Date, now: Date) -> Int {
    guard dueAt < now else { return 0 }
    return Int((now.timeIntervalSince(dueAt) / 86_400).rounded(.up))
}

/// Why a circulation or catalog change cannot be made. Each case reads as a sentence for the user.
public enum CirculationError: Error, Equatable, Sendable, CustomStringConvertible {
    case noCopyAvailable(title: String)
    case memberNotFound(String)
    case titleIsWishlistItem
    case loanAlreadyReturned
    case dueDateInPast
    case loanPeriodOutOfRange(Int)
    case copiesBelowOnLoan(requested: Int, onLoan: Int)
    case titleHasCopiesOnLoan(Int)
    case copyOnLoan
    case renewalLimitReached(Int)
    /// A renewal asked for earlier than the library allows (`LoanPolicy.renewWindowDays` before the due day).
    case renewalTooEarly(opensOn: Date)
    /// Members wait for this title and no other copy is on the shelf: the copy must come back.
    case renewalWaitedFor(waiting: Int)

    public var description: String {
        switch self {
        case .noCopyAvailable(let title): "No copy of “\(title)” is available: every copy is on loan."
        case .memberNotFound(let card): "No member has the card ID \(card)."
        case .titleIsWishlistItem: "This title is on the wishlist and has no copies to lend yet."
        case .loanAlreadyReturned: "This loan has already been returned."
        case .dueDateInPast: "The due date must be in the future."
        case .loanPeriodOutOfRange(let d): "A loan lasts 1 to 365 days, not \(d)."
        case .copiesBelowOnLoan(let requested, let onLoan):
            "Cannot reduce to \(requested) copies: \(onLoan) are on loan. Return them first."
        case .titleHasCopiesOnLoan(let n):
            "This title cannot be deleted: \(n) \(n == 1 ? "copy is" : "copies are") on loan. Return \(n == 1 ? "it" : "them") first."
        case .copyOnLoan: "This copy is on loan: return it first."
        case .renewalLimitReached(let max): "This loan has been renewed the maximum of \(max) times."
        case .renewalTooEarly(let opensOn): "This loan can be renewed from \(opensOn.formatted(date: .abbreviated, time: .omitted)) on."
        case .renewalWaitedFor(let waiting): "\(waiting) \(waiting == 1 ? "member is" : "members are") waiting for this book: it cannot be renewed."
        }
    }
}

/// Plans a change of a title's copy count: which copies to add, or which available copies to
/// remove, never removing one that is on loan.
public enum CopyCountPlan: Equatable, Sendable {
    case unchanged
    case add(Int)
    case remove(Int)

    public static func plan(current: Availability, requestedTotal: Int) throws(CirculationError) -> CopyCountPlan {
        if requestedTotal < current.onLoan || requestedTotal < 0 {
            throw .copiesBelowOnLoan(requested: requestedTotal, onLoan: current.onLoan)
        }
        if requestedTotal == current.total { return .unchanged }
        return requestedTotal > current.total ? .add(requestedTotal - current.total) : .remove(current.total - requestedTotal)
    }
}
