@testable import App
import Fluent
import Foundation
import SQLKit
import Testing
import Vapor
import VaporTesting

/// Many books at once: each change, what it leaves and why, and the undo of the last one.
@Suite(.serialized) struct BulkChangesTests {
    private func detail(_ f: Fixture, _ id: String) async throws -> [String: Any] {
        let reply = try await f.owner.get("\(f.lib)/titles/\(id)")
        #expect(reply.status == .ok, "\(reply.json)")
        return reply.json
    }

    private func change(_ f: Fixture, _ ids: [String], _ action: String, _ value: String? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["titleIds": ids, "action": action]
        if let value { body["value"] = value }
        let reply = try await f.owner.post("\(f.lib)/titles/bulk", body)
        #expect(reply.status == .ok, "\(reply.json)")
        return reply.json
    }

    private func undo(_ f: Fixture) async throws -> [String: Any] {
        let reply = try await f.owner.post("\(f.lib)/titles/bulk/undo")
        #expect(reply.status == .ok, "\(reply.json)")
        #expect(reply["undone"] as? Bool == true)
        return reply.json
    }

    @Test func eachChangeIsMadeToTheChosenBooksAndUndoneExactly() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let byron = try await f.addTitle("Poems", authors: ["Lord Byron"], extra: ["callNumber": "F BYR", "location": "Hall"])
            let mort = try await f.addTitle("Mort", authors: ["Terry Pratchett"], extra: ["readingLevel": "5.1"])
            let other = try await f.addTitle("Untouched", authors: ["Nobody"], extra: ["location": "Hall"])

            // Into a category the library did not have: made, the two books in it; the undo takes both away.
            let added = try await change(f, [byron, mort], "add_category", "Poetry")
            #expect(added["changed"] as? Int == 2)
            #expect((added["skipped"] as? [Any])?.isEmpty == true)
            let poetry = try #require(try await f.owner.get("\(f.lib)/categories").array.first { $0["name"] as? String == "Poetry" })
            #expect(poetry["titleCount"] as? Int == 2)
            let last = try await f.owner.get("\(f.lib)/titles/bulk")
            #expect(last["action"] as? String == "add_category" && last["by"] as? String == "owner" && last["changed"] as? Int == 2)
            _ = try await undo(f)
            #expect(try await f.owner.get("\(f.lib)/categories").array.allSatisfy { $0["name"] as? String != "Poetry" })
            let again = try await f.owner.post("\(f.lib)/titles/bulk/undo")
            #expect(again.status == .notFound && again.errorCode == "nothing_to_undo")

            // Out of a category: only the books that were in it count, and the undo puts exactly those back.
            _ = try await f.owner.patch("\(f.lib)/titles/\(byron)", ["categories": ["Classics"]])
            let out = try await change(f, [byron, mort], "remove_category", "classics")
            #expect(out["changed"] as? Int == 1)
            #expect((try await detail(f, byron)["categories"] as? [[String: Any]])?.isEmpty == true)
            _ = try await undo(f)
            #expect((try await detail(f, byron)["categories"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Classics"])
            #expect((try await detail(f, mort)["categories"] as? [[String: Any]])?.isEmpty == true)

            // Every copy to a shelf (made as a shelf), and back to where each stood.
            _ = try await f.owner.post("\(f.lib)/titles/\(mort)/copies", ["count": 1, "location": "Attic"])
            _ = try await change(f, [byron, mort], "shelf", "Room 4")
            for id in [byron, mort] {
                #expect((try await detail(f, id)["copies"] as? [[String: Any]])?.allSatisfy { $0["location"] as? String == "Room 4" } == true)
            }
            #expect((try await detail(f, other)["copies"] as? [[String: Any]])?.first?["location"] as? String == "Hall")
            #expect(try await f.owner.get("\(f.lib)/shelves").array.contains { $0["name"] as? String == "Room 4" })
            _ = try await undo(f)
            #expect((try await detail(f, byron)["copies"] as? [[String: Any]])?.map { $0["location"] as? String } == ["Hall"])
            #expect(Set((try await detail(f, mort)["copies"] as? [[String: Any]])?.map { $0["location"] as? String } ?? []) == [nil, "Attic"])

            // A reading level the level filter finds, and back.
            _ = try await change(f, [byron, mort], "reading_level", "AR 3.5")
            let levelled = try await f.owner.get("\(f.lib)/titles?levelMin=3&levelMax=4")
            #expect(Set((levelled["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []) == [byron, mort])
            _ = try await undo(f)
            #expect(try await detail(f, byron)["readingLevel"] == nil)
            #expect(try await detail(f, mort)["readingLevel"] as? String == "5.1")

            // A series the search finds by its name, and back.
            _ = try await change(f, [byron, mort], "series", "Discworld")
            #expect(try await detail(f, mort)["series"] as? String == "Discworld")
            #expect(((try await f.owner.get("\(f.lib)/titles?q=discworld"))["items"] as? [Any])?.count == 2)
            _ = try await undo(f)
            #expect(((try await f.owner.get("\(f.lib)/titles?q=discworld"))["items"] as? [Any])?.isEmpty == true)
            #expect(try await detail(f, mort)["series"] == nil)
            // A series taken away takes the others with it (a book without one has none), and the undo brings them back.
            _ = try await f.owner.patch("\(f.lib)/titles/\(mort)", ["series": "Discworld", "seriesNumber": "4", "moreSeries": [["name": "Death", "number": "1"]]])
            _ = try await change(f, [mort], "series", "")
            #expect(try await detail(f, mort)["series"] == nil)
            #expect(((try await f.owner.get("\(f.lib)/titles?series=Death"))["items"] as? [Any])?.isEmpty == true)
            _ = try await undo(f)
            #expect((try await detail(f, mort)["moreSeries"] as? [[String: Any]])?.first?["name"] as? String == "Death")
            _ = try await f.owner.patch("\(f.lib)/titles/\(mort)", ["series": ""])
            #expect((try await detail(f, mort)["moreSeries"] as? [[String: Any]])?.isEmpty == true)

            // A prefix replaces the old one and gives a book without a call number its Cutter letters.
            _ = try await change(f, [byron, mort], "call_number_prefix", "j")
            #expect(try await detail(f, byron)["callNumber"] as? String == "J BYR")
            #expect(try await detail(f, mort)["callNumber"] as? String == "J PRA")
            let shelfOrder = try await f.owner.get("\(f.lib)/titles?sort=shelf")
            #expect((shelfOrder["items"] as? [[String: Any]])?.prefix(2).compactMap { $0["id"] as? String } == [byron, mort])
            _ = try await undo(f)
            #expect(try await detail(f, byron)["callNumber"] as? String == "F BYR")
            #expect(try await detail(f, mort)["callNumber"] == nil)

            // The activity log names each book changed and each undone.
            let activity = try await f.owner.get("\(f.lib)/activity?limit=100").array
            #expect(activity.contains { $0["titleId"] as? String == mort && ($0["info"] as? String)?.hasPrefix("with many at once: series") == true })
            #expect(activity.contains { $0["titleId"] as? String == mort && ($0["info"] as? String)?.hasPrefix("undone: series") == true })
        }
    }

    @Test func aDeleteLeavesBooksOnLoanHeldOrWithReadersNotesAndItsUndoBringsBackTheRest() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let lent = try await f.addTitle("On Loan", authors: ["A"])
            let held = try await f.addTitle("Held", authors: ["B"], copies: 1)
            let weeded = try await f.addTitle("Old Atlas", authors: ["C"], isbn: "9780306406157", copies: 2,
                                              extra: ["categories": ["Geography"], "callNumber": "912 OLD", "location": "Stack"])
            let plain = try await f.addTitle("Plain", authors: ["D"])
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Wanted"]).string("id")
            try await f.addMember("S1", "Ada")
            try await f.addMember("S2", "Alan")
            // The atlas was lent and returned (its history), the first book is out, the second is held for a member.
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": weeded]).status == .created)
            let atlasCopies = try #require(try await detail(f, weeded)["copies"] as? [[String: Any]])
            let lentBarcode = try #require(atlasCopies.first { $0["status"] as? String == "on_loan" }?["barcode"] as? String)
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": lentBarcode]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": lent]).status == .created)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S2", "titleId": held]).status == .created)
            #expect(try await f.owner.post("\(f.lib)/holds", ["cardId": "S1", "titleId": held]).status == .created)
            let loanRow = try #require(try await app.db.sql.raw("SELECT id FROM loans WHERE title_id = \(bind: UUID(uuidString: weeded)!)").first())
            let loanID = try loanRow.decode(column: "id", as: UUID.self)

            let report = try await change(f, [lent, held, weeded, plain, wish, UUID().uuidString], "delete")
            #expect(report["changed"] as? Int == 2)
            let skipped = (report["skipped"] as? [[String: Any]]) ?? []
            #expect(Set(skipped.compactMap { s in (s["reason"] as? String).map { "\(s["title"] as? String ?? "-"):\($0)" } })
                    == ["On Loan:on_loan", "Held:on_loan", "-:not_in_catalog"])
            #expect(skipped.count == 4)
            #expect(try await f.owner.get("\(f.lib)/titles/\(weeded)").status == .notFound)
            #expect(try await f.owner.get("\(f.lib)/titles/\(lent)").status == .ok)
            #expect(((try await f.owner.get("\(f.lib)/wishlist"))["items"] as? [Any])?.count == 1)
            let orphan = try #require(try await app.db.sql.raw("SELECT title_id FROM loans WHERE id = \(bind: loanID)").first())
            #expect(try orphan.decode(column: "title_id", as: UUID?.self) == nil)

            // Undone: the atlas as it was — same copies and barcodes, its category, call number, shelf, and its past loan linked to it again.
            let back = try await undo(f)
            #expect(back["changed"] as? Int == 2)
            let atlas = try await detail(f, weeded)
            #expect(atlas["callNumber"] as? String == "912 OLD")
            #expect((atlas["categories"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Geography"])
            let copies = try #require(atlas["copies"] as? [[String: Any]])
            #expect(Set(copies.compactMap { $0["barcode"] as? String }) == Set(atlasCopies.compactMap { $0["barcode"] as? String }))
            #expect(copies.allSatisfy { $0["location"] as? String == "Stack" })
            let relinked = try #require(try await app.db.sql.raw("SELECT title_id, copy_id FROM loans WHERE id = \(bind: loanID)").first())
            #expect(try relinked.decode(column: "title_id", as: UUID?.self) == UUID(uuidString: weeded))
            #expect(try relinked.decode(column: "copy_id", as: UUID?.self) != nil)
            #expect(try await f.owner.get("\(f.lib)/titles/\(plain)").status == .ok)
            // A book the catalog has again counts again: found by its ISBN, once.
            let found = try await f.owner.get("\(f.lib)/titles?q=9780306406157")
            #expect((found["items"] as? [Any])?.count == 1)

            // Held but not lent: the hold stops the delete.
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": (try await detail(f, held)["copies"] as? [[String: Any]])?.first?["barcode"] as? String ?? ""]).status == .ok)
            let heldAgain = try await change(f, [held], "delete")
            #expect((heldAgain["skipped"] as? [[String: Any]])?.first?["reason"] as? String == "holds")
            #expect(heldAgain["changed"] as? Int == 0)
        }
    }

    @Test func aBulkChangeIsBoundedCheckedAndForLibrarians() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let a = try await f.addTitle("A", authors: ["X"])
            let empty = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [String](), "action": "shelf", "value": "R"])
            #expect(empty.status == .unprocessableEntity && empty.errorField == "titleIds")
            let many = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": (0...1_000).map { _ in UUID().uuidString }, "action": "delete"])
            #expect(many.status == .unprocessableEntity && many.errorField == "titleIds")
            #expect(many.errorMessage == "At most 1,000 books at once.")
            let unnamed = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [a], "action": "add_category"])
            #expect(unnamed.status == .unprocessableEntity && unnamed.errorField == "value")
            let spaced = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [a], "action": "call_number_prefix", "value": "F X"])
            #expect(spaced.status == .unprocessableEntity && spaced.errorField == "value")
            let long = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [a], "action": "shelf", "value": String(repeating: "x", count: 201)])
            #expect(long.status == .unprocessableEntity && long.errorField == "value")
            let unknown = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [a], "action": "burn"])
            #expect(unknown.status == .badRequest)
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.post("\(f.lib)/titles/bulk", ["titleIds": [a], "action": "delete"]).status == .forbidden)
            #expect(try await volunteer.post("\(f.lib)/titles/bulk/undo").status == .forbidden)
            #expect(try await f.owner.get("\(f.lib)/titles/bulk").status == .notFound)

            // Another library's books are not this library's to change.
            let second = try await f.owner.post("/api/v1/libraries", ["name": "Branch"])
            #expect(second.status == .created, "\(second.json)")
            let branch = "/api/v1/libraries/\(second.string("id"))"
            let theirs = try await f.owner.post("\(branch)/titles", ["title": "Theirs", "copies": 1]).string("id")
            let report = try await change(f, [theirs, a], "series", "Mine")
            #expect(report["changed"] as? Int == 1)
            #expect((report["skipped"] as? [[String: Any]])?.first?["reason"] as? String == "not_in_catalog")
            #expect(try await f.owner.get("\(branch)/titles/\(theirs)")["series"] == nil)

            // A day later the change can no longer be undone.
            clock.advance(days: 1.1)
            #expect(try await f.owner.post("\(f.lib)/titles/bulk/undo").status == .notFound)
        }
    }

    @Test func theCatalogsSelectModeAsksOnceChangesAndUndoesInGerman() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let one = try await f.addTitle("Momo", authors: ["Michael Ende"])
            let two = try await f.addTitle("Tschick", authors: ["Wolfgang Herrndorf"])
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let catalog = "/libraries/\(f.libraryID)/catalog"
            let plain = try await browser.get(catalog)
            #expect(plain.html.contains("Bücher auswählen") && !plain.html.contains("name=\"title\""))
            let selecting = try await browser.get(catalog + "?select=1")
            #expect(selecting.status == .ok)
            #expect(selecting.html.contains("value=\"\(one)\"") && selecting.html.contains("Ausgewählte Bücher ändern"))
            #expect(!selecting.html.contains("checked"))
            #expect(try await browser.get(catalog + "?select=all").html.contains("checked"))

            let fields = [("title", one), ("title", two), ("action", "shelf"), ("value", "Raum 4")]
            let asked = try await browser.post("/libraries/\(f.libraryID)/catalog/change", fields: fields)
            #expect(asked.status == .ok)
            #expect(asked.html.contains("Ins Regal stellen: „Raum 4“ — 2 Bücher?"), "\(asked.html)")
            #expect(asked.html.contains(">Momo<") && asked.html.contains(">Tschick<"))
            // Nothing changed by asking.
            #expect((try await detail(f, one)["copies"] as? [[String: Any]])?.first?["location"] == nil)

            let made = try await browser.post("/libraries/\(f.libraryID)/catalog/change", fields: fields + [("confirm", "1")])
            #expect(made.status == .seeOther)
            #expect((try await detail(f, one)["copies"] as? [[String: Any]])?.first?["location"] as? String == "Raum 4")
            let after = try await browser.get(catalog)
            #expect(after.html.contains("2 Bücher geändert"))
            #expect(after.html.contains("Letzte Änderung vieler Bücher") && after.html.contains("Rückgängig"))

            #expect(try await browser.post("/libraries/\(f.libraryID)/catalog/undo", [:]).status == .seeOther)
            #expect((try await detail(f, two)["copies"] as? [[String: Any]])?.first?["location"] == nil)
            let undone = try await browser.get(catalog)
            #expect(undone.html.contains("Rückgängig gemacht") && !undone.html.contains("Letzte Änderung vieler Bücher"))

            // No book ticked: back to the select mode, saying so.
            let none = try await browser.post("/libraries/\(f.libraryID)/catalog/change", fields: [("action", "delete")])
            #expect(none.status == .seeOther && none.location?.contains("select=1") == true)
            #expect(try await browser.get(none.location ?? catalog).html.contains("Bitte mindestens ein Buch auswählen."))
        }
    }
}
