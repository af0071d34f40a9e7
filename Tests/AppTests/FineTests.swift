@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor

/// Fines are off by default; when on, a late return is charged per day after the grace
/// days, capped per loan, or suspends the member instead; a balance is paid in part or in full and
/// waived with a reason; lending (and renewing) stops at the library's limit; all of it in the activity log.
@Suite struct FineTests {
    @Test func lateReturnsAreChargedPaidWaivedAndBlockLendingAtTheLimit() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            // setup: two books, one member, 14-day loans; the owner signs in with an API token, which
            // does not end after 30 days as a session does (this test lets three months pass)
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let volunteerSession = try await f.staff("vol", role: "volunteer")
            let volunteer = Client(app: app, token: try await volunteerSession.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let momo = try await f.addTitle("Momo", copies: 2)
            let holes = try await f.addTitle("Holes", copies: 1)
            let mia = try await f.addMember("S012", "Mia")
            let fines = "\(f.lib)/members/\(mia)/fines"

            // Off by default: a late return costs nothing.
            let first = try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo])
            clock.advance(days: 20)
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": first.string("copyBarcode")]).status == .ok)
            var account = try await owner.get(fines)
            #expect(account["balance"] as? Int == 0 && account["mode"] as? String == "off")

            // MUT: 0.20 a day after 2 grace days, at most 3.00 a loan, no lending from 5.00 owed
            let settings = try await owner.patch(f.lib, ["fineMode": "money", "finePerDay": 20, "fineGraceDays": 2, "fineCap": 300,
                                                          "fineBlockAt": 500, "currency": "eur"])
            #expect(settings.status == .ok, "\(settings.json)")
            #expect(settings["currency"] as? String == "EUR" && settings["fineCap"] as? Int == 300)
            let a = try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo])
            let b = try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": holes])
            clock.advance(days: 14 + 7)  // 7 days late: (7 − 2) × 0.20 = 1.00 each
            account = try await owner.get(fines)
            #expect(account["accruing"] as? Int == 200, "\(account)")
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": a.string("copyBarcode")]).status == .ok)
            clock.advance(days: 30)  // 37 days late: capped at 3.00
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": b.string("copyBarcode")]).status == .ok)
            account = try await owner.get(fines)
            #expect(account["balance"] as? Int == 400 && account["accruing"] as? Int == 0, "\(account)")
            let charges = (account["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "charge" }
            #expect(charges.compactMap { $0["amount"] as? Int }.sorted() == [100, 300])
            #expect(Set(charges.compactMap { $0["title"] as? String }) == ["Momo", "Holes"])

            // Under the limit Mia still borrows; one more late book takes her to 5.00 and lending stops.
            let c = try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": holes])
            #expect(c.status == .created)
            clock.advance(days: 14 + 7)
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": c.string("copyBarcode")]).status == .ok)
            let refused = try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo])
            #expect(refused.status == .conflict && refused.errorCode == "fines_owed", "\(refused.json)")
            let german = try await owner.send(.POST, "\(f.lib)/checkouts/preview", ["cardId": "S012", "titleId": momo], headers: ["Accept-Language": "de"])
            #expect(german.errorCode == "fines_owed")
            #expect(german.errorMessage?.contains("5,00") == true && german.errorMessage?.contains("€") == true, "\(german.errorMessage ?? "")")

            // Paying: more than owed is refused; part, then a waiver of the rest by a librarian with a reason.
            let tooMuch = try await owner.post("\(fines)/payments", ["amount": 501])
            #expect(tooMuch.status == .conflict && tooMuch.errorCode == "more_than_owed")
            let paid = try await volunteer.post("\(fines)/payments", ["amount": 150])
            #expect(paid.status == .ok && paid["balance"] as? Int == 350, "\(paid.json)")
            #expect(paid["blocked"] as? Bool == false)
            #expect(try await volunteer.post("\(fines)/waivers", ["reason": "first time"]).status == .forbidden)
            let noReason = try await owner.post("\(fines)/waivers", ["reason": "  "])
            #expect(noReason.status == .unprocessableEntity && noReason.errorField == "reason")
            let waived = try await owner.post("\(fines)/waivers", ["reason": "Lost in the flood"])
            #expect(waived.status == .ok && waived["balance"] as? Int == 0, "\(waived.json)")
            let kinds = (waived["entries"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
            #expect(kinds.filter { $0 == "charge" }.count == 3 && kinds.contains("payment") && kinds.contains("waiver"))
            #expect(try await owner.post("\(fines)/payments", [:]).errorCode == "nothing_owed")
            #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo]).status == .created)

            // validate: every charge, payment and waiver is in the activity log
            let activity = try await owner.get("\(f.lib)/activity?limit=100").array.compactMap { $0["type"] as? String }
            #expect(activity.filter { $0 == "fine_charged" }.count == 3)
            #expect(activity.contains("fine_paid") && activity.contains("fine_waived"))
            // Another library's member has no fines here.
            #expect(try await owner.get("\(f.lib)/members/\(UUID())/fines").status == .notFound)

            // A backup keeps the policy and the ledger: restored as a new library, Mia's lines are all there.
            let before = try await owner.get(fines)
            let backup = try await owner.get("\(f.lib)/backup")
            let restore = try await app.testing().sendRequest(.POST, "/api/v1/libraries/restore?name=Copy",
                                                              headers: ["Authorization": "Bearer \(owner.token!)", "Content-Type": "application/json"],
                                                              body: backup.body)
            let restored = try await owner.finished(Client.Reply(status: restore.status, body: restore.body, headers: restore.headers))
            let copyID = try #require((restored["library"] as? [String: Any])?["id"] as? String, "\(restored.json)")
            let copy = try await owner.get("/api/v1/libraries/\(copyID)")
            #expect(copy["fineMode"] as? String == "money" && copy["fineBlockAt"] as? Int == 500 && copy["currency"] as? String == "EUR")
            let copyMia = try await owner.get("/api/v1/libraries/\(copyID)/members?q=S012").array.first?["id"] as? String
            let after = try await owner.get("/api/v1/libraries/\(copyID)/members/\(try #require(copyMia))/fines")
            #expect(after["balance"] as? Int == before["balance"] as? Int)
            func lines(_ account: Client.Reply) -> [String] {
                (account["entries"] as? [[String: Any]] ?? []).map { "\($0["kind"] ?? "") \($0["amount"] ?? "") \($0["title"] ?? "") \($0["reason"] ?? "")" }.sorted()
            }
            #expect(lines(after) == lines(before) && lines(after).count == 5)
        }
    }

    @Test func suspensionInsteadOfMoneyStopsLendingAndRenewingUntilItEnds() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let momo = try await f.addTitle("Momo", copies: 3)
            let ben = try await f.addMember("S020", "Ben")
            #expect(try await owner.patch(f.lib, ["fineMode": "suspension", "fineSuspensionDays": 2]).status == .ok)
            let late = try await owner.post("\(f.lib)/checkouts", ["cardId": "S020", "titleId": momo])
            let other = try await owner.post("\(f.lib)/checkouts", ["cardId": "S020", "titleId": momo])
            clock.advance(days: 14 + 3)  // 3 days late: 6 days without borrowing
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": late.string("copyBarcode")]).status == .ok)
            let account = try await owner.get("\(f.lib)/members/\(ben)/fines")
            let backup = try Backup.decode(Data(buffer: try await owner.get("\(f.lib)/backup").body))
            #expect(backup.members.first?.suspended_until != nil && backup.library.fine_mode == "suspension")
            #expect(account["balance"] as? Int == 0 && account["blocked"] as? Bool == true && account["suspendedUntil"] as? String != nil)
            let refused = try await owner.post("\(f.lib)/checkouts", ["cardId": "S020", "titleId": momo])
            #expect(refused.status == .conflict && refused.errorCode == "member_suspended", "\(refused.json)")
            let renewal = try await owner.post("\(f.lib)/loans/\(other.string("id"))/renew")
            #expect(renewal.status == .conflict && renewal.errorCode == "member_suspended")
            clock.advance(days: 7)
            #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": "S020", "titleId": momo]).status == .created)
            let activity = try await owner.get("\(f.lib)/activity?limit=100").array.compactMap { $0["type"] as? String }
            #expect(activity.contains("member_suspended"))
            // A book back very late: a suspension longer than a loan can last (about 420 days) is made, not refused.
            #expect(try await owner.patch(f.lib, ["fineSuspensionDays": 30]).status == .ok)
            let long = try await owner.post("\(f.lib)/checkouts", ["cardId": "S020", "titleId": momo, "days": 1])
            clock.advance(days: 15)
            let back = try await owner.post("\(f.lib)/returns", ["copyBarcode": long.string("copyBarcode")])
            #expect(back.status == .ok, "\(back.json)")
            let until = try await owner.get("\(f.lib)/members/\(ben)/fines")["suspendedUntil"] as? String
            let date = try #require(until.flatMap { try? Date($0, strategy: .iso8601) })
            #expect(date.timeIntervalSince(clock.now) > 366 * 86_400)
        }
    }

    @Test func settingsAreBounded() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["finePerDay": 2_000_000]).errorField == "finePerDay")
            #expect(try await f.owner.patch(f.lib, ["fineGraceDays": -1]).errorField == "fineGraceDays")
            #expect(try await f.owner.patch(f.lib, ["currency": "EURO"]).errorField == "currency")
            #expect(try await f.owner.patch(f.lib, ["fineMode": "jail"]).status == .badRequest)
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.patch(f.lib, ["fineMode": "money"]).status == .forbidden)
        }
    }

    /// The settings page switches fines on; the member page shows the balance and takes a payment and a
    /// waiver, in the reader's language (German here).
    @Test func aReturnButtonOfAListConfirmsAsTheReturnPageWithTheFineItCharges() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 1)
            let mia = try await f.addMember("S012", "Mia")
            #expect(try await f.owner.patch(f.lib, ["fineMode": "money", "finePerDay": 50]).status == .ok)
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo, "days": 1])
            clock.advance(days: 1 + 4)  // 4 days late: 2.00
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            // The Return page says what the return will charge …
            let desk = try await browser.get("\(web)/return?barcode=\(loan.string("copyBarcode"))")
            #expect(desk.html.contains("4 days overdue · returning it now charges €2.00"), "\(desk.html)")
            // … and the member page's Return button asks the same before it returns.
            let member = "\(web)/members/\(mia)"
            let asked = try await browser.post("\(web)/loans/\(loan.string("id"))/return", ["back": member])
            #expect(asked.status == .ok && asked.html.contains("returning it now charges €2.00") && asked.html.contains("Mia (S012)"))
            #expect(try await f.owner.get("\(f.lib)/members/\(mia)/fines")["balance"] as? Int == 0, "nothing returned or charged yet")
            let done = try await browser.post("\(web)/loans/\(loan.string("id"))/return", ["back": member, "confirmed": "true"])
            #expect(done.status == .seeOther && done.location == member)
            #expect(try await f.owner.get("\(f.lib)/members/\(mia)/fines")["balance"] as? Int == 200)
            // Pressed again (a second tab): back already, so it says so instead of asking.
            let again = try await browser.post("\(web)/loans/\(loan.string("id"))/return", ["back": member])
            #expect(again.status == .seeOther)
        }
    }

    @Test func theMemberPageTakesPaymentsAndWaivesInTheReadersLanguage() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            // setup: a late return charged by the API
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 1)
            let mia = try await f.addMember("S012", "Mia")
            #expect(try await f.owner.patch(f.lib, ["fineMode": "money", "finePerDay": 50]).status == .ok)
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S012", "titleId": momo, "days": 1])
            clock.advance(days: 1 + 4)  // 4 days late: 2,00 €
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")]).status == .ok)

            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            let settings = try await browser.get("\(web)/settings")
            #expect(settings.html.contains("Gebühren") && settings.html.contains("value=\"0,50\""))
            #expect(settings.html.contains("<option value=\"money\" selected"))
            let member = "\(web)/members/\(mia)"
            var page = try await browser.get(member)
            #expect(page.html.contains("Schuldet 2,00"), "\(page.html)")

            // MUT: pay 1,50, then waive the rest with a reason
            let paid = try await browser.post("\(member)/fines/pay", ["amount": "1,50"])
            #expect(paid.status == .seeOther && paid.location == member + "#fines")
            page = try await browser.get(member)
            #expect(page.html.contains("Zahlung von 1,50"), "\(page.html)")
            #expect(page.html.contains("Schuldet 0,50"))
            let bad = try await browser.post("\(member)/fines/pay", ["amount": "zwei"])
            #expect(bad.status == .seeOther)
            page = try await browser.get(member)
            #expect(page.html.contains("flash error"))
            _ = try await browser.post("\(member)/fines/waive", ["reason": "Erste Verspätung"])
            page = try await browser.get(member)

            // validate: nothing owed, the ledger in German
            #expect(page.html.contains("Schuldet nichts") && page.html.contains("Erlassen · Erste Verspätung"), "\(page.html)")
            let account = try await f.owner.get("\(f.lib)/members/\(mia)/fines")
            #expect(account["balance"] as? Int == 0)

            // The settings form: a fine that is not an amount is refused next to its field; a good one is saved.
            var form = ["name": "Room 12", "loanPeriodDays": "14", "maxRenewals": "2", "holdPickupDays": "7", "fineMode": "suspension",
                        "finePerDay": "abc", "fineGraceDays": "1", "fineSuspensionDays": "3", "currency": "gbp"]
            let refused = try await browser.post("\(web)/settings", form)
            #expect(refused.status == .unprocessableEntity && refused.html.contains("value=\"abc\""))
            form["finePerDay"] = "0,10"
            #expect(try await browser.post("\(web)/settings", form).status == .seeOther)
            let library = try await f.owner.get(f.lib)
            #expect(library["fineMode"] as? String == "suspension" && library["finePerDay"] as? Int == 10 && library["currency"] as? String == "GBP")
            #expect(library["fineSuspensionDays"] as? Int == 3 && library["fineCap"] == nil)
        }
    }
}
