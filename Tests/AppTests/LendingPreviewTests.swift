@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// The lending preview decides what a check-out would do without writing, with exactly the
/// refusals of the check-out itself; the web's confirmation and the API's dry run ask it.
@Suite struct LendingPreviewTests {
    @Test func theDryRunSaysWhatTheCheckoutWouldDoAndWritesNothing() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 1)
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Krabat"])
            _ = try await f.addMember("S1", "Ada", "Lovelace")
            let body: [String: Any] = ["cardId": "s1", "titleId": titleID, "days": 7]
            let preview = try await f.owner.post("\(f.lib)/checkouts/preview", body)
            #expect(preview.status == .ok, "\(String(buffer: preview.body))")
            #expect(preview.string("cardId") == "S1" && preview.string("memberName") == "Ada Lovelace")
            #expect(preview.string("title") == "Momo" && preview.string("copyBarcode") == "C000001")
            #expect(try await Loan.query(on: app.db).count() == 0, "a preview writes nothing")
            #expect(try await Activity.query(on: app.db).filter(\.$type == ActivityType.checkout.rawValue).count() == 0)
            // The check-out then does what the preview said.
            let loan = try await f.owner.post("\(f.lib)/checkouts", body)
            #expect(loan.status == .created)
            #expect(loan.string("copyBarcode") == preview.string("copyBarcode"))
            #expect(loan.string("dueAt") == preview.string("dueAt"))
            // The same refusals as the check-out, case for case: status, code and field.
            let refused: [[String: Any]] = [
                ["cardId": "s1", "titleId": titleID],                      // no copy left
                ["cardId": "NOBODY", "titleId": titleID],                  // no such member
                ["cardId": "S1", "titleId": wish.string("id")],            // a wish, not a book
                ["cardId": "S1", "isbn": "9780306406157"],                 // an ISBN the library lacks
                ["cardId": "S1", "copyBarcode": "C000001"],                // the copy is out
                ["cardId": "S1", "titleId": titleID, "days": 0],           // a loan period out of range
                ["cardId": "S1"],                                          // no book at all
            ]
            for input in refused {
                let dry = try await f.owner.post("\(f.lib)/checkouts/preview", input)
                let real = try await f.owner.post("\(f.lib)/checkouts", input)
                #expect(dry.status == real.status && dry.errorCode == real.errorCode, "\(input): \(dry.status) \(dry.errorCode ?? "") vs \(real.status) \(real.errorCode ?? "")")
                #expect(dry.status.code >= 400)
                #expect((dry.json["error"] as? [String: Any])?["field"] as? String == (real.json["error"] as? [String: Any])?["field"] as? String)
            }
            // Who may not lend may not ask either.
            let viewer = try await f.staff("view", role: "viewer")
            #expect(try await viewer.post("\(f.lib)/checkouts/preview", body).status == .forbidden)
        }
    }

    /// The web's confirmation comes from the same preview: a wrong card, words matching no book and a
    /// date that is not one are each said next to their field, with what was typed kept.
    @Test func theLendFormSaysEachRefusalNextToItsField() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let lib = "/libraries/\(f.libraryID)"
            _ = try await f.addTitle("Momo", isbn: "9783522202602", copies: 1)
            _ = try await f.addMember("S1", "Ada")
            let noCard = try await browser.post("\(lib)/checkout", ["card": "NOBODY", "book": "Momo"])
            #expect(noCard.status == .unprocessableEntity && noCard.html.contains("id=\"f-card-error\""))
            let noBook = try await browser.post("\(lib)/checkout", ["card": "S1", "book": "zzzz-qqqq"])
            #expect(noBook.html.contains("id=\"f-book-error\"") && noBook.html.contains("zzzz-qqqq"))
            let badDate = try await browser.post("\(lib)/checkout", ["card": "S1", "book": "Momo", "dueDate": "31.02.2026"])
            #expect(badDate.html.contains("id=\"f-dueDate-error\"") && badDate.html.contains("value=\"31.02.2026\""))
            let ready = try await browser.post("\(lib)/checkout", ["card": "s1", "book": "9783522202602"])
            #expect(ready.status == .ok && ready.html.contains("C000001"))
        }
    }
}

/// A web form is one `Decodable` type whose bounds are declared once.
@Suite struct WebFormTests {
    struct Sample: WebForm {
        var name: String
        var count: Int?
        var on: Bool
        var day: Date?
        var id: UUID?
        static let maxLength = ["name": 5]
    }

    func decode(_ fields: [String: String]) throws -> Sample {
        try Sample(from: FormFieldDecoder(read: { fields[$0] }, bounds: Sample.maxLength))
    }

    @Test func fieldsDecodeAndRefusalsNameTheirField() throws {
        let id = UUID()
        let ok = try decode(["name": "Ada", "count": "3", "on": "on", "day": "2026-11-25", "id": id.uuidString])
        #expect(ok.name == "Ada" && ok.count == 3 && ok.on && ok.id == id)
        #expect(try decode(["name": "Ada"]).count == nil && !(try decode(["name": "Ada"]).on))
        #expect(throws: InputProblem.empty(field: "name")) { try decode([:]) }
        #expect(throws: InputProblem.tooLong(field: "name", max: 5)) { try decode(["name": "Adalovelace"]) }
        #expect(throws: InputProblem.notANumber(field: "count")) { try decode(["name": "Ada", "count": "drei"]) }
        #expect(throws: InputProblem.notADate(field: "day", value: "31.02.2026")) { try decode(["name": "Ada", "day": "31.02.2026"]) }
        // The API's bounds are the web form's: MemberInput's card ID takes 64 characters.
        #expect(MemberInput.maxLength["cardId"] == 64 && MemberInput.maxLength["email"] == EmailAddress.maxLength)
    }

    @Test func theMembersFormRefusesACardLongerThanTheAPIsBoundNextToItsField() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let long = String(repeating: "S", count: 65)
            let refused = try await browser.post("/libraries/\(f.libraryID)/members", ["cardId": long, "firstName": "Ada"])
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.html.contains("id=\"f-cardId-error\"") && refused.html.contains("64"))
            #expect(refused.html.contains("value=\"Ada\""), "what was typed is kept")
            #expect(try await Member.query(on: app.db).count() == 0)
        }
    }

    /// The page's forms send every field each time: an unticked box saves false, an emptied field clears.
    @Test func settingsAndEditFormsSaveWhatThePageShows() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let lib = "/libraries/\(f.libraryID)"
            let on = try await browser.post("\(lib)/settings", ["name": "Room 12", "loanPeriodDays": "21", "maxRenewals": "1", "publicCatalog": "true"])
            #expect(on.status == .seeOther)
            var library = try #require(try await Library.find(UUID(uuidString: f.libraryID), on: app.db))
            #expect(library.publicCatalog && library.loanPeriodDays == 21 && library.maxRenewals == 1)
            _ = try await browser.post("\(lib)/settings", ["name": "Room 12", "loanPeriodDays": "21", "maxRenewals": "1"])
            library = try #require(try await Library.find(UUID(uuidString: f.libraryID), on: app.db))
            #expect(!library.publicCatalog)
            let titleID = try await f.addTitle("Momo", extra: ["subtitle": "oder Die seltsame Geschichte", "pageCount": 300])
            let saved = try await browser.post("\(lib)/titles/\(titleID)/edit", ["title": "Momo", "subtitle": "", "authors": "Michael Ende, Anon",
                                                                               "pageCount": "304", "totalCopies": "1"])
            #expect(saved.status == .seeOther)
            let title = try #require(try await Title.find(UUID(uuidString: titleID), on: app.db))
            #expect(title.subtitle == nil || title.subtitle == "")
            #expect(title.authors == ["Michael Ende", "Anon"] && title.pageCount == 304)
            let memberID = try #require(UUID(uuidString: try await f.addMember("S1", "Ada", "Lovelace")))
            _ = try await browser.post("\(lib)/members/\(memberID)/edit", ["cardId": "S1", "firstName": "Ada", "lastName": "Lovelace", "grade": "4b"])
            #expect(try await Member.find(memberID, on: app.db)?.grade == "4b")
            let cleared = try await browser.post("\(lib)/members/\(memberID)/edit", ["cardId": "S1", "firstName": "Ada", "lastName": "Lovelace"])
            #expect(cleared.status == .seeOther)
            let grade = try await Member.find(memberID, on: app.db)?.grade
            #expect(grade == nil || grade == "", "an emptied field clears")
            let tooLong = try await browser.post("\(lib)/members/\(memberID)/edit", ["cardId": "S1", "firstName": String(repeating: "A", count: 101)])
            #expect(tooLong.status == .unprocessableEntity && tooLong.html.contains("id=\"f-firstName-error\""))
        }
    }

    /// The add-by-hand, wishlist, quote and copy forms: a number that is not one, or a text past the
    /// API's bound, is refused next to its field and nothing is written.
    @Test func addWishlistAndQuoteFormsRefuseByFieldAndWriteNothing() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let lib = "/libraries/\(f.libraryID)"
            let badCopies = try await browser.post("\(lib)/add", ["title": "Momo", "copies": "two"])
            #expect(badCopies.status == .unprocessableEntity && badCopies.html.contains("id=\"f-copies-error\""))
            #expect(badCopies.html.contains("value=\"Momo\""), "what was typed is kept")
            let longTitle = try await browser.post("\(lib)/add", ["title": String(repeating: "M", count: 501)])
            #expect(longTitle.status == .unprocessableEntity && longTitle.html.contains("id=\"f-title-error\""))
            #expect(try await Title.query(on: app.db).count() == 0)
            let added = try await browser.post("\(lib)/add", ["title": "Momo", "authors": "Michael Ende", "pageCount": "304", "copies": "2"])
            #expect(added.status == .seeOther)
            let title = try #require(try await Title.query(on: app.db).first())
            #expect(title.pageCount == 304 && title.authors == ["Michael Ende"])
            #expect(try await Copy.query(on: app.db).count() == 2)
            let badPriority = try await browser.post("\(lib)/wishlist", ["title": "Krabat", "priority": "9", "byHand": "1"])
            #expect(badPriority.status == .unprocessableEntity && badPriority.html.contains("field invalid\"><label for=\"f-priority\""))
            let titleID = try title.requireID().uuidString
            let quote = try await browser.post("\(lib)/reading/quotes", ["titleId": titleID, "text": String(repeating: "q", count: Quotes.maxText + 1)])
            #expect(quote.status == .seeOther)
            #expect(try await Quote.query(on: app.db).count() == 0, "a quote past its bound is not kept")
            let kept = try await browser.post("\(lib)/reading/quotes", ["titleId": titleID, "text": "Zeit ist Leben.", "page": "57"])
            #expect(kept.status == .seeOther)
            #expect(try await Quote.query(on: app.db).first()?.page == "57")
        }
    }
}
