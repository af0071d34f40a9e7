import Foundation
import ShelfmarkCore
import Testing

/// RFC 5545 as a calendar app reads it: CRLF lines of at most 75 octets, folded without splitting a
/// character, escaped text, all-day events with a stable UID and a sequence.
@Suite struct ICalendarTests {
    @Test func linesAreFoldedAt75OctetsWithoutSplittingACharacter() {
        let long = "SUMMARY:" + String(repeating: "王小明借的书 ", count: 20)
        let folded = ICalendar.fold(long)
        let parts = folded.components(separatedBy: "\r\n")
        #expect(parts.count > 1)
        #expect(parts.allSatisfy { $0.utf8.count <= 75 }, "\(parts.map(\.utf8.count))")
        #expect(parts.dropFirst().allSatisfy { $0.hasPrefix(" ") })
        // Unfolding gives the line back.
        #expect(parts.enumerated().map { $0.offset == 0 ? $0.element : String($0.element.dropFirst()) }.joined() == long)
    }

    @Test func textIsEscapedAndEventsAreAllDay() {
        #expect(ICalendar.escape("Momo; or, \\the\nend\u{07}") == "Momo\\; or\\, \\\\the\\nend")
        let feed = ICalendar(name: "Seán Ó Briain", events: [
            ICalendar.Event(uid: "loan-1@shelfmark", year: 2026, month: 12, day: 31, summary: "Due: Momo", sequence: 2),
        ], stamp: Date(timeIntervalSince1970: 0)).render()
        #expect(feed.hasPrefix("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"))
        #expect(feed.hasSuffix("END:VCALENDAR\r\n"))
        #expect(feed.contains("DTSTART;VALUE=DATE:20261231\r\nDTEND;VALUE=DATE:20270101\r\n"))
        #expect(feed.contains("SEQUENCE:2\r\n") && feed.contains("DTSTAMP:19700101T000000Z\r\n"))
        #expect(feed.contains("REFRESH-INTERVAL;VALUE=DURATION:PT6H\r\n"))
        #expect(!feed.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
    }

    @Test func theRenewalPolicyDecides() throws {
        var policy = LoanPolicy(loanPeriodDays: 14, maxRenewals: 2, timeZone: TimeZone(identifier: "Europe/Dublin")!)
        policy.renewWindowDays = 3
        policy.renewalDays = 7
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let due = try policy.dueDate(from: now)
        #expect(throws: CirculationError.renewalWaitedFor(waiting: 2)) { try policy.renewal(dueAt: due, renewals: 0, now: now, waiting: 2) }
        #expect(throws: CirculationError.renewalLimitReached(2)) { try policy.renewal(dueAt: due, renewals: 2, now: now, waiting: 0) }
        let early = Result { try policy.renewal(dueAt: due, renewals: 0, now: now, waiting: 0) }
        guard case .failure(let error) = early, case .renewalTooEarly(let opens) = error as? CirculationError else {
            Issue.record("a renewal 14 days early was allowed: \(early)")
            return
        }
        #expect(opens < due && due.timeIntervalSince(opens) < 4 * 86_400)
        let late = now.addingTimeInterval(12 * 86_400)
        let renewed = try policy.renewal(dueAt: due, renewals: 1, now: late, waiting: 0)
        #expect(abs(renewed.timeIntervalSince(due) - 7 * 86_400) < 3_700)
        // Overdue: from today, not from the old due date.
        let overdue = due.addingTimeInterval(10 * 86_400)
        #expect(try policy.renewal(dueAt: due, renewals: 0, now: overdue, waiting: 0) > overdue.addingTimeInterval(6 * 86_400))
    }
}
