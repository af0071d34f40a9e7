@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor

/// The self-service kiosk: a librarian starts it on a tablet and is signed out there; a
/// member scans their card, then books — lent and returned through the desk's own rules, the due date
/// in the member's language —; someone else's book is refused without saying whose; the screen
/// returns to the start after a minute and a half; only a librarian's password ends kiosk mode.
@Suite(.serialized) struct KioskTests {
    @Test func aMemberBorrowsAndReturnsAtTheKioskInTheirLanguage() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 1)
            let holes = try await f.addTitle("Holes", copies: 1)
            _ = try await owner.post("\(f.lib)/members", ["cardId": "S012", "firstName": "Mia", "lastName": "Keller", "language": "de"])
            _ = try await owner.post("\(f.lib)/members", ["cardId": "S013", "firstName": "Benedikt", "lastName": "Okafor"])
            #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": "S013", "titleId": holes]).status == .created)
            func barcode(_ title: String) async throws -> String {
                ((try await owner.get("\(f.lib)/titles/\(title)")["copies"] as? [[String: Any]])?.first?["barcode"] as? String) ?? ""
            }
            let momoCode = try await barcode(momo), holesCode = try await barcode(holes)
            let kiosk = "/kiosk/\(f.libraryID)"

            // Not a kiosk yet: the page says so (and how one starts).
            var tablet = Browser(app: app)
            let before = try await tablet.get(kiosk)
            #expect(before.status == .ok && before.html.contains("not a self-service kiosk"))
            // A volunteer may not start one; the owner (a librarian) may, and is signed out on the tablet.
            let volunteer = try await f.staff("vera", role: "volunteer")
            #expect(try await volunteer.send(.GET, "/libraries/\(f.libraryID)/kiosk").status == .forbidden)
            _ = try await tablet.get("/login")
            #expect(try await tablet.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            #expect(try await tablet.get("/libraries/\(f.libraryID)/kiosk").status == .ok)
            let started = try await tablet.post("/libraries/\(f.libraryID)/kiosk", [:])
            #expect(started.status == .seeOther && started.location == kiosk)
            #expect(tablet.cookies[Credential.cookieName] == nil, "the librarian is still signed in on the kiosk")
            #expect(try await tablet.get("/libraries/\(f.libraryID)/loans").status == .seeOther)

            // The start screen; a card nobody has.
            var page = try await tablet.get(kiosk)
            #expect(page.status == .ok && page.html.contains("name=\"card\"") && page.html.contains("autofocus"))
            let unknown = try await tablet.post(kiosk, ["card": "X999"])
            #expect(unknown.status == .unprocessableEntity && unknown.html.contains("That card is not known here"))
            // Mia's turn, in German.
            #expect(try await tablet.post(kiosk, ["card": "s012"]).location == "\(kiosk)/member")
            page = try await tablet.get("\(kiosk)/member")
            #expect(page.status == .ok && page.html.contains("lang=\"de\"") && page.html.contains("Hallo, Mia!"), "\(page.html)")
            #expect(page.html.contains("http-equiv=\"refresh\" content=\"90;url=\(kiosk)\""))
            // A book from the shelf: hers, with its due date in German.
            #expect(try await tablet.post("\(kiosk)/member", ["barcode": momoCode]).status == .seeOther)
            page = try await tablet.get("\(kiosk)/member")
            let loans = try await owner.get("\(f.lib)/loans").array
            let mine = loans.first { $0["memberCardId"] as? String == "S012" }
            #expect(mine?["title"] as? String == "Momo")
            let due = ISO8601DateFormatter().date(from: mine?["dueAt"] as? String ?? "") ?? Date()
            let german = Strings(lang: .de, timeZone: TimeZone.current).date(due)
            #expect(page.html.contains("„Momo“ gehört dir: Bring es bis \(german) zurück."), "\(page.html)")
            // Someone else's book: refused, without a name.
            #expect(try await tablet.post("\(kiosk)/member", ["barcode": holesCode]).status == .seeOther)
            page = try await tablet.get("\(kiosk)/member")
            #expect(page.html.contains("an jemand anderen ausgeliehen") && !page.html.contains("Benedikt") && !page.html.contains("Okafor"))
            #expect(try await tablet.post("\(kiosk)/member", ["barcode": "NOPE-1"]).status == .seeOther)
            #expect(try await tablet.get("\(kiosk)/member").html.contains("gehört zu keinem Buch"))
            // Hers again: back.
            _ = try await tablet.post("\(kiosk)/member", ["barcode": momoCode])
            page = try await tablet.get("\(kiosk)/member")
            #expect(page.html.contains("„Momo“ ist zurück. Danke!"))
            #expect(try await owner.get("\(f.lib)/loans").array.filter { $0["memberCardId"] as? String == "S012" }.isEmpty)
            let activity = try await owner.get("\(f.lib)/activity?type=checkout").array
            #expect(activity.first?["actor"] as? String == "kiosk")

            // A minute and a half without a scan: the turn is over.
            clock.advance(days: 91.0 / 86_400)
            let idle = try await tablet.get("\(kiosk)/member")
            #expect(idle.status == .seeOther && idle.location == kiosk)
            #expect(try await tablet.post("\(kiosk)/member", ["barcode": momoCode]).location == kiosk)

            // Ending it: a volunteer's password does not; the owner's does.
            page = try await tablet.get("\(kiosk)/end")
            #expect(page.status == .ok && page.html.contains("name=\"password\""))
            let refused = try await tablet.post("\(kiosk)/end", ["username": "vera", "password": "password-vera"])
            #expect(refused.status == .forbidden && refused.html.contains("Only a librarian of this library"))
            let wrong = try await tablet.post("\(kiosk)/end", ["username": "owner", "password": "wrong"])
            #expect(wrong.status == .unauthorized)
            let ended = try await tablet.post("\(kiosk)/end", ["username": "owner", "password": "correct horse"])
            #expect(ended.status == .seeOther && ended.location?.hasPrefix("/login") == true)
            #expect(try await tablet.get(kiosk).html.contains("not a self-service kiosk"))
            #expect(try await tablet.post(kiosk, ["card": "S012"]).status == .forbidden)
        }
    }
}
