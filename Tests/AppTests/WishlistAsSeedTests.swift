@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkReplay
import Testing
import Vapor
import VaporTesting

/// The wishlist as the seed describes it: its CSV has the catalog's columns and comes back as a
/// wishlist, rows without an ISBN are matched by a search for title and author, and its share link
/// opens something a friend can see.
@Suite(.serialized) struct WishlistAsSeedTests {
    @Test func theWishlistCSVHasTheCatalogsColumnsAndRowsWithoutAnISBNAreMatched() async throws {
        try await withReplayProviders { app, _ in
            let f = try await Fixture.make(app)
            _ = try await f.owner.post("\(f.lib)/wishlist", ["title": "Signals and Shelves", "authors": ["Maren Okafor"], "isbn": "9780306406157",
                                                             "notes": "For the robotics club"])
            let (_, csv) = try await PrintTests.download(f.owner, "\(f.lib)/export?format=wishlist-csv")
            let lines = String(decoding: csv, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: true).map(String.init)
            #expect(lines.first == "ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes")
            #expect(lines.dropFirst().first?.hasPrefix("9780306406157,Signals and Shelves,Maren Okafor,0,0,") == true, "\(lines)")
            #expect(lines.dropFirst().first?.hasSuffix(",For the robotics club") == true)

            // Read back into another library as its wishlist (the export's own file, format named), with a
            // row the seed's format allows: a title and an author, no ISBN.
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Annex"])
            let annex = "/api/v1/libraries/\(other.string("id"))"
            let file = String(decoding: csv, as: UTF8.self) + "\r\n,Children of Ruin,Adrian Tchaikovsky,0,0,,,,,\r\n,A Book Nobody Knows,Anon,0,0,,,,,\r\n"
            let upload = try await f.owner.send(.POST, "\(annex)/import?format=wishlist-csv", rawBody: Data(file.utf8), contentType: "text/csv")
            #expect(upload.status == .accepted, "\(upload.json)")
            #expect(try await f.owner.finished(upload).status == .ok)
            #expect(((try await f.owner.get("\(annex)/titles"))["items"] as? [Any])?.isEmpty == true)
            _ = try await Enrichment.drain(app: app, owner: "test")
            let wishes = ((try await f.owner.get("\(annex)/wishlist"))["items"] as? [[String: Any]]) ?? []
            let byTitle = Dictionary(uniqueKeysWithValues: wishes.map { ($0["title"] as? String ?? "", $0) })
            #expect(byTitle.keys.sorted() == ["A Book Nobody Knows", "Children of Ruin", "Signals and Shelves"])
            // Matched by title and author: the ISBN and the cover came from the search's book; the unknown one stays as typed.
            #expect(byTitle["Children of Ruin"]?["isbn13"] as? String == "9780316452526")
            #expect(byTitle["A Book Nobody Knows"]?["isbn13"] == nil)
            #expect(byTitle["Signals and Shelves"]?["isbn13"] as? String == "9780306406157")
        }
    }

    @Test func theWishlistsShareLinkOpensThePublicWishlistOrTheStore() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Momo", "authors": ["Michael Ende"], "isbn": "9780306406157",
                                                                    "requestedBy": "Ada Lovelace"]).string("id")
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            // Not published: the share link is the book at the store, the public page is not there.
            let closed = try await browser.get("/libraries/\(f.libraryID)/wishlist")
            #expect(closed.html.contains("data-share-url=\"https://www.amazon.com/s?k=9780306406157"), "\(closed.html)")
            var visitor = Browser(app: app)
            #expect(try await visitor.get("/public/libraries/\(f.libraryID)/wishlist").status == .notFound)

            #expect(try await f.owner.patch(f.lib, ["publicCatalog": true]).status == .ok)
            let open = try await browser.get("/libraries/\(f.libraryID)/wishlist")
            #expect(open.html.contains("data-share-url=\"/public/libraries/\(f.libraryID)/wishlist#wish-\(wish)\""), "\(open.html)")
            visitor.language = "de"
            let page = try await visitor.get("/public/libraries/\(f.libraryID)/wishlist")
            #expect(page.status == .ok)
            #expect(page.html.contains("id=\"wish-\(wish)\"") && page.html.contains(">Momo<") && page.html.contains("Michael Ende"))
            #expect(page.html.contains("Wunschliste"), "\(page.html)")
            // Who asked for it is the staff's to know.
            #expect(!page.html.contains("Ada Lovelace"))
        }
    }
}
