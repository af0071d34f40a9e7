@testable import App
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// The public catalog: off until the library publishes it; then anyone finds books,
/// and nothing any page or answer says names a member; members sign in with card and PIN or an emailed
/// one-time link (through a real SMTP server) and renew, place and cancel holds for themselves only;
/// its own rate limit; search engines kept out unless the library lets them in.
@Suite(.serialized) struct PublicCatalogTests {
    struct Library {
        let f: Fixture
        let owner: Client
        var web: String { "/public/libraries/\(f.libraryID)" }
        var titles: [String: String]
        var members: [String: String]
    }

    /// Momo (2 copies), Holes (1, lent to Ben), Die unendliche Geschichte; Mia (S012, with an email
    /// address) and Ben (S013); Mia waits for Holes when `hold`.
    static func library(_ app: Application, hold: Bool = false) async throws -> Library {
        let f = try await Fixture.make(app)
        let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
        var titles: [String: String] = [:]
        titles["Momo"] = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2)
        titles["Holes"] = try await f.addTitle("Holes", authors: ["Louis Sachar"], copies: 1)
        titles["Geschichte"] = try await f.addTitle("Die unendliche Geschichte", authors: ["Michael Ende"], copies: 1)
        var members: [String: String] = [:]
        for (card, first, last, email) in [("S012", "Mia", "Keller", "mia.keller@example.de"), ("S013", "Benedikt", "Okafor", "")] {
            let made = try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": first, "lastName": last, "email": email])
            #expect(made.status == .created, "\(made.json)")
            members[card] = made.string("id")
        }
        #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": "S013", "titleId": titles["Holes"]!]).status == .created)
        if hold {
            #expect(try await owner.post("\(f.lib)/holds", ["cardId": "S012", "titleId": titles["Holes"]!]).status == .created)
        }
        return Library(f: f, owner: owner, titles: titles, members: members)
    }

    static let memberData = ["Mia", "Keller", "Benedikt", "Okafor", "S012", "S013", "mia.keller@example.de"]

    @Test func aPublishedCatalogShowsBooksAndNothingAboutMembers() async throws {
        try await withTestApp { app in
            let l = try await Self.library(app, hold: true)
            var browser = Browser(app: app)
            // Off by default: the pages and the API's list are not there.
            #expect(try await browser.get(l.web).status == .notFound)
            #expect(try await Client(app: app).get("/api/v1/public/libraries/\(l.f.libraryID)/titles").status == .notFound)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)

            // A crawl of everything a visitor can reach: books, shelves, due dates — no member, ever.
            let catalog = try await browser.get(l.web)
            #expect(catalog.status == .ok && catalog.html.contains("Momo") && catalog.html.contains("Holes"))
            let holes = try await browser.get("\(l.web)/titles/\(l.titles["Holes"]!)")
            #expect(holes.status == .ok && holes.html.contains("due back") && holes.html.contains("Members waiting: 1"), "\(holes.html)")
            #expect(holes.html.contains("Sign in to place a hold"))
            var pages = [catalog.html, holes.html]
            for path in ["\(l.web)?q=ende", "\(l.web)?q=holes", "\(l.web)/titles/\(l.titles["Momo"]!)", "\(l.web)/sign-in",
                         "\(l.web)/sign-in/link/\(Credential.newLinkToken())", "/robots.txt"] {
                let page = try await browser.get(path)
                #expect(page.status == .ok, "\(path) answered \(page.status)")
                pages.append(page.html)
            }
            let letter = try await browser.get("\(l.web)?letter=H")
            #expect(letter.status == .seeOther)
            pages.append(try await browser.get(letter.location ?? "").html)
            for path in ["/api/v1/public/libraries/\(l.f.libraryID)/titles", "/api/v1/public/libraries/\(l.f.libraryID)/titles?q=holes&sections=true"] {
                let reply = try await Client(app: app).get(path)
                #expect(reply.status == .ok)
                pages.append(String(buffer: reply.body))
            }
            for (index, text) in pages.enumerated() {
                for secret in Self.memberData { #expect(!text.contains(secret), "answer \(index) names \(secret)") }
            }
            // Not for search engines unless the library says so; a member's pages never.
            let anonymous = Client(app: app)
            #expect(try await anonymous.get(l.web).headers.first(name: "X-Robots-Tag") == "noindex, nofollow")
            #expect(catalog.html.contains("<meta name=\"robots\" content=\"noindex, nofollow\"/>"))
            #expect(!(String(buffer: try await anonymous.get("/robots.txt").body).contains(l.f.libraryID)))
            #expect(try await l.owner.patch(l.f.lib, ["catalogIndexable": true]).status == .ok)
            #expect(try await anonymous.get(l.web).headers.first(name: "X-Robots-Tag") == nil)
            #expect(try await anonymous.get("\(l.web)/sign-in").headers.first(name: "X-Robots-Tag") == "noindex, nofollow")
            let robots = String(buffer: try await anonymous.get("/robots.txt").body)
            #expect(robots.contains("Allow: /public/libraries/\(l.f.libraryID)\n") && robots.hasSuffix("Disallow: /\n"), "\(robots)")
            // A series, from a book's page, and a reading level narrow the list.
            let narnia = try await l.f.addTitle("The Lion, the Witch and the Wardrobe", copies: 1,
                                                extra: ["series": "Narnia", "seriesNumber": "2", "readingLevel": "AR 5.7"])
            let book = try await browser.get("\(l.web)/titles/\(narnia)")
            #expect(book.html.contains("href=\"\(l.web)?series=Narnia\""), "\(book.html)")
            let series = try await browser.get("\(l.web)?series=Narnia")
            #expect(series.status == .ok && series.html.contains("The Lion, the Witch") && !series.html.contains("Momo"))
            let level = try await browser.get("\(l.web)?level=ar&levelMin=5&levelMax=6")
            #expect(level.html.contains("The Lion, the Witch") && !level.html.contains("Holes"))
            // A wishlist item is not in the public catalog; another library's title is not found.
            let wish = try await l.owner.post("\(l.f.lib)/wishlist", ["title": "Secret wish"])
            #expect(try await browser.get("\(l.web)/titles/\(wish.string("id"))").status == .notFound)
            #expect(try await browser.get("\(l.web)/titles/\(UUID().uuidString)").status == .notFound)
        }
    }

    @Test func aMemberSignsInWithCardAndPINRenewsPlacesAndCancelsAHold() async throws {
        // A held clock: the lock after the fifth wrong PIN lasts a second, which a slow run can outlive.
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await Self.library(app)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true, "maxRenewals": 2]).status == .ok)
            let mia = l.members["S012"]!
            // The PIN: digits only, set by staff, never answered.
            let bad = try await l.owner.send(.PUT, "\(l.f.lib)/members/\(mia)/pin", ["pin": "12ab"])
            #expect(bad.status == .unprocessableEntity && bad.errorCode == "bad_pin" && bad.errorField == "pin")
            #expect(try await l.owner.send(.PUT, "\(l.f.lib)/members/\(mia)/pin", ["pin": "2468"]).status == .noContent)
            #expect(!String(buffer: try await l.owner.get("\(l.f.lib)/members/\(mia)").body).contains("pin"))
            let lent = try await l.owner.post("\(l.f.lib)/checkouts", ["cardId": "S012", "titleId": l.titles["Momo"]!])
            let loanID = lent.string("id")
            let due = lent.string("dueAt")

            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("\(l.web)/sign-in")
            let wrong = try await browser.post("\(l.web)/sign-in", ["cardId": "S012", "pin": "1111"])
            #expect(wrong.status == .unauthorized && wrong.html.contains("Ausweisnummer und PIN passen nicht zusammen"), "\(wrong.html)")
            let unknown = try await browser.post("\(l.web)/sign-in", ["cardId": "S999", "pin": "2468"])
            #expect(unknown.status == .unauthorized && unknown.html.contains("Ausweisnummer und PIN passen nicht zusammen"))
            // A member's page without signing in: to the sign-in page.
            let early = try await browser.get("\(l.web)/account")
            #expect(early.status == .ok && early.html.contains("name=\"pin\"") && early.html.contains("value=\"\(l.web)/account\""))
            let signedIn = try await browser.post("\(l.web)/sign-in", ["cardId": "s012", "pin": "2468"])
            #expect(signedIn.status == .seeOther && signedIn.location == "\(l.web)/account", "\(signedIn.html)")
            var account = try await browser.get("\(l.web)/account")
            #expect(account.status == .ok && account.html.contains("Hallo, Mia") && account.html.contains("Momo"), "\(account.html)")
            #expect(!account.html.contains("Okafor") && !account.html.contains("Holes"))

            // Renew: the due date moves on, as the library's policy says.
            #expect(try await browser.post("\(l.web)/account/loans/\(loanID)/renew", [:]).status == .seeOther)
            account = try await browser.get("\(l.web)/account")
            #expect(account.html.contains("verlängert"), "\(account.html)")
            let renewed = try await l.owner.get("\(l.f.lib)/loans").array.first { $0["id"] as? String == loanID } ?? [:]
            #expect(renewed["renewals"] as? Int == 1 && (renewed["dueAt"] as? String ?? "") > due, "\(renewed)")
            // Someone else's loan is not hers to renew.
            let bens = try await l.owner.get("\(l.f.lib)/loans").array.first { $0["memberCardId"] as? String == "S013" }?["id"] as? String ?? ""
            #expect(try await browser.post("\(l.web)/account/loans/\(bens)/renew", [:]).status == .notFound)
            #expect(try await l.owner.get("\(l.f.lib)/loans").array.first { $0["id"] as? String == bens }?["renewals"] as? Int == 0)

            // A hold on Holes (Ben has it): first in the queue; shown on the book and the account; cancelled.
            let holesPage = "\(l.web)/titles/\(l.titles["Holes"]!)"
            #expect(try await browser.post("\(holesPage)/hold", [:]).status == .seeOther)
            let book = try await browser.get(holesPage)
            #expect(book.html.contains("Nummer 1 in der Warteschlange"), "\(book.html)")
            account = try await browser.get("\(l.web)/account")
            #expect(account.html.contains("Holes") && account.html.contains("Nummer 1 in der Warteschlange"))
            let again = try await browser.post("\(holesPage)/hold", [:])
            #expect(again.status == .seeOther)
            #expect(try await browser.get(holesPage).html.contains("flash error"))
            let holds = try await l.owner.get("\(l.f.lib)/holds").array
            #expect(holds.count == 1 && holds.first?["cardId"] as? String == "S012")
            let holdID = holds.first?["id"] as? String ?? ""
            #expect(try await browser.post("\(l.web)/account/holds/\(holdID)/cancel", [:]).status == .seeOther)
            #expect(try await l.owner.get("\(l.f.lib)/holds?state=waiting").array.isEmpty)
            // Ben's hold is not hers to cancel.
            let bensHold = try await l.owner.post("\(l.f.lib)/holds", ["cardId": "S013", "titleId": l.titles["Geschichte"]!])
            #expect(try await browser.post("\(l.web)/account/holds/\(bensHold.string("id"))/cancel", [:]).status == .notFound)

            // Her calendar link, shown once.
            #expect(try await browser.post("\(l.web)/account/calendar", [:]).status == .seeOther)
            account = try await browser.get("\(l.web)/account")
            #expect(account.html.contains("/api/v1/public/calendar/") && account.html.contains(".ics"))

            // Signing out ends the session; a new PIN ends every session.
            #expect(try await browser.post("\(l.web)/sign-out", [:]).status == .seeOther)
            #expect(try await browser.get("\(l.web)/account").html.contains("name=\"pin\""))
            _ = try await browser.post("\(l.web)/sign-in", ["cardId": "S012", "pin": "2468"])
            #expect(try await browser.get("\(l.web)/account").status == .ok)
            #expect(try await l.owner.send(.PUT, "\(l.f.lib)/members/\(mia)/pin", ["pin": "97531"]).status == .noContent)
            #expect(try await browser.get("\(l.web)/account").html.contains("name=\"pin\""))

            // Guessing: after five wrong PINs for a card even the right one waits.
            var guesser = Browser(app: app)
            _ = try await guesser.get("\(l.web)/sign-in")
            for pin in ["0000", "1111", "2222", "3333", "4444"] {
                #expect(try await guesser.post("\(l.web)/sign-in", ["cardId": "S012", "pin": pin]).status == .unauthorized)
            }
            let locked = try await guesser.post("\(l.web)/sign-in", ["cardId": "S012", "pin": "97531"])
            #expect(locked.status == .tooManyRequests, "\(locked.status)")
            // The activity log names the member by card for what they did themselves.
            let activity = try await l.owner.get("\(l.f.lib)/activity?type=renew").array
            #expect(activity.first?["actor"] as? String == "card:S012")
        }
    }

    @Test func anEmailedLinkSignsInOnceThroughARealMailServer() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        try await withTestApp { app in
            app.mailTrustRoots = [smtp.ca]
            let l = try await Self.library(app)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)
            var browser = Browser(app: app)
            // Without a mail server the page offers no link.
            #expect(!(try await browser.get("\(l.web)/sign-in").html.contains("/sign-in/email")))
            let server = try await l.owner.send(.PUT, "\(l.f.lib)/mail/server", [
                "host": "localhost", "port": smtp.port, "security": "starttls", "username": "library", "password": "correct horse battery",
                "senderAddress": "library@school.example",
            ])
            #expect(server.status == .ok, "\(server.json)")
            app.publicURL = "https://library.school.example"
            #expect(try await browser.get("\(l.web)/sign-in").html.contains("/sign-in/email"))
            // A card with an address and one without, and one that does not exist: the same answer.
            for card in ["S012", "S013", "S999"] {
                let asked = try await browser.post("\(l.web)/sign-in/email", ["cardId": card])
                #expect(asked.status == .seeOther && asked.location == "\(l.web)/sign-in?sent=1")
            }
            try await Mailer.deliver(library: UUID(uuidString: l.f.libraryID)!, app: app)
            let received = try smtp.received()
            #expect(received.count == 1 && received.first?.rcpt_tos == ["mia.keller@example.de"], "\(received.map(\.to))")
            let text = received.first?.text ?? ""
            let prefix = "https://library.school.example/public/libraries/\(l.f.libraryID)/sign-in/link/"
            guard let start = text.range(of: prefix) else { Issue.record("no link in \(text)"); return }
            let token = String(text[start.upperBound...].prefix(43))
            let path = "\(l.web)/sign-in/link/\(token)"
            // The delivery log keeps no usable link.
            let bodies = try await app.db.sql.raw("SELECT body FROM mail_messages WHERE kind = 'sign_in_link'").all().map { try $0.decode(column: "body", as: String.self) }
            #expect(bodies == [""])
            // Opening the link uses nothing up; its button signs in, once.
            #expect(try await browser.get(path).html.contains("action=\"\(path)\""))
            #expect(try await browser.get(path).status == .ok)
            let used = try await browser.post(path, [:])
            #expect(used.status == .seeOther && used.location == "\(l.web)/account")
            #expect(try await browser.get("\(l.web)/account").html.contains("Hello, Mia"))
            var other = Browser(app: app)
            _ = try await other.get(path)
            let twice = try await other.post(path, [:])
            #expect(twice.status == .seeOther && twice.location == "\(l.web)/sign-in")
            #expect(try await other.get(twice.location ?? "").html.contains("has been used or has expired"))
            #expect(try await other.get("\(l.web)/account").html.contains("name=\"pin\""))
            // At most three links an hour for a card.
            for _ in 0..<4 { _ = try await browser.post("\(l.web)/sign-in/email", ["cardId": "S012"]) }
            try await Mailer.deliver(library: UUID(uuidString: l.f.libraryID)!, app: app)
            let all = try smtp.received()
            #expect(all.count == 3, "\(all.map(\.rcpt_tos))")
            // A request to a name that is not this server's sends nothing (no one else's server in a link).
            app.publicURL = nil
            var forged = HTTPHeaders()
            forged.replaceOrAdd(name: .host, value: "evil.example")
            forged.add(name: .cookie, value: "shelfmark_csrf=\(String(repeating: "a", count: 40))")
            forged.contentType = .urlEncodedForm
            let response = try await app.testing().sendRequest(.POST, "\(l.web)/sign-in/email", headers: forged,
                                                               body: ByteBuffer(string: "cardId=S013&_csrf=\(String(repeating: "a", count: 40))"))
            #expect(response.status == .seeOther && response.headers.first(name: .location) == "\(l.web)/sign-in")
            #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM mail_messages").first()?.decode(column: "n", as: Int.self) == 3)
        }
    }

    @Test func thePublicCatalogHasItsOwnRateLimit() async throws {
        try await withTestApp { app in
            let l = try await Self.library(app)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)
            app.publicRateLimit = PublicRateLimit(perMinute: 3)
            var browser = Browser(app: app)
            browser.language = "ga"
            for _ in 0..<3 { #expect(try await browser.get(l.web).status == .ok) }
            let page = try await browser.get(l.web)
            #expect(page.status == .tooManyRequests && page.html.contains("soicind"), "\(page.html)")
            let api = try await Client(app: app).get("/api/v1/public/libraries/\(l.f.libraryID)/titles")
            #expect(api.status == .tooManyRequests && api.errorCode == "rate_limited" && api.headers.first(name: "Retry-After") != nil)
            // The staff's own pages and API are not counted here.
            #expect(try await l.owner.get("\(l.f.lib)/titles").status == .ok)
        }
    }
}
