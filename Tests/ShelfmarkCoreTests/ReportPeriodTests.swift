import Foundation
import ShelfmarkCore
import Testing

/// A report's period in the library's calendar: the named periods on a given day, a range of days,
/// and the months or weeks it is counted in.
@Suite struct ReportPeriodTests {
    let calendar: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Berlin")!
        c.firstWeekday = 2
        return c
    }()

    func day(_ y: Int, _ m: Int, _ d: Int) -> Date { calendar.date(from: DateComponents(year: y, month: m, day: d))! }

    @Test func theSchoolYearStartsOnTheFirstOfAugustLastPassed() throws {
        let november = try ReportPeriod.resolve(.schoolYear, now: day(2026, 11, 27).addingTimeInterval(3600 * 15), calendar: calendar)
        #expect(november.start == day(2026, 8, 1) && november.end == day(2026, 11, 28))
        #expect(november.buckets(calendar).count == 4)
        let march = try ReportPeriod.resolve(.schoolYear, now: day(2027, 3, 3), calendar: calendar)
        #expect(march.start == day(2026, 8, 1))
        let last = try ReportPeriod.resolve(.lastSchoolYear, now: day(2027, 3, 3), calendar: calendar)
        #expect(last.start == day(2025, 8, 1) && last.end == day(2026, 8, 1) && last.buckets(calendar).count == 12)
        // A southern-hemisphere school starts its year in February.
        let south = try ReportPeriod.resolve(.schoolYear, now: day(2027, 1, 10), calendar: calendar, schoolYearStartMonth: 2)
        #expect(south.start == day(2026, 2, 1))
    }

    @Test func termsBeginInAugustJanuaryAndApril() throws {
        let autumn = try ReportPeriod.resolve(.thisTerm, now: day(2026, 11, 27), calendar: calendar)
        #expect(autumn.start == day(2026, 8, 1) && autumn.end == day(2026, 11, 28))
        let before = try ReportPeriod.resolve(.lastTerm, now: day(2026, 11, 27), calendar: calendar)
        #expect(before.start == day(2026, 4, 1) && before.end == day(2026, 8, 1))
        let spring = try ReportPeriod.resolve(.lastTerm, now: day(2027, 1, 1), calendar: calendar)
        #expect(spring.start == day(2026, 8, 1) && spring.end == day(2027, 1, 1))
        let summer = try ReportPeriod.resolve(.thisTerm, now: day(2027, 7, 31), calendar: calendar)
        #expect(summer.start == day(2027, 4, 1))
        #expect(ReportPeriod.termMonths(schoolYearStartMonth: 9) == [1, 4, 9])
        #expect(ReportPeriod.termMonths(schoolYearStartMonth: 2) == [2, 6, 10])
        let south = try ReportPeriod.resolve(.lastTerm, now: day(2027, 3, 1), calendar: calendar, schoolYearStartMonth: 2)
        #expect(south.start == day(2026, 10, 1) && south.end == day(2027, 2, 1))
    }

    @Test func monthsAndWeeksAreCutToThePeriod() throws {
        let range = try ReportPeriod.resolve(.custom, from: DateComponents(year: 2026, month: 3, day: 15), to: DateComponents(year: 2026, month: 5, day: 2),
                                             now: day(2026, 11, 1), calendar: calendar)
        let months = range.buckets(calendar)
        #expect(months.map(\.start) == [day(2026, 3, 15), day(2026, 4, 1), day(2026, 5, 1)])
        #expect(months.last?.end == day(2026, 5, 3))
        var weekly = range
        weekly.grouping = .week
        let weeks = weekly.buckets(calendar)
        // 15 March 2026 is a Sunday: its week began on Monday the 9th, cut to the 15th.
        #expect(weeks.first == ReportPeriod.Bucket(start: day(2026, 3, 15), end: day(2026, 3, 16)))
        #expect(weeks.dropFirst().allSatisfy { calendar.component(.weekday, from: $0.start) == 2 })
        #expect(weeks.count == 8 && weeks.last == ReportPeriod.Bucket(start: day(2026, 4, 27), end: day(2026, 5, 3)))
    }

    @Test func aPeriodThatCannotBeCountedIsRefused() {
        let now = day(2026, 11, 1)
        #expect(throws: ReportPeriod.Problem.badRange) {
            try ReportPeriod.resolve(.custom, from: DateComponents(year: 2026, month: 5, day: 2), to: DateComponents(year: 2026, month: 5, day: 1),
                                     now: now, calendar: calendar)
        }
        #expect(throws: ReportPeriod.Problem.tooLong(maxYears: 10)) {
            try ReportPeriod.resolve(.custom, from: DateComponents(year: 2000, month: 1, day: 1), to: DateComponents(year: 2026, month: 1, day: 1),
                                     now: now, calendar: calendar)
        }
        #expect(throws: ReportPeriod.Problem.tooManyBuckets(max: 160)) {
            try ReportPeriod.resolve(.custom, from: DateComponents(year: 2020, month: 1, day: 1), to: DateComponents(year: 2026, month: 1, day: 1),
                                     grouping: .week, now: now, calendar: calendar)
        }
        #expect(throws: ReportPeriod.Problem.customNeedsDays) { try ReportPeriod.resolve(.custom, now: now, calendar: calendar) }
    }
}
