import Foundation

/// Which backups a rotation keeps: the newest of each of the last `daily` days that have one, of the
/// last `weekly` weeks and of the last `monthly` months (days, weeks and months of `zone`'s calendar;
/// weeks from Monday). A backup kept for two reasons counts for both. The newest backup is always
/// kept. Counting days that *have* a backup (not calendar days back from today) means a server that
/// was off for a fortnight still keeps seven daily backups, not none.
public struct BackupRotation: Sendable, Equatable, Codable {
    public var daily: Int
    public var weekly: Int
    public var monthly: Int

    public static let dailyRange = 1...60
    public static let weeklyRange = 0...52
    public static let monthlyRange = 0...120

    public init(daily: Int = 7, weekly: Int = 4, monthly: Int = 12) {
        (self.daily, self.weekly, self.monthly) = (daily, weekly, monthly)
    }

    /// The backups to keep of `backups` (their times, in any order): a subset, newest first.
    public func keep(_ backups: [Date], in zone: TimeZone) -> [Date] {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = zone
        let newestFirst = backups.sorted(by: >)
        guard let newest = newestFirst.first else { return [] }
        var kept: Set<Date> = [newest]
        func keepNewestOfEach(_ count: Int, _ bucket: (Date) -> DateComponents) {
            var seen: [DateComponents] = []
            for date in newestFirst where seen.count < count {
                let key = bucket(date)
                if seen.last != key {
                    seen.append(key)
                    kept.insert(date)
                }
            }
        }
        keepNewestOfEach(daily) { calendar.dateComponents([.year, .month, .day], from: $0) }
        keepNewestOfEach(weekly) { calendar.dateComponents([.yearForWeekOfYear, .weekOfYear], from: $0) }
        keepNewestOfEach(monthly) { calendar.dateComponents([.year, .month], from: $0) }
        return newestFirst.filter { kept.contains($0) }
    }

    /// The most backups the rotation ever keeps.
    public var most: Int { daily + weekly + monthly }
}
