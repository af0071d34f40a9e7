@testable import App
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// Issue 24: every list order answers on both databases from its own index, and the counts the
/// catalog shows (total, A–Z, favourites, where a letter starts) are the kept ones, equal to counting
/// the titles after any kind of write.
@Suite struct CatalogListTests {
    @Test func everyOrderAnswersOnBothDatabasesInItsOrder() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let zebra = try await f.addTitle("Zebra", authors: ["Anna Zorn"])
            let apple = try await f.addTitle("apple pie", authors: ["Émile Bernard"], copies: 2)
            _ = try await f.addTitle("1984", authors: ["George Orwell"])
            _ = try await f.addTitle("Anonymous Tales")
            try await f.addMember("S1", "Ada")
            for _ in 0..<2 {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": apple]).status == .created)
            }
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": zebra]).status == .created)
            func titles(_ sort: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?sort=\(sort)")
                #expect(reply.status == .ok, "sort=\(sort): \(reply.json)")
                return ((reply["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await titles("title") == ["1984", "Anonymous Tales", "apple pie", "Zebra"])
            // By author as written, folded (É with E); a title without authors after every name.
            #expect(try await titles("author") == ["Zebra", "apple pie", "1984", "Anonymous Tales"])
            #expect(try await titles("newest") == ["Anonymous Tales", "1984", "apple pie", "Zebra"])
            #expect(try await titles("borrowed") == ["apple pie", "Zebra", "1984", "Anonymous Tales"])
            // The web's sort chips on the same orders.
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            for sort in TitleSort.allCases {
                #expect(try await browser.get("/libraries/\(f.libraryID)/catalog?sort=\(sort.rawValue)").status == .ok)
            }
        }
    }

    @Test func keptCountsEqualTheTitlesAfterEveryKindOfWrite() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var ids: [String] = []
            for name in ["Momo", "Die unendliche Geschichte", "1984", "Борис Годунов", "Mara", "Zorro", "Emil", "42"] {
                ids.append(try await f.addTitle(name))
            }
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Krabat"])
            #expect(wish.status == .created)
            try await Self.expectKeptCountsTrue(app)
            // A title renamed into another letter, a favourite, a deletion, a wish acquired.
            #expect(try await f.owner.patch("\(f.lib)/titles/\(ids[0])", ["title": "Wolkenkuckucksheim"]).status == .ok)
            #expect(try await f.owner.patch("\(f.lib)/titles/\(ids[4])", ["favorite": true]).status == .ok)
            #expect(try await f.owner.delete("\(f.lib)/titles/\(ids[5])").status == .noContent)
            #expect(try await f.owner.post("\(f.lib)/wishlist/\(wish.string("id"))/acquire", ["copies": 1]).status == .ok)
            // A copy lent (no count changes), one lost (out of circulation), one added.
            try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[1]]).status == .created)
            let copies = try await f.owner.get("\(f.lib)/titles/\(ids[2])/copies").array
            let copyID = try #require(copies.first?["id"] as? String)
            #expect(try await f.owner.patch("\(f.lib)/copies/\(copyID)", ["status": "lost"]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/titles/\(ids[3])/copies", ["count": 2]).status.code < 300)
            try await Self.expectKeptCountsTrue(app)
            let dashboard = try await f.owner.get("\(f.lib)/dashboard")
            #expect(dashboard["copies"] as? Int == (try await Copy.query(on: app.db).filter(\.$status ~~ ["available", "on_loan"]).count()))
            // An import in bulk.
            let csv = "ISBN,Title,Author,Total Copies,Available Copies\n,Amos,A. Writer,1,1\n,Berta,B. Writer,1,1\n,3 Musketiere,Dumas,1,1\n"
            let upload = try await f.owner.send(.POST, "\(f.lib)/import", rawBody: Data(csv.utf8), contentType: "text/csv")
            #expect(upload.status == .accepted, "\(upload.json)")
            let job = try await f.owner.finished(upload)
            #expect(job.status == .ok, "\(job.json)")
            #expect(try await Title.query(on: app.db).filter(\.$title == "Berta").count() == 1)
            try await Self.expectKeptCountsTrue(app)

            let list = try await f.owner.get("\(f.lib)/titles?sections=true&limit=2")
            let inCatalog = try await Title.query(on: app.db).filter(\.$wishlist == false).count()
            #expect(list["total"] as? Int == inCatalog)
            // Where each letter starts, from the kept counts, equals counting the titles before it.
            guard let libraryID = UUID(uuidString: f.libraryID) else { return }
            let titles = try await Title.query(on: app.db).filter(\.$wishlist == false).all()
                .sorted { ($0.sortKey, $0.id!.uuidString) < ($1.sortKey, $1.id!.uuidString) }
            for letter in Set(titles.map(\.section)) {
                let position = try await TitleQuery.position(ofSection: letter, TitleQuery.Filters(), libraryID: libraryID, now: Date(), on: app.db)
                let expected = titles.firstIndex { $0.section == letter }
                if app.db.isSQLite || letter != "#" {
                    #expect(position == expected, "letter \(letter)")
                }
            }
            #expect(try await TitleQuery.position(ofSection: "Q", TitleQuery.Filters(), libraryID: libraryID, now: Date(), on: app.db) == nil)
        }
    }

    /// `title_counts` holds, for each library, list, section, favourite and side of "a", exactly the
    /// number of titles there are.
    static func expectKeptCountsTrue(_ app: Application, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        struct Count: Decodable, Hashable { var section: String; var wishlist: Bool; var favorite: Bool; var n: Int }
        let kept = try await app.db.sql.raw("""
            SELECT section, wishlist, favorite, CAST(SUM(n) AS BIGINT) AS n FROM title_counts
            GROUP BY section, wishlist, favorite HAVING SUM(n) <> 0
            """).all(decoding: Count.self)
        let counted = try await app.db.sql.raw("""
            SELECT section, wishlist, favorite, CAST(COUNT(*) AS BIGINT) AS n FROM titles GROUP BY section, wishlist, favorite
            """).all(decoding: Count.self)
        #expect(Set(kept) == Set(counted), sourceLocation: sourceLocation)
        struct Copies: Decodable, Hashable { var circulating: Bool; var n: Int }
        let keptCopies = try await app.db.sql.raw("SELECT circulating, CAST(SUM(n) AS BIGINT) AS n FROM copy_counts GROUP BY circulating HAVING SUM(n) <> 0")
            .all(decoding: Copies.self)
        let countedCopies = try await app.db.sql.raw("""
            SELECT status IN ('available', 'on_loan') AS circulating, CAST(COUNT(*) AS BIGINT) AS n FROM copies GROUP BY 1
            """).all(decoding: Copies.self)
        #expect(Set(keptCopies) == Set(countedCopies), sourceLocation: sourceLocation)
    }
}
