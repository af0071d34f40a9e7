@testable import App
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// The reading pages in a browser, and a shared year's link.
extension ReadingTests {
    /// A shared year's link is stored only as the SHA-256 of its token (as sessions and
    /// API tokens are): the page shows it once, right after it is made; a new link ends the old one.
    @Test func aSharedYearsLinkIsShownOnceAndKeptOnlyAsItsHash() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let lib = String(catalog.dropLast("/catalog".count))
            let stats = "\(lib)/reading/stats?year=2026"
            func link(_ html: String) -> String? {
                guard let range = html.range(of: "/shared/year/[A-Za-z0-9_-]{43}", options: .regularExpression) else { return nil }
                return String(html[range])
            }
            let made = try await browser.post("\(lib)/reading/share", ["year": "2026"])
            #expect(made.status == .seeOther)
            let first = try await browser.get(stats)
            let shared = try #require(link(first.html), "the link is shown after it is made")
            #expect(try await browser.get(shared).status == .ok)
            // The database holds its hash, not the token.
            let token = String(shared.dropFirst("/shared/year/".count))
            let rows = try await ReadingShare.query(on: app.db).all()
            #expect(rows.map(\.tokenHash) == [Credential.hash(token)])
            // Shown once: the next visit says since when, and offers a new link.
            let again = try await browser.get(stats)
            #expect(link(again.html) == nil)
            #expect(again.html.contains(Strings(lang: .en)(.newShareLink)))
            // A new link ends the old one.
            _ = try await browser.post("\(lib)/reading/share", ["year": "2026"])
            let renewed = try #require(link(try await browser.get(stats).html))
            #expect(renewed != shared)
            #expect(try await browser.get(shared).status == .notFound)
            #expect(try await browser.get(renewed).status == .ok)
            _ = try await browser.post("\(lib)/reading/share", ["year": "2026", "stop": "1"])
            #expect(try await browser.get(renewed).status == .notFound)
            #expect(try await ReadingShare.query(on: app.db).count() == 0)

            // A link made before tokens were hashed keeps working: the migration hashes it in place.
            let old = Data([UInt8].random(count: 32)).base64URLEncodedString()
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let library = try #require(try await Library.query(on: app.db).first()?.requireID())
            try await (app.db as! any SQLDatabase).insert(into: "reading_shares")
                .columns("id", "library_id", "user_id", "year", "token", "created_at")
                .values(SQLBind(UUID()), SQLBind(library), SQLBind(user), SQLBind(2026), SQLBind(old), SQLBind(Date())).run()
            try await onOneConnection(app) { try await HashReadingShareTokens().prepare(on: $0) }
            #expect(try await ReadingShare.query(on: app.db).all().map(\.tokenHash) == [Credential.hash(old)])
            #expect(try await browser.get("/shared/year/\(old)").status == .ok)
        }
    }

    /// The pages: the reading card on a book (status in one tap, the page typed), the Reading list,
    /// the statistics with SVG charts and tables, a member's log from the book page — in German too.
    @Test func theReadingPages() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let lib = String(catalog.dropLast("/catalog".count))
            let api = Client(app: app, token: browser.cookies[Credential.cookieName])
            let libraryID = String(lib.split(separator: "/")[1])
            let made = try await api.post("/api/v1/libraries/\(libraryID)/titles", ["title": "Matilda", "authors": ["Roald Dahl"], "pageCount": 240, "copies": 1])
            let titleID = made.string("id")
            let book = "\(lib)/titles/\(titleID)"

            // The "1/1" pills are explained, and a published date must say a year.
            let catalogPage = try await browser.get(catalog)
            #expect(catalogPage.html.contains("2/3 = copies free / copies") && catalogPage.html.contains("1 of 1 copies free to lend"))
            let noYear = try await api.patch("/api/v1/libraries/\(libraryID)/titles/\(titleID)", ["publishedDate": "yesterday"])
            #expect(noYear.status == .unprocessableEntity && noYear.errorField == "publishedDate")
            #expect(try await api.patch("/api/v1/libraries/\(libraryID)/titles/\(titleID)", ["publishedDate": "October 1988"]).status == .ok)
            // The star control: ten half stars, the title's 3.5 chosen; choosing 4.5 saves it.
            _ = try await api.patch("/api/v1/libraries/\(libraryID)/titles/\(titleID)", ["rating": 3.5])
            let edit = try await browser.get(book + "/edit")
            #expect(edit.html.components(separatedBy: "type=\"radio\" id=\"f-rating-").count == 11)
            #expect(edit.html.contains("id=\"f-rating-7\" name=\"rating\" value=\"3.5\" checked"))

            let page = try await browser.get(book)
            #expect(page.html.contains("id=\"reading\"") && page.html.contains("data-voice=\"f-progress\""))
            #expect(page.html.contains("inputmode=\"numeric\""))
            let saved = try await browser.post(book + "/progress", ["page": "120"])
            #expect(saved.status == .seeOther && saved.location == book + "#reading")
            let after = try await browser.get(book)
            #expect(after.html.contains("Page 120 of 240 · 50 %"), "\(after.html)")
            #expect(after.html.contains("Saved: Page 120 of 240 · 50 %."))
            // The microphone's transcript, and a refusal said on the page.
            _ = try await browser.post(book + "/progress", ["page": "one hundred thirty", "phrase": "one hundred thirty"])
            #expect(try await browser.get(book).html.contains("Page 130 of 240"))
            _ = try await browser.post(book + "/progress", ["page": "999"])
            let refused = try await browser.get(book)
            #expect(refused.html.contains("past the end") && refused.html.contains("flash error"))
            // Status in one tap.
            _ = try await browser.post(book + "/reading-status", ["status": "finished"])
            let finished = try await browser.get(book)
            #expect(finished.html.contains("aria-pressed=\"true\">Finished"))
            // A finished read takes the reader's stars on the card (ten half stars, none chosen yet).
            let readID = try #require(try await api.get("/api/v1/libraries/\(libraryID)/reads?titleId=\(titleID)").array.first?["id"] as? String)
            #expect(finished.html.contains("action=\"\(lib)/reading/\(readID)/rating\""))
            #expect(finished.html.components(separatedBy: "type=\"radio\" id=\"f-read-rating-").count == 11)
            #expect(!finished.html.contains("name=\"read-rating\" value=\"4.5\" checked"))
            let rated = try await browser.post(lib + "/reading/\(readID)/rating", ["read-rating": "4.5"])
            #expect(rated.status == .seeOther && rated.location == book + "#reading")
            let ratedPage = try await browser.get(book)
            #expect(ratedPage.html.contains("name=\"read-rating\" value=\"4.5\" checked") && ratedPage.html.contains("Rating saved."))
            #expect((try await api.get("/api/v1/libraries/\(libraryID)/reads/\(readID)")["read"] as? [String: Any])?["rating"] as? Double == 4.5)
            _ = try await browser.post(lib + "/reading/\(readID)/rating", ["read-rating": "9"])
            #expect(try await browser.get(book).html.contains("flash error"))
            #expect((try await api.get("/api/v1/libraries/\(libraryID)/reads/\(readID)")["read"] as? [String: Any])?["rating"] as? Double == 4.5)

            let list = try await browser.get(lib + "/reading?show=finished")
            #expect(list.html.contains("Matilda") && list.html.contains("Finished (1)"))
            _ = try await browser.post(lib + "/reading/goal", ["year": String(Calendar.current.component(.year, from: Date())), "books": "12"])
            let stats = try await browser.get(lib + "/reading/stats")
            #expect(stats.html.contains("<svg") && stats.html.contains("role=\"img\"") && stats.html.contains("<title id=\"books-month-title\">"))
            #expect(stats.html.contains("<table class=\"data\">") && stats.html.contains("1/12"))

            // A member's log, kept from the book's page with the card ID; shown on the member's page.
            let member = try await api.post("/api/v1/libraries/\(libraryID)/members", ["cardId": "S7", "firstName": "Mia"])
            let logged = try await browser.post(book + "/member-read", ["cardId": "s7", "status": "finished"])
            #expect(logged.status == .seeOther)
            let memberPage = try await browser.get("\(lib)/members/\(member.string("id"))")
            #expect(memberPage.html.contains("Reading log") && memberPage.html.contains("Matilda"))
            let unknown = try await browser.post(book + "/member-read", ["cardId": "NOPE", "status": "finished"])
            #expect(unknown.status == .seeOther)
            #expect(try await browser.get(book).html.contains("NOPE"))

            // A teacher's view: the member's own statistics and goal, and the class this term.
            _ = try await api.patch("/api/v1/libraries/\(libraryID)/members/\(member.string("id"))", ["grade": "4B"])
            let other = try await api.post("/api/v1/libraries/\(libraryID)/members", ["cardId": "S8", "firstName": "Noah", "grade": "4b"])
            #expect(other.status == .created)
            let memberStats = try await browser.get(lib + "/reading/stats?member=\(member.string("id"))")
            #expect(memberStats.html.contains("Mia&#39;s") || memberStats.html.contains("Mia's"), "\(memberStats.html.prefix(3000))")
            _ = try await browser.post(lib + "/reading/goal", ["year": String(Calendar.current.component(.year, from: Date())), "books": "30",
                                                               "member": member.string("id")])
            #expect(try await browser.get(lib + "/reading/stats?member=\(member.string("id"))").html.contains("1/30"))
            #expect(try await browser.get(lib + "/reading/stats").html.contains("1/12"))   // the teacher's own goal is apart
            let noClass = try await browser.get(lib + "/reading/class")
            #expect(noClass.html.contains("Choose a class") && noClass.html.contains("?grade=4B"))
            let classPage = try await browser.get(lib + "/reading/class?grade=4B")
            #expect(classPage.status == .ok)
            #expect(classPage.html.contains("Mia") && classPage.html.contains("Noah") && classPage.html.contains("Books finished since") && classPage.html.contains(": 1</p>"))
            let since = try await browser.get(lib + "/reading/class?grade=4B&since=2999-01-01")
            #expect(since.html.contains(": 0</p>"))

            // The year shared by a secret link: anyone with it sees the figures, not the notes; stopping ends it.
            let shared = try await browser.post(lib + "/reading/share", ["year": String(Calendar.current.component(.year, from: Date()))])
            #expect(shared.status == .seeOther)
            let withLink = try await browser.get(lib + "/reading/stats")
            let token = try #require(withLink.html.range(of: #"/shared/year/[A-Za-z0-9_-]{43}"#, options: .regularExpression)
                .map { String(withLink.html[$0].dropFirst("/shared/year/".count)) })
            var stranger = Browser(app: app)
            let summary = try await stranger.get("/shared/year/\(token)")
            #expect(summary.status == .ok && summary.html.contains("in books") && summary.html.contains("<svg"))
            #expect(!summary.html.contains("Eine Seite") && !summary.html.contains("Lieblings"))
            #expect(try await stranger.get("/shared/year/\(String(repeating: "A", count: 43))").status == .notFound)
            _ = try await browser.post(lib + "/reading/share", ["year": String(Calendar.current.component(.year, from: Date())), "stop": "1"])
            #expect(try await stranger.get("/shared/year/\(token)").status == .notFound)

            browser.language = "de"
            let german = try await browser.get(lib + "/reading/stats")
            #expect(german.html.contains("Ihr Lesejahr") && german.html.contains("Als Tabelle zeigen"))
            #expect(try await browser.get(book).html.contains("Ihr Lesen"))
        }
    }
}
