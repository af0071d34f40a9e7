@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor

/// Reports count what the library did: loans and returns by month, class, category and shelf; holds;
/// money; the weeding list. Their totals stay when a member is deleted (counted, not named) and a
/// loan stays with the class its borrower was in when it was lent.
@Suite struct ReportTests {
    /// 10 March 2026, noon UTC (the test library's time zone is the server's, UTC here).
    static let march10 = Date(timeIntervalSince1970: 1_773_144_000)

    private func rows(_ report: Client.Reply, _ key: String) -> [[Any]] {
        let tables = report["tables"] as? [[String: Any]] ?? []
        guard let table = tables.first(where: { $0["key"] as? String == key }) else {
            Issue.record("no table \(key) in \(tables.map { $0["key"] ?? "?" })")
            return []
        }
        return (table["rows"] as? [[[String: Any]]] ?? []).map { $0.map { $0["text"] ?? $0["number"] ?? NSNull() } }
    }

    /// A table's rows as label → the number in column `column`.
    private func counts(_ report: Client.Reply, _ key: String, column: Int = 1) -> [String: Int] {
        Dictionary(rows(report, key).map { (($0[0] as? String) ?? "", Int(($0[column] as? Double) ?? -1)) }, uniquingKeysWith: +)
    }

    @Test func circulationCountsWhatWasLentAndReturnedAndSurvivesTheBorrowersDeletion() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            for (card, name, grade) in [("S1", "Ada", "3A"), ("S2", "Ben", "3A"), ("S3", "Cem", "4B")] {
                #expect(try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": name, "grade": grade]).status == .created)
            }
            let momo = try await f.addTitle("Momo", copies: 2, extra: ["categories": ["Fantasy"], "location": "Fiction"])
            let holes = try await f.addTitle("Holes", extra: ["categories": ["Adventure"], "location": "Fiction"])
            let atlas = try await f.addTitle("Atlas", extra: ["location": "Non-fiction"])
            func lend(_ card: String, _ title: String) async throws -> String {
                let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": title])
                #expect(loan.status == .created, "\(loan.json)")
                return loan.string("copyBarcode")
            }
            func giveBack(_ barcode: String) async throws {
                #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": barcode]).status == .ok)
            }
            // March: Ada borrows Momo, Cem the atlas (never returned). April: Momo back late, Ben borrows
            // it, Ada borrows Holes and brings it back in time.
            let adaMomo = try await lend("S1", momo)
            _ = try await lend("S3", atlas)
            clock.advance(days: 23)
            try await giveBack(adaMomo)
            _ = try await lend("S2", momo)
            let adaHoles = try await lend("S1", holes)
            clock.advance(days: 5)
            try await giveBack(adaHoles)

            let path = "\(f.lib)/reports/circulation?from=2026-03-01&to=2026-04-30"
            let report = try await owner.get(path)
            #expect(report.status == .ok, "\(report.json)")
            let months = rows(report, "loansOverTime")
            #expect(months.count == 2)
            // Month, loans, returns, renewals, late, late %.
            #expect(months.map { $0.dropFirst().map { ($0 as? Double) ?? -1 } } == [[2, 0, 0, 2, 100], [2, 2, 0, 0, 0]], "\(months)")
            #expect(counts(report, "loansByClass") == ["3A": 3, "4B": 1])
            #expect(counts(report, "loansByClass", column: 2) == ["3A": 2, "4B": 1])
            let t = Strings(lang: .en)
            #expect(counts(report, "loansByCategory") == ["Fantasy": 2, "Adventure": 1, t(.noCategoryGroup): 1])
            #expect(counts(report, "loansByShelf") == ["Fiction": 3, "Non-fiction": 1])
            let summary = counts(report, "summary")
            #expect(summary[t(.reportLoans)] == 4 && summary[t(.reportReturns)] == 2 && summary[t(.reportBorrowers)] == 3, "\(summary)")

            // A class narrows every table; a month before the loans counts none.
            let third = try await owner.get(path + "&class=3A")
            #expect(counts(third, "summary")[t(.reportLoans)] == 3)
            #expect(counts(third, "loansByShelf") == ["Fiction": 3])
            let february = try await owner.get("\(f.lib)/reports/circulation?from=2026-02-01&to=2026-02-28")
            #expect(counts(february, "summary")[t(.reportLoans)] == 0)

            // Ada moves up to 4A: her loans stay with 3A. Cem is deleted with the atlas out: his loan is
            // still counted, under "former members", not under his name.
            let ada = try await owner.get("\(f.lib)/members?q=S1")
            let adaID = try #require((ada.array.first)?["id"] as? String)
            #expect(try await owner.patch("\(f.lib)/members/\(adaID)", ["grade": "4A"]).status == .ok)
            let cem = try #require((try await owner.get("\(f.lib)/members?q=S3").array.first)?["id"] as? String)
            #expect(try await owner.delete("\(f.lib)/members/\(cem)?confirm=true").status == .noContent)
            let after = try await owner.get(path)
            #expect(counts(after, "summary")[t(.reportLoans)] == 4)
            #expect(counts(after, "loansByClass") == ["3A": 3, "4B": 1])
            let readers = try await owner.get("\(f.lib)/reports/readers?from=2026-03-01&to=2026-04-30")
            let byMember = counts(readers, "byMember", column: 3)
            #expect(byMember == ["Ada": 2, "Ben": 1, t(.reportFormerMembers): 1], "\(byMember)")
            #expect(!String(buffer: readers.body).contains("Cem"))

            // The CSV has the same numbers; the PDF is a PDF.
            let csv = try await owner.get("\(f.lib)/reports/circulation.csv?from=2026-03-01&to=2026-04-30&table=loansByClass")
            #expect(csv.status == .ok && csv.headers.contentType?.subType == "csv")
            #expect(String(buffer: csv.body).contains("Class,Loans,Borrowers\r\n3A,3,2\r\n4B,1,1\r\nTotal,4,3\r\n"), "\(String(buffer: csv.body))")
            let pdf = try await owner.get("\(f.lib)/reports/circulation.pdf?from=2026-03-01&to=2026-04-30")
            #expect(pdf.status == .ok && String(buffer: pdf.body).hasPrefix("%PDF"))
        }
    }

    /// The counts kept by day, by facet and by borrower and month as lending happens answer exactly
    /// what counting the loans answers, for every filter they answer and every kind of period (across
    /// a change of summer time, a range cutting months); counting them again from the loans (what a
    /// restore does) gives the same rows; a change of the library's time zone counts them again.
    @Test func theCountsKeptAsBooksGoOutAreTheLoansCounted() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["timeZone": "Europe/Berlin"]).status == .ok)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            for (card, name, grade) in [("S1", "Ada", "3A"), ("S2", "Ben", "3A"), ("S3", "Cem", "4B"), ("S4", "Dua", "")] {
                #expect(try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": name, "grade": grade]).status == .created)
            }
            let momo = try await f.addTitle("Momo", copies: 8, extra: ["categories": ["Fantasy"], "location": "Fiction", "readingLevel": "B"])
            let holes = try await f.addTitle("Holes", copies: 8, extra: ["categories": ["Adventure", "Fantasy"], "location": "Fiction"])
            let atlas = try await f.addTitle("Atlas", copies: 8, extra: ["location": "Non-fiction", "readingLevel": "C"])
            var out: [(id: String, barcode: String)] = []
            func lend(_ card: String, _ title: String) async throws {
                let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": title])
                #expect(loan.status == .created, "\(loan.json)")
                out.append((loan.string("id"), loan.string("copyBarcode")))
            }
            func giveBack(_ i: Int) async throws {
                #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": out[i].barcode]).status == .ok)
            }
            // Ten weeks of lending, late at night and early in the morning too, over the change to summer time.
            let cards = ["S1", "S2", "S3", "S4"], titles = [momo, holes, atlas]
            for week in 0..<10 {
                try await lend(cards[week % 4], titles[week % 3])
                clock.advance(days: 0.45)
                try await lend(cards[(week + 1) % 4], titles[(week + 1) % 3])
                if week % 3 == 1 { #expect(try await owner.post("\(f.lib)/loans/\(out[out.count - 1].id)/renew").status == .ok) }
                clock.advance(days: 3.3)
                if week >= 1 { try await giveBack(2 * (week - 1)) }
                clock.advance(days: 3.25)
                if week >= 3 && week % 2 == 1 { try await giveBack(2 * (week - 3) + 1) }
            }
            let libraryID = UUID(uuidString: f.libraryID)!
            let calendar = try await {
                struct Zone: Decodable { var time_zone: String? }
                var c = Calendar(identifier: .gregorian)
                c.timeZone = Library.zone(try await app.db.sql.raw("SELECT time_zone FROM libraries WHERE id = \(bind: libraryID)")
                    .first(decoding: Zone.self)?.time_zone)
                return c
            }()
            #expect(calendar.timeZone.identifier == "Europe/Berlin")
            let now = clock.now, t = Strings(lang: .en)
            let queries = ["period=this-month", "from=2026-03-01&to=2026-05-31", "from=2026-03-05&to=2026-04-20&group=week",
                           "period=last-12-months", "from=2026-03-01&to=2026-05-31&class=3A", "from=2026-03-01&to=2026-05-31&shelf=Fiction",
                           "from=2026-03-12&to=2026-05-02&class=4B&shelf=Non-fiction"]
            var lent = 0
            for query in queries {
                for kind in [ReportKind.circulation, .readers] {
                    let options = try ReportOptions.read(query: query)
                    let kept = try await Reports.make(kind, options, library: libraryID, calendar: calendar, now: now, t: t, on: app.db)
                    let counted = try await Reports.make(kind, options, library: libraryID, calendar: calendar, now: now, t: t, fromLoans: true, on: app.db)
                    #expect(kept == counted, "\(kind) \(query)")
                    if kind == .circulation, query == "period=last-12-months" {
                        lent = Int(kept.tables.first { $0.key == "summary" }?.rows.first?[1].number ?? -1)
                    }
                }
            }
            #expect(lent == 20)

            // Counted again from the loans: the same rows.
            func tallies() async throws -> [String] {
                var rows: [String] = []
                // A category's id is kept as the database stores it: left out here, its counts compared.
                struct Day: Decodable { var facet: String; var day: Int; var value: String; var lent: Int; var returned: Int; var renewed: Int; var late: Int }
                for d in try await app.db.sql.raw("""
                    SELECT facet, day, CASE WHEN facet = 'c' AND value <> '' THEN 'some' ELSE value END AS value, lent, returned, renewed, late
                    FROM loan_days WHERE library_id = \(bind: libraryID) ORDER BY facet, day, 3, lent
                    """).all(decoding: Day.self) {
                    rows.append("d \(d.facet) \(d.day) \(d.value) \(d.lent) \(d.returned) \(d.renewed) \(d.late)")
                }
                struct Month: Decodable { var month: Int; var card: String; var grade: String; var loans: Int }
                for m in try await app.db.sql.raw("SELECT month, card, grade, loans FROM borrower_months WHERE library_id = \(bind: libraryID) ORDER BY month, card, grade").all(decoding: Month.self) {
                    rows.append("m \(m.month) \(m.card) \(m.grade) \(m.loans)")
                }
                return rows
            }
            let kept = try await tallies()
            #expect(kept.filter { $0.hasPrefix("d g ") }.count > 10 && kept.contains { $0.hasPrefix("d c ") } && kept.contains { $0.hasPrefix("d l ") })
            try await LoanTallies.recount(library: libraryID, on: app.db.sql)
            #expect(try await tallies() == kept)

            // Another time zone puts the late and early loans on other days: counted again at once.
            #expect(try await owner.patch(f.lib, ["timeZone": "America/Los_Angeles"]).status == .ok)
            var pacific = calendar
            pacific.timeZone = TimeZone(identifier: "America/Los_Angeles")!
            let options = try ReportOptions.read(query: "from=2026-03-01&to=2026-05-31&group=week")
            #expect(try await Reports.make(.circulation, options, library: libraryID, calendar: pacific, now: now, t: t, on: app.db)
                    == (try await Reports.make(.circulation, options, library: libraryID, calendar: pacific, now: now, t: t, fromLoans: true, on: app.db)))
            #expect(try await tallies() != kept)
        }
    }

    /// The collection as it stands: titles and copies by category (a book in two in both, the others
    /// under "no category"), by shelf and by level; narrowed by shelf, a title's copies are all of them.
    @Test func theCollectionCountsTitlesAndCopiesByCategoryShelfAndLevel() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", copies: 2, extra: ["categories": ["Fantasy"], "location": "Fiction", "readingLevel": "B"])
            _ = try await f.addTitle("Holes", copies: 1, extra: ["categories": ["Adventure", "Fantasy"], "location": "Fiction"])
            _ = try await f.addTitle("Atlas", copies: 3, extra: ["location": "Non-fiction", "readingLevel": "B"])
            _ = try await f.addTitle("Plain", copies: 1, extra: ["location": "Non-fiction"])
            let t = Strings(lang: .en)
            let report = try await f.owner.get("\(f.lib)/reports/collection")
            #expect(report.status == .ok, "\(report.json)")
            let summary = counts(report, "summary")
            #expect(summary[t(.reportTitles)] == 4 && summary[t(.reportCopies)] == 7, "\(summary)")
            #expect(counts(report, "byCategory") == ["Fantasy": 2, "Adventure": 1, t(.noCategoryGroup): 2])
            #expect(counts(report, "byCategory", column: 2) == ["Fantasy": 3, "Adventure": 1, t(.noCategoryGroup): 4])
            #expect(counts(report, "byShelf") == ["Fiction": 2, "Non-fiction": 2])
            #expect(counts(report, "byShelf", column: 2) == ["Fiction": 3, "Non-fiction": 4])
            #expect(counts(report, "byLevel") == ["B": 2, t(.noLevelGroup): 2])
            let shelf = try await f.owner.get("\(f.lib)/reports/collection?shelf=Non-fiction")
            #expect(counts(shelf, "byCategory", column: 2) == [t(.noCategoryGroup): 4])
            let level = try await f.owner.get("\(f.lib)/reports/collection?level=B")
            #expect(counts(level, "byCategory") == ["Fantasy": 1, t(.noCategoryGroup): 1])
            #expect(counts(level, "byCategory", column: 2) == ["Fantasy": 2, t(.noCategoryGroup): 3])
        }
    }

    @Test func finesAndHoldsStayCountedWhenTheirMembersAreDeleted() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            #expect(try await owner.patch(f.lib, ["fineMode": "money", "finePerDay": 10, "currency": "EUR"]).status == .ok)
            let mia = try await f.addMember("S1", "Mia")
            let noa = try await f.addMember("S2", "Noa")
            let momo = try await f.addTitle("Momo")
            let loan = try await owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": momo])
            #expect(try await owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S2"]).status == .created)
            clock.advance(days: 24)  // ten days late: 1.00
            #expect(try await owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")]).status == .ok)
            #expect(try await owner.post("\(f.lib)/members/\(mia)/fines/payments", ["amount": 40]).status == .ok)
            #expect(try await owner.post("\(f.lib)/members/\(mia)/fines/waivers", ["amount": 20, "reason": "first time"]).status == .ok)
            // Noa's hold is ready: a copy waits for her on the hold shelf.
            let path = "\(f.lib)/reports/money?from=2026-03-01&to=2026-04-30"
            let before = try await owner.get(path)
            let t = Strings(lang: .en)
            #expect(counts(before, "summary") == [t(.reportCharged): 100, t(.reportPaid): 40, t(.reportWaived): 20, t(.reportOwedNow): 40], "\(before.json)")
            let holds = "\(f.lib)/reports/circulation?from=2026-03-01&to=2026-04-30"
            #expect(counts(try await owner.get(holds), "summary")[t(.reportHoldsPlaced)] == 1)

            // Both leave: the money charged, paid and waived is the same; nobody owes any more; the hold
            // that waited is closed (the copy goes back to the shelf) and still counted as placed.
            #expect(try await owner.delete("\(f.lib)/members/\(mia)?confirm=true").status == .noContent)
            #expect(try await owner.delete("\(f.lib)/members/\(noa)?confirm=true").status == .noContent)
            let after = try await owner.get(path)
            #expect(counts(after, "summary") == [t(.reportCharged): 100, t(.reportPaid): 40, t(.reportWaived): 20, t(.reportOwedNow): 0], "\(after.json)")
            #expect(counts(try await owner.get(holds), "summary")[t(.reportHoldsPlaced)] == 1)
            let copies = try await owner.get("\(f.lib)/titles/\(momo)")
            #expect((copies["availability"] as? [String: Any])?["available"] as? Int == 1, "\(copies.json)")
            // The holds and fines of former members come back from a backup as they were.
            let backup = try await owner.get("\(f.lib)/backup")
            #expect(backup.status == .ok)
            let restored = try await owner.finished(try await owner.send(.POST, "\(f.lib)/restore?confirm=true", rawBody: Data(buffer: backup.body),
                                                                          contentType: "application/json"))
            #expect(restored.status == .ok, "\(restored.json)")
            #expect(counts(try await owner.get(path), "summary")[t(.reportCharged)] == 100)
            #expect(counts(try await owner.get(holds), "summary")[t(.reportHoldsPlaced)] == 1)
        }
    }

    @Test func theWeedingListFindsExactlyTheOldCopiesNobodyBorrowed() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            _ = try await f.addMember("S1", "Mia")
            let old = try await f.addTitle("Old and idle", extra: ["publishedDate": "1988", "location": "B"])
            let oldLent = try await f.addTitle("Old but loved", extra: ["publishedDate": "1990-05-01", "location": "A"])
            _ = try await f.addTitle("New and idle", extra: ["publishedDate": "2024", "location": "A"])
            _ = try await f.addTitle("Odd year", extra: ["publishedDate": "c1990", "location": "A"])
            let oldest = try await f.addTitle("Oldest", extra: ["publishedDate": "1950", "location": "A"])
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": oldLent]).status == .created)
            // The oldest one's copy was lost this year: it is not on the shelf, it is on the lost list.
            let copy = try #require(((try await f.owner.get("\(f.lib)/titles/\(oldest)"))["copies"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await f.owner.patch("\(f.lib)/copies/\(copy)", ["status": "lost"]).status == .ok)

            let report = try await f.owner.get("\(f.lib)/reports/weeding")
            #expect(report.status == .ok, "\(report.json)")
            #expect(rows(report, "weedingList").map { $0[1] as? String } == ["Old and idle"])
            #expect(rows(report, "weedingList").first?[0] as? String == "B")
            #expect(rows(report, "lostAndDamaged").map { $0[0] as? String } == ["Oldest"])
            // Five years without a loan and 40 years old: none; 0 years old: the new one too.
            #expect(rows(try await f.owner.get("\(f.lib)/reports/weeding?olderThanYears=40"), "weedingList").isEmpty)
            let all = rows(try await f.owner.get("\(f.lib)/reports/weeding?olderThanYears=0"), "weedingList").map { $0[1] as? String }
            #expect(Set(all) == ["Old and idle", "New and idle"], "\(all)")
            _ = old
        }
    }

    @Test func aReportIsForStaffWhoManageMembersAndRefusesWhatItCannotCount() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.get("\(f.lib)/reports/circulation").status == .forbidden)
            let backwards = try await f.owner.get("\(f.lib)/reports/circulation?from=2026-05-01&to=2026-04-01")
            #expect(backwards.status == .unprocessableEntity && backwards.errorField == "to", "\(backwards.json)")
            let weeks = try await f.owner.get("\(f.lib)/reports/circulation?from=2020-01-01&to=2026-01-01&group=week")
            #expect(weeks.status == .unprocessableEntity && weeks.errorField == "group", "\(weeks.json)")
            let long = try await f.owner.get("\(f.lib)/reports/money?from=2000-01-01&to=2026-01-01")
            #expect(long.status == .unprocessableEntity && long.errorField == "to")
            let notADay = try await f.owner.get("\(f.lib)/reports/readers?from=2026-02-30&to=2026-03-01")
            #expect(notADay.status == .unprocessableEntity && notADay.errorField == "from")
            #expect(try await f.owner.get("\(f.lib)/reports/weeding?notLentYears=0").status == .badRequest)
            #expect(try await f.owner.get("\(f.lib)/reports/circulation?period=forever").status == .badRequest)
            #expect(try await f.owner.get("\(f.lib)/reports/circulation.csv?table=nope").status == .badRequest)
            // Every report answers on an empty library, each table with its columns.
            for kind in ReportKind.allCases {
                let reply = try await f.owner.get("\(f.lib)/reports/\(kind.rawValue)?period=this-month")
                #expect(reply.status == .ok, "\(kind): \(reply.json)")
                #expect((reply["tables"] as? [[String: Any]] ?? []).compactMap { $0["key"] as? String } == kind.tableKeys)
            }
            // A first day alone counts up to today; a last day alone from the start of its school year.
            let from = try await f.owner.get("\(f.lib)/reports/circulation?from=2026-01-01")
            #expect(from.status == .ok && (from["from"] as? String)?.hasPrefix("2026-01-01") == true, "\(from.json)")
            let to = try await f.owner.get("\(f.lib)/reports/money?to=2026-03-31")
            #expect(to.status == .ok && (to["from"] as? String)?.hasPrefix("2025-08-01") == true && (to["to"] as? String)?.hasPrefix("2026-03-31") == true,
                    "\(to.json)")
        }
    }

    @Test func theReportPageShowsTheNumbersInTheReadersLanguage() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.post("\(f.lib)/members", ["cardId": "S1", "firstName": "Ada", "grade": "3A"]).status == .created)
            let momo = try await f.addTitle("Momo", extra: ["location": "Fiction"])
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": momo]).status == .created)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            browser.language = "de"
            let page = try await browser.get("/libraries/\(f.libraryID)/reports/circulation?period=this-month")
            #expect(page.status == .ok)
            #expect(page.html.contains("Ausleihen nach Klasse") && page.html.contains("<th scope=\"row\">3A</th><td>1</td><td>1</td>"))
            #expect(page.html.contains("role=\"img\""))
            let refused = try await browser.get("/libraries/\(f.libraryID)/reports/circulation?from=2026-05-01&to=2026-04-01")
            #expect(refused.status == .unprocessableEntity && refused.html.contains("id=\"f-to-error\""))
            #expect(try await browser.get("/libraries/\(f.libraryID)/reports/nothing").status == .notFound)
            let list = try await browser.get("/libraries/\(f.libraryID)/reports")
            #expect(ReportKind.allCases.allSatisfy { list.html.contains("/reports/\($0.rawValue)") })
        }
    }

    /// A saved report mailed monthly: nothing for the month it was scheduled in, then once on the first
    /// morning of the next month, as the month just ended left it, with its PDF and CSV attached; and
    /// now, on an owner's word. A librarian saves and renames; only an owner schedules.
    @Test func aSavedReportIsMailedOnceAMonthWithItsPDFAndCSV() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let school = try await ReminderTests.school(app, smtp, clock: clock)
            let (f, owner) = (school.f, school.owner)
            let librarian = try await f.staff("lib", role: "librarian")
            let made = try await librarian.post("\(f.lib)/saved-reports", ["name": "Loans this month", "kind": "circulation",
                                                                          "options": "group=week&period=this-month", "language": "de"])
            #expect(made.status == .created && made["options"] as? String == "period=this-month&group=week", "\(made.json)")
            let id = made.string("id")
            #expect(try await librarian.patch("\(f.lib)/saved-reports/\(id)", ["schedule": "monthly", "recipients": ["head@school.example"]]).status == .forbidden)
            #expect(try await librarian.post("\(f.lib)/saved-reports", ["name": "LOANS this month", "kind": "money"]).errorCode == "saved_report_name_taken")
            let odd = try await librarian.post("\(f.lib)/saved-reports", ["name": "Odd", "kind": "circulation", "options": "period=fortnight"])
            #expect(odd.status == .badRequest && odd.errorField == "period", "\(odd.json)")
            #expect(try await owner.patch("\(f.lib)/saved-reports/\(id)", ["schedule": "monthly"]).errorCode == "recipients_missing")
            // Options are read as a report reads its query: percent-encoded, "+" a space; what is not a query is refused.
            let encoded = try await librarian.post("\(f.lib)/saved-reports", ["name": "Odd shelf", "kind": "circulation",
                                                                             "options": "class=4+A&shelf=B%C3%BCcher&½íÄ"])
            #expect(encoded.status == .created && encoded["options"] as? String == "period=school-year&group=month&class=4%20A&shelf=B%C3%BCcher",
                    "\(encoded.json)")
            let broken = try await librarian.post("\(f.lib)/saved-reports", ["name": "Broken", "kind": "circulation", "options": "class=%ZZ"])
            #expect(broken.status == .unprocessableEntity && broken.errorField == "options", "\(broken.json)")
            #expect(try await librarian.delete("\(f.lib)/saved-reports/\(encoded.string("id"))").status == .noContent)
            let bad = try await owner.patch("\(f.lib)/saved-reports/\(id)", ["schedule": "monthly", "recipients": ["head@school.example\r\nBcc: x@y.z"]])
            #expect(bad.status == .unprocessableEntity && bad.errorField == "recipients[0]", "\(bad.json)")
            let scheduled = try await owner.patch("\(f.lib)/saved-reports/\(id)", [
                "schedule": "monthly", "recipients": ["head@school.example", "HEAD@school.example", "deputy@school.example"]])
            #expect(scheduled.status == .ok && scheduled["recipients"] as? [String] == ["head@school.example", "deputy@school.example"], "\(scheduled.json)")
            #expect((scheduled["nextMailing"] as? String)?.hasPrefix("2026-04-01T06:00:00") == true, "\(scheduled.json)")

            // March: the month it was scheduled in is not mailed.
            let march = try await RecurringJobs.tick(app: app, jobs: [.mailReports])
            #expect(march.count == 1)
            for id in march { await app.jobRunner.wait(id) }
            #expect(try smtp.received().isEmpty)
            var de = Strings(lang: .de)
            de.timeZone = TimeZone(identifier: "UTC")!
            let day = { (d: Int) in Self.march10.addingTimeInterval(Double(d - 10) * 86_400) }
            // 1 April, 07:12: March's report, once, to each recipient, in German.
            clock.advance(days: 21.8)
            for id in try await RecurringJobs.tick(app: app, jobs: [.mailReports]) { await app.jobRunner.wait(id) }
            let mails = try smtp.received()
            #expect(mails.map(\.rcpt_tos) == [["head@school.example"], ["deputy@school.example"]])
            let mail = try #require(mails.first)
            let march1to31 = de.date(day(1)) + " – " + de.date(day(31))
            #expect(mail.subject.hasPrefix("Loans this month · " + march1to31) && mail.content_language == "de", "\(mail.subject)")
            #expect(mail.text.contains("Ausleihe") && mail.defects.isEmpty, "\(mail.text)")
            #expect(mail.attachments.map(\.content_type) == ["application/pdf", "text/csv"], "\(mail.attachments)")
            let csv = try String(contentsOfFile: mail.attachments[1].path, encoding: .utf8)
            #expect(csv.contains("Ausleihen") && csv.contains("\r\nSumme,5,"), "\(csv)")
            let pdf = try ReminderPageTests.pdfText(URL(fileURLWithPath: mail.attachments[0].path))
            #expect(pdf.contains("Ausleihe") && pdf.contains(march1to31), "\(pdf)")
            // The same morning again: nothing more.
            for id in try await RecurringJobs.tick(app: app, jobs: [.mailReports]) { await app.jobRunner.wait(id) }
            #expect(try smtp.received().count == 2)
            let listed = try await librarian.get("\(f.lib)/saved-reports")
            #expect(listed.array.first?["lastSentAt"] != nil && (listed.array.first?["nextMailing"] as? String)?.hasPrefix("2026-05-01") == true)

            // Now, on an owner's word, to one address: as things stand today (April so far: nothing lent).
            #expect(try await librarian.post("\(f.lib)/saved-reports/\(id)/send").status == .forbidden)
            let sent = try await owner.post("\(f.lib)/saved-reports/\(id)/send", ["recipients": ["teacher@school.example"]])
            #expect(sent.status == .ok && sent.array.map { $0["status"] as? String } == ["sent"], "\(sent.json)")
            let now = try #require(try smtp.received().last)
            #expect(now.rcpt_tos == ["teacher@school.example"] && now.subject.contains(de.date(day(32))) && now.attachments.count == 2, "\(now.subject)")
            // A librarian may not delete what an owner scheduled.
            #expect(try await librarian.delete("\(f.lib)/saved-reports/\(id)").status == .forbidden)
            #expect(try await owner.delete("\(f.lib)/saved-reports/\(id)").status == .noContent)
            #expect(try await owner.get("\(f.lib)/saved-reports").array.isEmpty)
        }
    }

    /// A library may show its figures on its public catalog: books lent this school year and the most
    /// borrowed this month, as titles; off by default, and never a member's name.
    @Test func thePublicCatalogShowsTheFiguresOnlyWhenTheLibraryChoosesTo() async throws {
        let clock = TestClock(Self.march10)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["publicCatalog": true]).status == .ok)
            for (card, name) in [("S1", "Adalberta"), ("S2", "Bartholomew"), ("S3", "Cecilia")] {
                #expect(try await f.owner.post("\(f.lib)/members", ["cardId": card, "firstName": name]).status == .created)
            }
            let momo = try await f.addTitle("Momo", copies: 3)
            let holes = try await f.addTitle("Holes")
            _ = try await f.addTitle("Atlas")
            // February: one loan this school year, not this month.
            clock.advance(days: -20)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S3", "titleId": holes]).status == .created)
            clock.advance(days: 20)
            for card in ["S1", "S2", "S3"] { #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": momo]).status == .created) }
            let web = "/public/libraries/\(f.libraryID)"
            var browser = Browser(app: app)
            #expect(try await browser.get(web).html.contains("books lent this school year") == false)
            let changed = try await f.owner.patch(f.lib, ["publicFigures": true])
            #expect(changed.status == .ok && changed["publicFigures"] as? Bool == true, "\(changed.json)")
            let page = try await browser.get(web)
            #expect(page.html.contains("4 books lent this school year"), "\(page.html)")
            let figures = try #require(page.html.components(separatedBy: "class=\"public-figures\"").dropFirst().first?.components(separatedBy: "</section>").first)
            #expect(figures.contains(">Momo</a>") && !figures.contains("Holes") && !figures.contains("Atlas"), "\(figures)")
            #expect(!["Adalberta", "Bartholomew", "Cecilia", "S1"].contains { page.html.contains($0) })
            #expect(try await browser.get(web + "?q=momo").html.contains("books lent this school year") == false)
        }
    }
}
