@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// A school library's day at real size — lending and the small things.
extension SchoolDayTests {
    /// Lending says everything it would refuse on the first screen, keeps what was typed, and the
    /// confirmation names the copy to hand over; the card field has the focus.
    @Test func lendingRefusesOnTheFirstScreenAndNamesTheCopy() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S1", "Ada", "Lovelace")
            try await f.addMember("S2", "Bea", "Byron")
            let lib = try #require(UUID(uuidString: f.libraryID))
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let form = try await browser.get(WebRoute.checkout(library: lib).path)
            #expect(form.html.contains("autofocus") && form.html.contains("data-suggest-members"))

            let review = try await browser.post(WebRoute.checkout(library: lib).path, ["card": "s1", "titleId": titleID, "days": "14"])
            #expect(review.status == .ok)
            let barcode = try #require((try await f.owner.get("\(f.lib)/titles/\(titleID)")["copies"] as? [[String: Any]])?.first?["barcode"] as? String)
            #expect(review.html.contains("Hand over copy") && review.html.contains(barcode))
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S2", "titleId": titleID])

            // No copy left: said at the first tap, next to the book, with the card kept.
            let none = try await browser.post(WebRoute.checkout(library: lib).path, ["card": "S1", "titleId": titleID, "days": "14"])
            #expect(none.status == .unprocessableEntity)
            #expect(none.html.contains("every copy is on loan") && none.html.contains("value=\"S1\""), "\(none.html.components(separatedBy: "<main")[1].prefix(1500))")
            // A past due date too, next to the date.
            let past = try await browser.post(WebRoute.checkout(library: lib).path, ["card": "S1", "book": "Momo", "dueDate": "2001-01-01"])
            #expect(past.status == .unprocessableEntity && past.html.contains("must be in the future"))
        }
    }

    /// Small things people notice: half stars, one person's two libraries never share a name (a backup
    /// restored under its own name is numbered), line breaks in descriptions are kept.
    @Test func smallThingsPeopleNotice() async throws {
        #expect(TitlePage.stars(3.5) == "★★★⯪☆")
        #expect(TitlePage.stars(4) == "★★★★☆")
        #expect(TitlePage.stars(0) == "☆☆☆☆☆" && TitlePage.stars(5) == "★★★★★")
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let twin = try await f.owner.post("/api/v1/libraries", ["name": "room 12"])
            #expect(twin.status == .conflict && twin.errorCode == "duplicate_library_name")
            let backup = try await f.owner.get("\(f.lib)/backup")
            let restored = try await f.owner.finished(try await f.owner.send(.POST, "/api/v1/libraries/restore", rawBody: Data(buffer: backup.body),
                                                                             contentType: "application/json"))
            #expect(restored.status == .ok, "\(restored.json)")
            let names = try await f.owner.get("/api/v1/libraries").array.compactMap { $0["name"] as? String }
            #expect(names.sorted() == ["Room 12", "Room 12 (2)"])
        }
    }
}
