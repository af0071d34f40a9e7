@testable import App
import Foundation
import SQLKit
import Testing
import VaporTesting

/// Titles that name their library by its number (`TitlesByLibraryNumber`) are the titles they were. The
/// update from titles named by id (what every older database has) keeps each title with its library, list,
/// order and rowid (the search index names titles by rowid), and what refers to a title: on SQLite the
/// table is made again, and dropping the old one must not run the copies', loans' and reads' `ON DELETE`
/// actions. The kept counts, the search scopes, the readers' votes, every device's cursor and a deleted
/// library's titles go on as before.
@Suite struct TitlesByLibraryNumberTests {
    struct TitleFacts: Decodable, Hashable {
        var id: UUID; var library_id: UUID; var title: String; var wishlist: Bool; var sort_key: String; var rowid: Int
        var rating_score: Double?; var open_loans: Int; var loan_count: Int
    }

    static func titles(_ app: Application) async throws -> Set<TitleFacts> {
        let numbered = try await LibraryNumber.numbered("titles", on: app.db.sql)
        let library = numbered ? "(SELECT l.id FROM libraries l WHERE l.no = t.library_no)" : "t.library_id"
        // PostgreSQL has no rowid: the id stands in for it there.
        let rowid = Dialect(app.db) == .sqlite ? "t.rowid" : "0"
        return Set(try await app.db.sql.raw(SQLQueryString("""
            SELECT t.id, \(library) AS library_id, t.title, t.wishlist, t.sort_key, \(rowid) AS rowid, t.rating_score, t.open_loans, t.loan_count
            FROM titles t
            """)).all(decoding: TitleFacts.self))
    }

    /// The kept counts of titles per library and list, and the same counted from the titles.
    static func counts(_ app: Application) async throws -> (kept: [String: Int], counted: [String: Int]) {
        struct Count: Decodable { var library_id: UUID; var wishlist: Bool; var n: Int }
        let kept = try await app.db.sql.raw("""
            SELECT library_id, wishlist, CAST(SUM(n) AS BIGINT) AS n FROM title_counts GROUP BY library_id, wishlist HAVING SUM(n) <> 0
            """).all(decoding: Count.self)
        var counted: [String: Int] = [:]
        for t in try await titles(app) { counted["\(t.library_id) \(t.wishlist)", default: 0] += 1 }
        return (Dictionary(uniqueKeysWithValues: kept.map { ("\($0.library_id) \($0.wishlist)", $0.n) }), counted)
    }

    @Test func theUpdateKeepsEveryTitleWhatRefersToItItsSearchAndEveryCursor() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2, extra: ["rating": 3])
            let holes = try await f.addTitle("Holes", copies: 1, extra: ["favorite": true])
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Matilda", "requestedBy": "Ada"])
            #expect(wish.status == .created, "\(wish.json)")
            let ada = try await f.addMember("S001", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": holes]).status == .created)
            let read = try await f.owner.post("\(f.lib)/reads", ["titleId": momo, "memberId": ada, "status": "finished", "rating": 5])
            #expect(read.status == .created, "\(read.json)")
            let made = try await f.owner.post("/api/v1/libraries", ["name": "Room 14"])
            let room14 = Fixture(app: app, owner: f.owner, libraryID: made.string("id"))
            _ = try await room14.addTitle("Momo", copies: 1)
            _ = try await room14.addTitle("Krabat", copies: 2)
            var device = SyncTests.Device(f.owner, lib: f.lib, id: "phone")
            var device14 = SyncTests.Device(f.owner, lib: room14.lib, id: "tablet")
            try await device.pull()
            try await device14.pull()

            let titles = try await Self.titles(app)
            let copies = try await CopiesByLibraryNumberTests.copies(app)
            struct Ref: Decodable, Hashable { var id: UUID; var title_id: UUID? }
            let loans = Set(try await app.db.sql.raw("SELECT id, title_id FROM loans").all(decoding: Ref.self))
            let reads = Set(try await app.db.sql.raw("SELECT id, title_id FROM reads").all(decoding: Ref.self))
            #expect(titles.count == 5 && copies.count == 6 && loans.count == 1 && reads.count == 1)
            #expect(titles.first { $0.title == "Momo" && $0.library_id.uuidString == f.libraryID.uppercased() }?.rating_score == 4)
            let (kept, counted) = try await Self.counts(app)
            #expect(kept == counted)

            // As an older database has them, then updated.
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            #expect(try await Self.titles(app) == titles)
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }

            #expect(try await Self.titles(app) == titles, "every title with its library, list, order and rowid")
            #expect(try await CopiesByLibraryNumberTests.copies(app) == copies, "the copies keep their titles")
            #expect(Set(try await app.db.sql.raw("SELECT id, title_id FROM loans").all(decoding: Ref.self)) == loans, "the loans keep their titles")
            #expect(Set(try await app.db.sql.raw("SELECT id, title_id FROM reads").all(decoding: Ref.self)) == reads, "the reads keep their titles")
            let (keptAfter, countedAfter) = try await Self.counts(app)
            #expect(keptAfter == kept && countedAfter == counted)
            if Dialect(app.db) == .sqlite {
                struct Kind: Decodable { var kind: String; var n: Int }
                let kinds = try await app.db.sql.raw("SELECT typeof(library_no) AS kind, COUNT(*) AS n FROM titles GROUP BY 1").all(decoding: Kind.self)
                #expect(kinds.map { [$0.kind, String($0.n)] } == [["integer", "5"]])
            }

            // Each library's search finds its own titles only, the wishlist its own.
            func found(_ fixture: Fixture, _ path: String) async throws -> [String] {
                let reply = try await fixture.owner.get("\(fixture.lib)/\(path)")
                #expect(reply.status == .ok, "\(reply.json)")
                return ((reply.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await found(f, "titles?q=mo") == ["Momo"])
            #expect(try await found(room14, "titles?q=mo") == ["Momo"])
            #expect(try await found(room14, "titles?q=krab") == ["Krabat"])
            #expect(try await found(f, "titles?q=krab").isEmpty)
            #expect(try await found(f, "wishlist?q=mati") == ["Matilda"])
            #expect(try await found(f, "titles?favorites=true") == ["Holes"])
            #expect(try await found(f, "titles?onLoan=true") == ["Holes"])
            // The readers' votes still move the kept rating: (3 + 1) / 2.
            let changed = try await f.owner.patch("\(f.lib)/reads/\(read.string("id"))?memberId=\(ada)", ["rating": 1])
            #expect(changed.status == .ok, "\(changed.json)")
            #expect(try await found(f, "titles?minRating=2") == ["Momo"])
            #expect(try await found(f, "titles?minRating=2.5").isEmpty)

            // Nothing changed for a device, and what changes after reaches it.
            let quiet = try await device.pullOnce()
            #expect(quiet.changes.isEmpty, "\(quiet.changes)")
            #expect(try await f.owner.patch("\(f.lib)/titles/\(momo)", ["title": "Momo und die Zeitdiebe"]).status == .ok)
            _ = try await f.addTitle("Emil", copies: 1)
            let heidi = try await f.addTitle("Heidi", copies: 1)
            #expect(try await f.owner.delete("\(f.lib)/titles/\(heidi)").status == .noContent)
            try await device.pull()
            SyncTests.expectEqual(device.mirror, try await SyncTests.serverState(app, library: f.libraryID), "after the update")
            try await device14.pull()
            SyncTests.expectEqual(device14.mirror, try await SyncTests.serverState(app, library: room14.libraryID), "the other library")
            let (keptLater, countedLater) = try await Self.counts(app)
            #expect(keptLater == countedLater)

            // A library deleted takes its titles and their counts with it, by their number.
            #expect(try await f.owner.delete("\(room14.lib)?confirm=true").status == .noContent)
            let left = try await Self.titles(app)
            #expect(!left.isEmpty && left.allSatisfy { $0.library_id.uuidString == f.libraryID.uppercased() }, "\(left)")
            let (keptLast, countedLast) = try await Self.counts(app)
            #expect(keptLast == countedLast)
        }
    }
}
