import Foundation

/// The stretch of time a report covers, in the library's calendar: a named period ("this month",
/// "this school year") or a range of days, and the months or weeks it is counted in.
public struct ReportPeriod: Sendable, Equatable {
    public enum Preset: String, Sendable, CaseIterable, Codable {
        case thisMonth = "this-month"
        case lastMonth = "last-month"
        /// The school year so far: from the first of `schoolYearStartMonth` (August by default) last passed.
        case schoolYear = "school-year"
        case lastSchoolYear = "last-school-year"
        /// The term so far, and the one before it (`termMonths`: by default from the first of August,
        /// January and April).
        case thisTerm = "this-term"
        case lastTerm = "last-term"
        case thisYear = "this-year"
        case last12Months = "last-12-months"
        case custom
    }

    public enum Grouping: String, Sendable, CaseIterable, Codable {
        case month, week
    }

    /// A month or week of the period: its first moment and the first moment after it.
    public struct Bucket: Sendable, Equatable {
        public var start: Date
        public var end: Date
        public init(start: Date, end: Date) { (self.start, self.end) = (start, end) }
    }

    public enum Problem: Error, Equatable {
        /// `from` after `to`, or a range longer than `maxYears`.
        case badRange
        case tooLong(maxYears: Int)
        /// More weeks than a table can show (weeks of a range over `maxBuckets`).
        case tooManyBuckets(max: Int)
        case customNeedsDays
    }

    /// At most ten years, and 160 months or weeks (three years of weeks).
    public static let maxYears = 10
    public static let maxBuckets = 160

    public var preset: Preset
    /// The first moment of the first day and the first moment after the last day.
    public var start: Date
    public var end: Date
    public var grouping: Grouping

    /// The period `preset` names on `now` (or the days `from`–`to`, both included, for `custom`).
    public static func resolve(_ preset: Preset, from: DateComponents? = nil, to: DateComponents? = nil, grouping: Grouping = .month,
                               now: Date, calendar: Calendar, schoolYearStartMonth: Int = 8) throws -> ReportPeriod {
        let today = calendar.startOfDay(for: now)
        let tomorrow = calendar.date(byAdding: .day, value: 1, to: today)!
        let thisMonth = calendar.date(from: calendar.dateComponents([.year, .month], from: today))!
        let thisYear = calendar.date(from: calendar.dateComponents([.year], from: today))!
        let schoolStart: Date = {
            var c = calendar.dateComponents([.year, .month], from: today)
            if c.month! < schoolYearStartMonth { c.year! -= 1 }
            c.month = schoolYearStartMonth
            c.day = 1
            return calendar.date(from: c)!
        }()
        let (start, end): (Date, Date)
        switch preset {
        case .thisMonth: (start, end) = (thisMonth, tomorrow)
        case .lastMonth: (start, end) = (calendar.date(byAdding: .month, value: -1, to: thisMonth)!, thisMonth)
        case .schoolYear: (start, end) = (schoolStart, tomorrow)
        case .lastSchoolYear: (start, end) = (calendar.date(byAdding: .year, value: -1, to: schoolStart)!, schoolStart)
        case .thisTerm: (start, end) = (termStart(of: today, calendar: calendar, schoolYearStartMonth: schoolYearStartMonth), tomorrow)
        case .lastTerm:
            let current = termStart(of: today, calendar: calendar, schoolYearStartMonth: schoolYearStartMonth)
            let before = calendar.date(byAdding: .day, value: -1, to: current)!
            (start, end) = (termStart(of: before, calendar: calendar, schoolYearStartMonth: schoolYearStartMonth), current)
        case .thisYear: (start, end) = (thisYear, tomorrow)
        case .last12Months: (start, end) = (calendar.date(byAdding: .month, value: -11, to: thisMonth)!, tomorrow)
        case .custom:
            guard let from, let to, let first = calendar.date(from: from), let last = calendar.date(from: to) else { throw Problem.customNeedsDays }
            let (a, b) = (calendar.startOfDay(for: first), calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: last))!)
            guard a < b else { throw Problem.badRange }
            guard b <= calendar.date(byAdding: .year, value: maxYears, to: a)! else { throw Problem.tooLong(maxYears: maxYears) }
            (start, end) = (a, b)
        }
        let period = ReportPeriod(preset: preset, start: start, end: end, grouping: grouping)
        guard period.buckets(calendar).count <= maxBuckets else { throw Problem.tooManyBuckets(max: maxBuckets) }
        return period
    }

    /// The months terms begin in, in calendar order: a year starting in July to October has its terms
    /// from then, January and April (autumn, spring, summer); a year starting in another month is cut
    /// in thirds (February: February, June, October).
    public static func termMonths(schoolYearStartMonth: Int = 8) -> [Int] {
        if (7...10).contains(schoolYearStartMonth) { return [1, 4, schoolYearStartMonth] }
        return [0, 4, 8].map { (schoolYearStartMonth - 1 + $0) % 12 + 1 }.sorted()
    }

    /// The first day of the term `day` is in.
    public static func termStart(of day: Date, calendar: Calendar, schoolYearStartMonth: Int = 8) -> Date {
        let c = calendar.dateComponents([.year, .month], from: day)
        let months = termMonths(schoolYearStartMonth: schoolYearStartMonth)
        if let month = months.last(where: { $0 <= c.month! }) {
            return calendar.date(from: DateComponents(year: c.year!, month: month, day: 1))!
        }
        return calendar.date(from: DateComponents(year: c.year! - 1, month: months.last!, day: 1))!
    }

    /// The months (or weeks, from the calendar's first weekday) the period touches, each cut to the period.
    public func buckets(_ calendar: Calendar) -> [Bucket] {
        var result: [Bucket] = []
        let unit: Calendar.Component = grouping == .month ? .month : .weekOfYear
        var cursor = grouping == .month
            ? calendar.date(from: calendar.dateComponents([.year, .month], from: start))!
            : calendar.dateInterval(of: .weekOfYear, for: start)!.start
        while cursor < end, result.count <= Self.maxBuckets {
            let next = calendar.date(byAdding: unit, value: 1, to: cursor)!
            result.append(Bucket(start: max(cursor, start), end: min(next, end)))
            cursor = next
        }
        return result
    }

    /// The last day the period includes (for "1 Aug 2026 – 27 Nov 2026").
    public func lastDay(_ calendar: Calendar) -> Date { calendar.date(byAdding: .day, value: -1, to: end)! }
}
