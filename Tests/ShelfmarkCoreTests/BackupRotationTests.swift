import Foundation
import ShelfmarkCore
import Testing

/// The nightly backups' rotation, over a simulated year: what it promises (7 daily, 4 weekly, 12
/// monthly) is exactly what is left, whether it prunes every night or once.
@Suite struct BackupRotationTests {
    let zone = TimeZone(identifier: "Europe/Dublin")!

    func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    var calendar: Calendar {
        var c = Calendar(identifier: .iso8601)
        c.timeZone = zone
        return c
    }

    /// Every night at 02:00 Dublin time from `start` for `days` days, pruning after each backup as the
    /// nightly job does: what is on the disk at the end.
    func nightly(from start: String, days: Int, rotation: BackupRotation, skipping: Set<Int> = []) -> [Date] {
        var disk: [Date] = []
        let first = date(start)
        for day in 0..<days where !skipping.contains(day) {
            disk.append(calendar.date(byAdding: .day, value: day, to: first)!)
            disk = rotation.keep(disk, in: zone)
            #expect(disk.count <= rotation.most)
        }
        return disk
    }

    @Test func aYearOfNightlyBackupsKeepsSevenDaysFourWeeksAndTwelveMonths() {
        let rotation = BackupRotation()
        // 2026-01-01 … 2026-12-31 (a Thursday), each at 02:00 in Dublin (winter and summer time).
        let kept = nightly(from: "2026-01-01T02:00:00Z", days: 365, rotation: rotation)
        let days = Set(kept.map { calendar.dateComponents([.year, .month, .day], from: $0) }.map { "\($0.year!)-\($0.month!)-\($0.day!)" })
        // The seven newest nights: 25 … 31 December.
        for d in 25...31 { #expect(days.contains("2026-12-\(d)"), "31 December's week: \(d)") }
        // The newest of each of the four newest weeks (Monday to Sunday): the week of 28 December is
        // still open (its newest is the 31st); then Sundays 27, 20 and 13 December.
        for d in [27, 20, 13] { #expect(days.contains("2026-12-\(d)"), "a week's Sunday: \(d)") }
        // The newest of each of the twelve newest months: the last day of January … November, and 31 December.
        for (month, last) in [(1, 31), (2, 28), (3, 31), (4, 30), (5, 31), (6, 30), (7, 31), (8, 31), (9, 30), (10, 31), (11, 30)] {
            #expect(days.contains("2026-\(month)-\(last)"), "the end of month \(month)")
        }
        // And nothing else: 7 nights, the Sundays 20 and 13 December (the 27th is one of the nights, the open
        // week's newest too) and 11 month ends (December's newest is a night).
        #expect(kept.count == 20, "\(days.sorted())")
        // Pruning once at the end keeps the same as pruning every night.
        var all: [Date] = []
        for day in 0..<365 { all.append(calendar.date(byAdding: .day, value: day, to: date("2026-01-01T02:00:00Z"))!) }
        #expect(rotation.keep(all, in: zone) == kept)
    }

    @Test func aServerOffForAFortnightStillKeepsSevenDailyBackups() {
        let rotation = BackupRotation(daily: 7, weekly: 0, monthly: 0)
        // 40 nights, the machine off on nights 20 … 33.
        let kept = nightly(from: "2026-03-01T02:00:00Z", days: 40, rotation: rotation, skipping: Set(20...33))
        #expect(kept.count == 7)
        // Nights 34 … 39 and the last before the gap (night 19).
        #expect(kept.last == calendar.date(byAdding: .day, value: 19, to: date("2026-03-01T02:00:00Z")))
    }

    @Test func twoBackupsOnOneDayKeepTheNewerAndTheNewestIsAlwaysKept() {
        let rotation = BackupRotation(daily: 1, weekly: 0, monthly: 0)
        let morning = date("2026-05-04T02:00:00Z"), noon = date("2026-05-04T11:00:00Z"), before = date("2026-05-03T02:00:00Z")
        #expect(rotation.keep([before, morning, noon], in: zone) == [noon])
        #expect(rotation.keep([], in: zone) == [])
        #expect(BackupRotation(daily: 1, weekly: 0, monthly: 0).keep([before], in: zone) == [before])
    }
}
