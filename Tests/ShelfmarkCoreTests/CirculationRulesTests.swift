import Foundation
import ShelfmarkCore
import Testing

@Suite struct CirculationRulesTests {
    let utc: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }()
    let now = Date(timeIntervalSince1970: 1_795_000_000) // 2026-11-18 ~09:46 UTC

    /// Availability derives from copy statuses; lost and withdrawn copies do not count.
    @Test func availabilityFromStatuses() {
        let a = Availability(statuses: [.available, .onLoan, .onLoan, .lost, .withdrawn, .available])
        #expect(a == Availability(total: 4, available: 2, onLoan: 2))
        #expect(Availability(statuses: []) == Availability(total: 0, available: 0, onLoan: 0))
    }

    /// Due at the end of the day, loan period days from today; days or a date override it.
    @Test func dueDates() throws {
        let policy = LoanPolicy(timeZone: TimeZone(identifier: "UTC")!)
        let due = try policy.dueDate(from: now)
        #expect(utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: due) ==
                DateComponents(year: 2026, month: 12, day: 2, hour: 23, minute: 59, second: 59))
        let week = try policy.dueDate(from: now, days: 7)
        #expect(utc.component(.day, from: week) == 25)
        #expect(throws: CirculationError.dueDateInPast) { try policy.dueDate(from: now, explicit: now.addingTimeInterval(-86_400)) }
        #expect(throws: CirculationError.loanPeriodOutOfRange(0)) { try policy.dueDate(from: now, days: 0) }
        #expect(throws: CirculationError.loanPeriodOutOfRange(366)) { try policy.dueDate(from: now, days: 366) }
    }

    /// A day typed in the date field ("2026-11-21", which decodes as midnight UTC) is due at
    /// the end of that day in the library's time zone, so the loan is not overdue on its due day; a
    /// quick pick (days) ends at the same moment; today is a valid due day.
    @Test func aTypedDueDayEndsAtMidnightInTheLibrarysTimeZone() throws {
        for zone in ["UTC", "America/Los_Angeles", "Pacific/Auckland", "Europe/Dublin"] {
            let tz = TimeZone(identifier: zone)!
            let policy = LoanPolicy(timeZone: tz)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = tz
            let today = calendar.dateComponents([.year, .month, .day], from: now)
            let typedDay = calendar.date(byAdding: .day, value: 3, to: calendar.date(from: today)!)!
            var utcDay = calendar.dateComponents([.year, .month, .day], from: typedDay)
            utcDay.timeZone = TimeZone(identifier: "UTC")
            let typed = Calendar(identifier: .gregorian).date(from: utcDay)!  // what the form's "yyyy-mm-dd" decodes to
            let due = try policy.dueDate(from: now, explicit: typed)
            let local = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: due)
            #expect(local.day == utcDay.day && local.hour == 23 && local.minute == 59 && local.second == 59, "\(zone): \(local)")
            // Not overdue at any moment of its due day, overdue the moment after.
            let lastMorning = calendar.date(bySettingHour: 8, minute: 0, second: 0, of: typedDay)!
            #expect(!isOverdue(dueAt: due, returnedAt: nil, now: lastMorning))
            #expect(isOverdue(dueAt: due, returnedAt: nil, now: due.addingTimeInterval(1)))
            #expect(try policy.dueDate(from: now, days: 3) == due, "\(zone)")
            // Due today is allowed; yesterday is in the past.
            let todayTyped = Calendar(identifier: .gregorian).date(from: DateComponents(timeZone: TimeZone(identifier: "UTC"), year: today.year,
                                                                                       month: today.month, day: today.day))!
            #expect(try policy.dueDate(from: now, explicit: todayTyped) > now)
            #expect(throws: CirculationError.dueDateInPast) { try policy.dueDate(from: now, explicit: todayTyped.addingTimeInterval(-86_400)) }
        }
    }

    /// Overdue is past due and not returned.
    @Test func overdue() {
        let due = now.addingTimeInterval(-1)
        #expect(isOverdue(dueAt: due, returnedAt: nil, now: now))
        #expect(!isOverdue(dueAt: due, returnedAt: now, now: now))
        #expect(!isOverdue(dueAt: now.addingTimeInterval(60), returnedAt: nil, now: now))
        #expect(daysOverdue(dueAt: now.addingTimeInterval(-1), now: now) == 1)
        #expect(daysOverdue(dueAt: now.addingTimeInterval(-3 * 86_400), now: now) == 3)
        #expect(daysOverdue(dueAt: now.addingTimeInterval(10), now: now) == 0)
    }

    /// Never fewer copies than are on loan.
    @Test func copyCountPlans() throws {
        let current = Availability(total: 3, available: 1, onLoan: 2)
        #expect(try CopyCountPlan.plan(current: current, requestedTotal: 3) == .unchanged)
        #expect(try CopyCountPlan.plan(current: current, requestedTotal: 5) == .add(2))
        #expect(try CopyCountPlan.plan(current: current, requestedTotal: 2) == .remove(1))
        #expect(throws: CirculationError.copiesBelowOnLoan(requested: 1, onLoan: 2)) {
            try CopyCountPlan.plan(current: current, requestedTotal: 1)
        }
    }

    @Test func messagesReadAsSentences() {
        #expect(CirculationError.titleHasCopiesOnLoan(1).description.contains("1 copy is on loan"))
        #expect(CirculationError.titleHasCopiesOnLoan(2).description.contains("2 copies are on loan"))
        #expect(CirculationError.noCopyAvailable(title: "Momo").description.contains("“Momo”"))
    }

    /// Each role includes the rights of those below it.
    @Test func roles() {
        #expect(Role.viewer.may(.read))
        #expect(!Role.viewer.may(.circulate))
        #expect(Role.volunteer.may(.circulate))
        #expect(!Role.volunteer.may(.catalog))
        #expect(Role.librarian.may(.catalog) && Role.librarian.may(.manageMembers))
        #expect(!Role.librarian.may(.administer))
        #expect(Role.owner.may(.administer))
    }
}
