import Foundation
import ShelfmarkCore
import Testing

/// Recurring jobs' periods: the latest passed moment in the library's time zone is the one
/// period a run belongs to.
@Suite struct ScheduleTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func date(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    @Test func aDailyJobsPeriodIsTheLastDayWhoseHourHasPassedThere() {
        let daily = Schedule.daily(at: 7)
        // 05:59 UTC is 06:59 in Berlin (winter): today's 07:00 has not come, so yesterday's period.
        #expect(daily.period(at: date("2026-11-25T05:59:00Z"), in: berlin).key == "2026-11-24")
        let now = daily.period(at: date("2026-11-25T06:00:00Z"), in: berlin)
        #expect(now.key == "2026-11-25")
        #expect(now.start == date("2026-11-25T06:00:00Z"))
        // The same instant is another day in Auckland (UTC+13).
        #expect(daily.period(at: date("2026-11-25T06:00:00Z"), in: TimeZone(identifier: "Pacific/Auckland")!).key == "2026-11-25")
        #expect(daily.period(at: date("2026-11-24T17:59:00Z"), in: TimeZone(identifier: "Pacific/Auckland")!).key == "2026-11-24")
        #expect(daily.next(after: date("2026-11-25T06:00:00Z"), in: berlin) == date("2026-11-26T06:00:00Z"))
    }

    @Test func aWeeklyJobsPeriodIsItsWeekdaysDate() {
        let mondays = Schedule.weekly(on: 2, at: 8, 30)
        // Wednesday 25 November 2026: the last Monday 08:30 was the 23rd.
        #expect(mondays.period(at: date("2026-11-25T12:00:00Z"), in: berlin).key == "2026-11-23")
        #expect(mondays.period(at: date("2026-11-23T07:29:00Z"), in: berlin).key == "2026-11-16")
        #expect(mondays.next(after: date("2026-11-25T12:00:00Z"), in: berlin) == date("2026-11-30T07:30:00Z"))
    }

    @Test func anHourTheClocksSkipRunsRightAfterTheGap() {
        // 29 March 2026, Berlin: 02:00 → 03:00. A job at 02:30 runs at 03:00 local (01:00 UTC), once.
        let night = Schedule.daily(at: 2, 30)
        let spring = night.period(at: date("2026-03-29T01:00:00Z"), in: berlin)
        #expect(spring.key == "2026-03-29")
        #expect(spring.start == date("2026-03-29T01:00:00Z"))
        #expect(night.period(at: date("2026-03-29T00:59:00Z"), in: berlin).key == "2026-03-28")
        // 25 October 2026: 03:00 → 02:00, 02:30 happens twice; the day still has one period.
        let autumn = night.period(at: date("2026-10-25T02:00:00Z"), in: berlin)
        #expect(autumn.key == "2026-10-25")
    }
}
