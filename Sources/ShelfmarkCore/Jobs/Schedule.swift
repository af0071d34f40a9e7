import Foundation

/// When a recurring job runs: every day, or every week on one weekday, at a wall-clock time in the
/// library's time zone. Runs are counted by *period*: the day (or week) whose scheduled moment has
/// passed. A period runs once: whoever records its key first (`period(at:in:)`), on any instance,
/// runs it; a server that was down over several periods runs only the latest one when it is back.
public struct Schedule: Sendable, Equatable, Codable {
    public enum Every: Sendable, Equatable, Codable {
        case day
        /// 1 = Sunday … 7 = Saturday (Foundation's numbering).
        case week(weekday: Int)
    }

    public var every: Every
    public var hour: Int
    public var minute: Int

    public init(every: Every, hour: Int, minute: Int = 0) {
        precondition((0..<24).contains(hour) && (0..<60).contains(minute), "a time of day")
        if case .week(let weekday) = every { precondition((1...7).contains(weekday), "a weekday 1…7") }
        (self.every, self.hour, self.minute) = (every, hour, minute)
    }

    public static func daily(at hour: Int, _ minute: Int = 0) -> Schedule { Schedule(every: .day, hour: hour, minute: minute) }
    public static func weekly(on weekday: Int, at hour: Int, _ minute: Int = 0) -> Schedule {
        Schedule(every: .week(weekday: weekday), hour: hour, minute: minute)
    }

    /// The latest period whose scheduled moment is at or before `now`: its key (the local date of that
    /// moment, `2026-11-25`) and the moment itself.
    public func period(at now: Date, in zone: TimeZone) -> (key: String, start: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        // Today's (or this weekday's) moment, stepping back a day at a time until one has passed.
        var day = calendar.startOfDay(for: now)
        for _ in 0..<15 {
            if matches(day, calendar), let moment = moment(on: day, calendar), moment <= now {
                return (Self.key(day, calendar), moment)
            }
            day = calendar.date(byAdding: .day, value: -1, to: day).map { calendar.startOfDay(for: $0) } ?? day.addingTimeInterval(-86_400)
        }
        return (Self.key(day, calendar), day)
    }

    /// The first scheduled moment after `now`.
    public func next(after now: Date, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = calendar.startOfDay(for: now)
        for _ in 0..<15 {
            if matches(day, calendar), let moment = moment(on: day, calendar), moment > now { return moment }
            day = calendar.date(byAdding: .day, value: 1, to: day).map { calendar.startOfDay(for: $0) } ?? day.addingTimeInterval(86_400)
        }
        return day
    }

    private func matches(_ day: Date, _ calendar: Calendar) -> Bool {
        switch every {
        case .day: true
        case .week(let weekday): calendar.component(.weekday, from: day) == weekday
        }
    }

    /// The wall-clock time on `day`; on a day when that time does not exist (the clocks go forward
    /// through it) the first moment after the gap.
    private func moment(on day: Date, _ calendar: Calendar) -> Date? {
        var parts = calendar.dateComponents([.year, .month, .day], from: day)
        parts.hour = hour
        parts.minute = minute
        if let exact = calendar.date(from: parts), calendar.component(.hour, from: exact) == hour, calendar.isDate(exact, inSameDayAs: day) {
            return exact
        }
        return calendar.nextDate(after: day, matching: DateComponents(hour: hour, minute: minute), matchingPolicy: .nextTime)
    }

    private static func key(_ day: Date, _ calendar: Calendar) -> String {
        let p = calendar.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d", p.year ?? 0, p.month ?? 0, p.day ?? 0)
    }
}
