@testable import App
import Fluent
import Foundation
import Testing
import Vapor

@Suite struct CirculationTests {
    /// Check out by card ID, return by barcode; the loan is closed and kept; both are logged.
    @Test func checkoutAndReturnAreLoggedAndKept() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602")
            try await f.addMember("S12345", "Ada", "Lovelace")
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S12345", "isbn": "978-3-522-20260-2"])
            #expect(loan.status == .created)
            #expect(loan.string("memberName") == "Ada Lovelace")
            let due = try #require(ISO8601DateFormatter().date(from: loan.string("dueAt")))
            #expect(abs(due.timeIntervalSinceNow - 14 * 86_400) < 86_400 + 60)

            let detail = try await f.owner.get("\(f.lib)/titles/\(title)")
            #expect((detail["availability"] as? [String: Any])?["available"] as? Int == 0)
            #expect((detail["loans"] as? [[String: Any]])?.first?["memberCardId"] as? String == "S12345")

            let returned = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")])
            #expect(returned.status == .ok)
            #expect(returned["returnedAt"] is String)
            let again = try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/return")
            #expect(again.status == .conflict)
            #expect(again.errorCode == "already_returned")

            #expect(try await Loan.query(on: app.db).count() == 1)
            #expect(try await f.owner.get("\(f.lib)/loans").array.isEmpty)
            let member = try await f.owner.get("\(f.lib)/members/\(loan.string("memberId"))")
            #expect((member["history"] as? [Any])?.count == 1)
            let log = try await f.owner.get("\(f.lib)/activity").array
            #expect(log.prefix(2).compactMap { $0["type"] as? String } == ["return_book", "checkout"])
            #expect(log[0]["actor"] as? String == "owner")
            #expect(log[1]["memberCardId"] as? String == "S12345")
            #expect(log[1]["author"] as? String == "Michael Ende")
            let returns = try await f.owner.get("\(f.lib)/activity?type=return_book").array
            #expect(returns.count == 1)
        }
    }

    @Test func checkoutRefusesClearly() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S1", "Ada")
            let unknown = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S999", "titleId": title])
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "member_not_found")
            #expect(unknown.errorMessage == "No member has the card ID S999.")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title]).status == .created)
            let none = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            #expect(none.status == .conflict)
            #expect(none.errorCode == "no_copy_available")
            #expect(none.errorMessage?.contains("Momo") == true)
            let past = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title, "dueDate": "2001-01-01"])
            #expect(past.errorField == "dueDate")
            let days = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title, "days": 400])
            #expect(days.errorField == "days")
            #expect(try await Loan.query(on: app.db).count() == 1)
        }
    }

    @Test func dueDateFromDaysOrDateOrLibrarySetting() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 3)
            try await f.addMember("S1", "Ada")
            #expect(try await f.owner.patch(f.lib, ["loanPeriodDays": 21, "timeZone": "America/New_York"])["loanPeriodDays"] as? Int == 21)
            let badZone = try await f.owner.send(.PATCH, f.lib, ["timeZone": "Mars/Olympus"])
            #expect(badZone.status == .unprocessableEntity || badZone.status == .badRequest)
            let byDefault = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            let byDays = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title, "days": 7])
            let day = String(ISO8601DateFormatter().string(from: Date().addingTimeInterval(100 * 86_400)).prefix(10))
            let byDate = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title, "dueDate": day])
            // A due date is bounded like a loan period: at most a year ahead.
            let tooFar = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title, "dueDate": "2099-06-30"])
            #expect(tooFar.status == .unprocessableEntity)
            let iso = ISO8601DateFormatter()
            let d21 = try #require(iso.date(from: byDefault.string("dueAt"))).timeIntervalSinceNow / 86_400
            let d7 = try #require(iso.date(from: byDays.string("dueAt"))).timeIntervalSinceNow / 86_400
            #expect((20...22).contains(d21))
            #expect((6...8).contains(d7))
            // A typed day is due at the end of that day in the library's zone: 23:59:59 in New York
            // (04:59:59 or 03:59:59 UTC the next day), never the day's first moment.
            let due = try #require(iso.date(from: byDate.string("dueAt")))
            var newYork = Calendar(identifier: .gregorian)
            newYork.timeZone = TimeZone(identifier: "America/New_York")!
            let local = newYork.dateComponents([.year, .month, .day, .hour, .minute, .second], from: due)
            #expect(String(format: "%04d-%02d-%02d", local.year!, local.month!, local.day!) == day, "\(local)")
            #expect(local.hour == 23 && local.minute == 59 && local.second == 59)
        }
    }

    /// Overdue is past due and not returned; the return reports the days overdue.
    @Test func overdueLoansAreFlaggedAndReturnedWithDaysOverdue() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let late = try await f.addTitle("Late Book")
            let fine = try await f.addTitle("On Time Book")
            try await f.addMember("S1", "Ada")
            let lateLoan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": late, "days": 7])
            clock.advance(days: 5)
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": fine, "days": 14])
            clock.advance(days: 5)

            let loans = try await f.owner.get("\(f.lib)/loans").array
            #expect(loans.compactMap { $0["title"] as? String } == ["Late Book", "On Time Book"])
            #expect(loans.compactMap { $0["overdue"] as? Bool } == [true, false])
            #expect(try await f.owner.get("\(f.lib)/loans?overdue=true").array.count == 1)
            #expect(try await f.owner.get("\(f.lib)/dashboard")["overdue"] as? Int == 1)
            let overdueTitles = try await f.owner.get("\(f.lib)/titles?overdue=true")
            #expect((overdueTitles["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [late])

            let returned = try await f.owner.post("\(f.lib)/loans/\(lateLoan.string("id"))/return")
            #expect(returned["overdue"] as? Bool == false)
            #expect(returned["daysOverdue"] as? Int == 3)
            #expect(try await f.owner.get("\(f.lib)/activity?type=return_book").array.first?["info"] as? String == "3 days overdue")
        }
    }

    @Test func renewalsStopAtTheLibraryLimit() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo")
            try await f.addMember("S1", "Ada")
            _ = try await f.owner.patch(f.lib, ["maxRenewals": 1])
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            let renewed = try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/renew")
            #expect(renewed.status == .ok)
            #expect(renewed["renewals"] as? Int == 1)
            #expect(renewed.string("dueAt") > loan.string("dueAt"))
            #expect(try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/renew").errorCode == "renewal_limit")
        }
    }

    /// Deleting a member with loans out needs confirmation, returns the books and keeps the history.
    @Test func deletingAMemberWithLoansReturnsThemAndKeepsHistory() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo")
            let member = try await f.addMember("S1", "Ada", "Lovelace")
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            let refused = try await f.owner.delete("\(f.lib)/members/\(member)")
            #expect(refused.status == .conflict)
            #expect(refused.errorCode == "member_has_loans")
            #expect(try await Member.query(on: app.db).count() == 1)

            #expect(try await f.owner.delete("\(f.lib)/members/\(member)?confirm=true").status == .noContent)
            #expect(try await Member.query(on: app.db).count() == 0)
            let loans = try await Loan.query(on: app.db).all()
            #expect(loans.count == 1)
            #expect(loans[0].returnedAt != nil)
            #expect(loans[0].memberCardID == "S1")
            #expect(loans[0].memberName == "Ada Lovelace")
            let detail = try await f.owner.get("\(f.lib)/titles/\(title)")
            #expect((detail["availability"] as? [String: Any])?["available"] as? Int == 1)
            let types = try await f.owner.get("\(f.lib)/activity").array.prefix(2).compactMap { $0["type"] as? String }
            #expect(types == ["delete_member", "return_book"])
        }
    }

    @Test func membersAreSearchedByCardOrNameAndCardsAreUnique() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S12345", "Siobhán", "Ní Bhriain")
            try await f.addMember("S22222", "Ben", "Okafor")
            try await f.addMember("S33333", "小明", "王")
            let dup = try await f.owner.post("\(f.lib)/members", ["cardId": "S12345", "firstName": "Other"])
            #expect(dup.status == .conflict)
            #expect(dup.errorField == "cardId")
            let badEmail = try await f.owner.post("\(f.lib)/members", ["cardId": "S3", "firstName": "X", "email": "nope"])
            #expect(badEmail.errorField == "email")
            func cards(_ q: String) async throws -> [String] {
                try await f.owner.get("\(f.lib)/members?q=\(q)").array.compactMap { $0["cardId"] as? String }
            }
            #expect(try await cards("s123") == ["S12345"])
            #expect(try await cards("siobhan") == ["S12345"])
            #expect(try await cards("bhr") == ["S12345"])
            #expect(try await cards("oka") == ["S22222"])
            #expect(try await cards("hriain") == [])
            #expect(try await cards("小明".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!) == ["S33333"])
            #expect(try await cards("明".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!) == ["S33333"])
        }
    }
}

/// The last copy is never lent twice, whatever the concurrency.
@Suite struct NoDoubleLendingTests {
    @Test func manyConcurrentCheckoutsOfThreeCopiesMakeExactlyThreeLoans() async throws {
        try await withTestApp { app in
            // setup
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Popular", copies: 3)
            for i in 0..<10 { try await f.addMember("S\(i)", "Reader \(i)") }
            // MUT
            let statuses = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for i in 0..<60 {
                    group.addTask {
                        try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S\(i % 10)", "titleId": title]).status
                    }
                }
                return try await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
            }
            // validate
            #expect(statuses.filter { $0 == .created }.count == 3)
            #expect(statuses.filter { $0 == .conflict }.count == 57)
            let loans = try await Loan.query(on: app.db).filter(\.$returnedAt == nil).all()
            #expect(loans.count == 3)
            #expect(Set(loans.compactMap { $0.$copy.id }).count == 3)
            #expect(try await Copy.query(on: app.db).filter(\.$status == "on_loan").count() == 3)
        }
    }

    @Test func concurrentCheckoutsOfOneCopyByBarcode() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.owner.post("\(f.lib)/titles", ["title": "Single", "copies": 1])
            let barcode = try #require((title["copies"] as? [[String: Any]])?.first?["barcode"] as? String)
            try await f.addMember("S1", "Ada")
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "copyBarcode": barcode]).status == .created }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(created == 1)
            #expect(try await Loan.query(on: app.db).count() == 1)
        }
    }

    /// Lends and returns of the same copies raced at full speed (over HTTP, through the
    /// request's clock): every copy's loans follow one another in time, a loan never starting before
    /// the one before it ended, and each ends after it began.
    @Test func racedLendsAndReturnsNeverOverlapOnACopy() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let created = try await f.owner.post("\(f.lib)/titles", ["title": "Busy", "copies": 2])
            let barcodes = try #require((created["copies"] as? [[String: Any]])?.compactMap { $0["barcode"] as? String })
            #expect(barcodes.count == 2)
            for i in 0..<4 { try await f.addMember("S\(i)", "Reader \(i)") }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for round in 0..<15 {
                            let barcode = barcodes[(worker + round) % 2]
                            if worker % 2 == 0 {
                                _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S\(worker % 4)", "copyBarcode": barcode])
                            } else {
                                _ = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": barcode])
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let loans = try await Loan.query(on: app.db).all()
            #expect(loans.count >= 4, "the race lent and returned")
            for copyLoans in Dictionary(grouping: loans, by: { $0.$copy.id }).values {
                let ordered = copyLoans.sorted { $0.checkedOutAt < $1.checkedOutAt }
                #expect(ordered.dropLast().allSatisfy { $0.returnedAt != nil }, "only the last loan of a copy is open")
                for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                    let ended = try #require(earlier.returnedAt)
                    #expect(ended >= earlier.checkedOutAt)
                    #expect(later.checkedOutAt >= ended, "a loan began at \(later.checkedOutAt) before the one before it ended at \(ended)")
                }
            }
        }
    }
}
