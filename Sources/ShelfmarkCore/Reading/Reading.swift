import Foundation

/// A read's status. A re-read is a new read; status follows progress.
public enum ReadStatus: String, Codable, Sendable, CaseIterable {
    case wantToRead = "want_to_read"
    case reading
    case finished
    case didNotFinish = "did_not_finish"
}

/// What one progress event says: the page reached, the percentage reached, or pages read since.
public enum ProgressUnit: String, Codable, Sendable, CaseIterable {
    case page
    case percent
    case pagesRead = "pages_read"
}

/// One progress event as recorded (append-only; events are ordered by when they happened, not by
/// when they reached the server, so an offline client's late events fall into place).
public struct ProgressEntry: Equatable, Sendable {
    public var at: Date
    public var kind: ProgressUnit
    /// The page, the percentage or the number of pages; nil for a page label alone ("ix").
    public var value: Int?
    /// Free text for a page that is not a number ("ix", "A-3"), shown instead of the number.
    public var label: String?

    public init(at: Date, kind: ProgressUnit, value: Int?, label: String? = nil) {
        self.at = at
        self.kind = kind
        self.value = value
        self.label = label
    }

    public static let labelMaxLength = 20
}

/// Where a read stands after its events.
public struct ReadPosition: Equatable, Sendable {
    /// The page reached, when known (from a page, from "+N" or from a percentage of a known length).
    public var page: Int?
    /// The label of the last event, when it had one.
    public var label: String?
    /// 0…1: how much of the book is read, when it can be said.
    public var fraction: Double?

    public init(page: Int? = nil, label: String? = nil, fraction: Double? = nil) {
        self.page = page
        self.label = label
        self.fraction = fraction
    }

    /// Whole percent, rounded down (a book at 99.6 % is not finished).
    public var percent: Int? { fraction.map { Int(($0 * 100).rounded(.down)) } }
}

public enum ReadingRules {
    /// A read's position after its events (in time order). A finished read counts as 100 % whatever
    /// its events say; a page count makes pages and percentages interchangeable.
    public static func position(of entries: [ProgressEntry], pageCount: Int?, status: ReadStatus) -> ReadPosition {
        let pages = pageCount.flatMap { $0 > 0 ? $0 : nil }
        var page: Int? = nil
        var fraction: Double? = nil
        var label: String? = nil
        for entry in entries {
            label = entry.label
            guard let value = entry.value else { continue }
            switch entry.kind {
            case .page:
                page = value
                fraction = pages.map { min(1, Double(value) / Double($0)) }
            case .percent:
                let f = min(1, max(0, Double(value) / 100))
                fraction = f
                page = pages.map { Int((Double($0) * f).rounded()) }
            case .pagesRead:
                let p = (page ?? 0) + value
                page = pages.map { min($0, p) } ?? p
                fraction = pages.map { min(1, Double(p) / Double($0)) }
            }
        }
        if status == .finished {
            fraction = 1
            if let pages { page = pages }
        }
        return ReadPosition(page: page, label: label, fraction: fraction)
    }

    /// The status after progress: the first progress starts a want-to-read (or resumes a stopped)
    /// read; reaching the last page or 100 % finishes it. A finished read stays finished.
    public static func status(after position: ReadPosition, was current: ReadStatus) -> ReadStatus {
        if current == .finished { return .finished }
        if let f = position.fraction, f >= 1 { return .finished }
        let moved = (position.page ?? 0) > 0 || (position.fraction ?? 0) > 0 || position.label != nil
        if moved && (current == .wantToRead || current == .didNotFinish) { return .reading }
        return current
    }

    /// The pages each event added (its position minus the one before, never negative), for the
    /// pages-per-month chart, the streak and the reading speed. A finished read's pages not covered
    /// by events count on its finish day.
    public static func pagesRead(by entries: [ProgressEntry], pageCount: Int?, finishedAt: Date?) -> [(at: Date, pages: Int)] {
        let gains = gains(of: entries, pageCount: pageCount)
        var result = zip(entries, gains).filter { $0.1 > 0 }.map { (at: $0.0.at, pages: $0.1) }
        let covered = gains.reduce(0, +)
        if let finishedAt, let pages = pageCount, pages > covered { result.append((finishedAt, pages - covered)) }
        return result
    }

    /// The pages each event added, aligned with `entries` (0 for an event that added none: a label, a
    /// page going back). Stored with each event so statistics sum them without reading every event.
    public static func gains(of entries: [ProgressEntry], pageCount: Int?) -> [Int] {
        let pages = pageCount.flatMap { $0 > 0 ? $0 : nil }
        var last = 0
        var page: Int? = nil
        return entries.map { entry in
            guard let value = entry.value else { return 0 }
            switch entry.kind {
            case .page: page = value
            case .percent: page = pages.map { Int((Double($0) * min(1, Double(value) / 100)).rounded()) }
            case .pagesRead: page = (page ?? last) + value
            }
            guard let p = page else { return 0 }
            let bounded = pages.map { min($0, p) } ?? p
            guard bounded > last else { return 0 }
            defer { last = bounded }
            return bounded - last
        }
    }

    /// A moment's day number in `zone` (days since 1970-01-01 there): the key of a reading day.
    public static func dayNumber(_ date: Date, in zone: TimeZone) -> Int {
        Int(((date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))) / 86_400).rounded(.down))
    }

    /// Pages per day between a read's first and last progress (at least one day), nil when it cannot
    /// be said (fewer than two page positions, or no pages gained).
    public static func pagesPerDay(_ entries: [ProgressEntry], pageCount: Int?) -> Double? {
        let gains = pagesRead(by: entries, pageCount: pageCount, finishedAt: nil)
        guard gains.count >= 2, let first = gains.first, let last = gains.last else { return nil }
        let pages = gains.dropFirst().reduce(0) { $0 + $1.pages }
        let days = max(1, last.at.timeIntervalSince(first.at) / 86_400)
        return pages > 0 ? Double(pages) / days : nil
    }

    /// The same pace from a read's stored gains: `events` that added pages, `pages` they added in all,
    /// `firstGain` the first one's pages, between `first` and `last`.
    public static func pagesPerDay(events: Int, pages: Int, firstGain: Int, first: Date, last: Date) -> Double? {
        guard events >= 2 else { return nil }
        let gained = pages - firstGain
        let days = max(1, last.timeIntervalSince(first) / 86_400)
        return gained > 0 ? Double(gained) / days : nil
    }

    /// When a current read will be finished at its pace: nil without a pace or a page count.
    public static func projectedFinish(position: ReadPosition, pageCount: Int?, pagesPerDay: Double?, now: Date) -> Date? {
        guard let pageCount, pageCount > 0, let speed = pagesPerDay, speed > 0 else { return nil }
        let remaining = Double(pageCount - (position.page ?? 0))
        guard remaining > 0 else { return now }
        return now.addingTimeInterval((remaining / speed).rounded(.up) * 86_400)
    }
}

/// A yearly goal and how the year is going against it.
public struct GoalPace: Equatable, Sendable {
    public var target: Int
    public var done: Int
    /// What should be done by now to be on pace (whole units, rounded down).
    public var expected: Int
    /// done − expected: positive ahead of pace, negative behind.
    public var ahead: Int { done - expected }
    public var fraction: Double { target > 0 ? min(1, Double(done) / Double(target)) : 0 }

    /// Pace through `year` at `now` in `calendar`'s time zone: a year that has not begun expects
    /// nothing, one that has ended expects the whole target.
    public init(target: Int, done: Int, year: Int, now: Date, calendar: Calendar) {
        self.target = target
        self.done = done
        let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
        let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
        let elapsed = min(max(now.timeIntervalSince(start), 0), end.timeIntervalSince(start))
        self.expected = Int((Double(target) * elapsed / end.timeIntervalSince(start)).rounded(.down))
    }
}

/// Reading days in a row up to today (or up to yesterday while today has none yet).
public enum ReadingStreak {
    /// `days` are day numbers (days since an epoch, in the reader's zone); `today` likewise.
    public static func current(days: Set<Int>, today: Int) -> Int {
        var day = days.contains(today) ? today : today - 1
        var count = 0
        while days.contains(day) { count += 1; day -= 1 }
        return count
    }

    public static func longest(days: Set<Int>) -> Int {
        var best = 0
        for day in days where !days.contains(day - 1) {
            var n = 1
            while days.contains(day + n) { n += 1 }
            best = max(best, n)
        }
        return best
    }
}
