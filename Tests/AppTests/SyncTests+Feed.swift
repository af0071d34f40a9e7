@testable import App
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// The feed itself and what devices push besides lending: a cursor taken while a write is open, purged
/// removals, a library's own feed and its bounds, title edits merged by field, reading life.
extension SyncTests {
    @Test func aCursorTakenWhileALongWriteIsOpenDoesNotSkipIt() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            let library = try #require(UUID(uuidString: f.libraryID))
            let (opened, openedSignal) = AsyncStream<Void>.makeStream()
            let (release, releaseSignal) = AsyncStream<Void>.makeStream()
            @Sendable func insert(_ card: String, on db: any Database) async throws {
                try await db.sql.raw("""
                    INSERT INTO members (id, library_id, card_id, first_name, last_name, search_text)
                    VALUES (\(bind: UUID()), \(bind: library), \(bind: card), \(bind: card), '', \(bind: card.lowercased()))
                    """).run()
            }
            let long = Task {
                try await app.writeGate.transaction(on: app.db) { db in
                    try await insert("LONG", on: db)
                    openedSignal.yield()
                    for await _ in release { break }
                }
            }
            for await _ in opened { break }
            // Another write commits while the long one is open (on SQLite it waits for it).
            let short = Task { try await app.writeGate.transaction(on: app.db) { db in try await insert("SHORT", on: db) } }
            try await Task.sleep(for: .milliseconds(100))
            // On PostgreSQL the short write has committed, after the long one took its version: the pull
            // may not move past the long one. (SQLite writes one at a time, and the open write holds its
            // event loop's one connection, so a read there would wait for it.)
            if Dialect(app.db) != .sqlite {
                let during = try await device.pullOnce()
                #expect(!during.changes.contains { $0.member?.cardId == "LONG" })
                #expect(!during.changes.contains { $0.member?.cardId == "SHORT" } && during.behind)
            }
            releaseSignal.yield()
            try await long.value
            try await short.value
            try await device.pull()
            let cards = Set(device.mirror.values.compactMap(\.member?.cardId))
            #expect(cards == ["S001", "LONG", "SHORT"], "\(cards)")
        }
    }

    /// The log made compact (SQLite: its ids as 16 bytes, no second copy of its key) says what it said:
    /// a cursor from before still gets exactly what changed after it, removals and their age included.
    @Test func theCompactLogKeepsEveryCursorAndRemoval() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada")
            let ben = try await f.addMember("S002", "Ben")
            _ = try await f.addTitle("Momo", isbn: "9783522202602")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            // Back to the log as it was before (the server's code reads only the compact one), and a removal
            // written into it. (The copies and titles naming their library by number came after the log's numbers.)
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await SyncLogLibraryNumbers().revert(on: $0) }
            try await onOneConnection(app) { try await CompactSyncLog().revert(on: $0) }
            // Its ids as bytes, as the tables keep them now (the old log kept text).
            try await onOneConnection(app) { try await IdsAsBytes().prepare(on: $0) }
            // Removed by the database alone: this version's code reads the loans by their library's number.
            try await app.db.sql.raw("DELETE FROM members WHERE id = \(bind: UUID(uuidString: ben)!)").run()
            let cursor = try #require(device.cursor)
            struct Count: Decodable { var n: Int; var removed: Int }
            let count = "SELECT COUNT(*) AS n, SUM(CASE WHEN deleted THEN 1 ELSE 0 END) AS removed FROM sync_log"
            let before = try #require(try await app.db.sql.raw(SQLQueryString(count)).first(decoding: Count.self))
            try await onOneConnection(app) { try await CompactSyncLog().prepare(on: $0) }
            // Its triggers convert ids from text, as the tables kept them then: made again for ids kept as bytes.
            try await onOneConnection(app) { try await IdsAsBytes().prepare(on: $0) }
            try await onOneConnection(app) { try await SyncLogLibraryNumbers().prepare(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }
            let after = try #require(try await app.db.sql.raw(SQLQueryString(count)).first(decoding: Count.self))
            #expect(after.n == before.n && after.removed == before.removed && after.removed == 1)
            if Dialect(app.db) == .sqlite {
                struct Shape: Decodable { var id: String; var changed: Double? }
                let shapes = try await app.db.sql.raw("SELECT typeof(entity_id) AS id, changed_at AS changed FROM sync_log").all(decoding: Shape.self)
                #expect(shapes.allSatisfy { $0.id == "blob" })
                #expect(shapes.filter { $0.changed != nil }.count == 1, "a time only for the removal")
            }
            // The old cursor: exactly the removal, then a new change written in the compact form.
            // (On PostgreSQL a write still open elsewhere may hold the feed back a moment: pull until it is not.)
            var changes: [SyncChange] = []
            for _ in 0..<200 {
                let page = try await device.pullOnce()
                changes += page.changes
                if !page.more && !page.behind { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(changes.filter { $0.removed == true }.map(\.id.uuidString) == [ben.uppercased()], "\(changes)")
            _ = try await f.addTitle("Krabat", isbn: "9783423625043")
            try await device.pull()
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "after the log was made compact")
            // The removal is purged at its age, as before.
            let library = try #require(UUID(uuidString: f.libraryID))
            #expect(try await Sync.purge(library: library, now: Date().addingTimeInterval(31 * 86_400), gate: app.writeGate, on: app.db) == 1)
        }
    }

    /// The log naming libraries by number says what it said: each library's cursor from before still gets
    /// exactly what changed after it in that library, a removal included; a deleted library's log goes with
    /// it, and a library made afterwards has a number and a feed of its own.
    @Test func theLogNamingLibrariesByNumberKeepsEveryCursor() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let ben = try await f.addMember("S002", "Ben")
            _ = try await f.addTitle("Momo", isbn: "9783522202602")
            let made = try await f.owner.post("/api/v1/libraries", ["name": "Room 14"])
            let other = made.string("id")
            let room14 = Fixture(app: app, owner: f.owner, libraryID: other)
            _ = try await room14.addTitle("Krabat", isbn: "9783423625043", copies: 2)
            var device = Device(f.owner, lib: f.lib, id: "phone")
            var device14 = Device(f.owner, lib: room14.lib, id: "tablet")
            try await device.pull()
            try await device14.pull()

            // Back to the log naming libraries by id, and changes written into it.
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await SyncLogLibraryNumbers().revert(on: $0) }
            // Removed by the database alone: this version's code reads the loans by their library's number.
            try await app.db.sql.raw("DELETE FROM members WHERE id = \(bind: UUID(uuidString: ben)!)").run()
            _ = try await room14.addMember("R001", "Rosa")
            struct Count: Decodable { var n: Int; var removed: Int; var versions: Int64 }
            let count = "SELECT COUNT(*) AS n, SUM(CASE WHEN deleted THEN 1 ELSE 0 END) AS removed, CAST(SUM(version) AS BIGINT) AS versions FROM sync_log"
            let before = try #require(try await app.db.sql.raw(SQLQueryString(count)).first(decoding: Count.self))

            try await onOneConnection(app) { try await SyncLogLibraryNumbers().prepare(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }
            let after = try #require(try await app.db.sql.raw(SQLQueryString(count)).first(decoding: Count.self))
            #expect(after.n == before.n && after.removed == before.removed && after.versions == before.versions && after.removed == 1)
            struct Number: Decodable { var no: Int }
            let numbers = try await app.db.sql.raw("SELECT no FROM libraries ORDER BY no").all(decoding: Number.self).map(\.no)
            #expect(numbers == [1, 2])
            struct Named: Decodable { var no: Int; var n: Int }
            let byLibrary = try await app.db.sql.raw("""
                SELECT library_id AS no, COUNT(*) AS n FROM sync_log GROUP BY library_id ORDER BY library_id
                """).all(decoding: Named.self)
            #expect(byLibrary.map(\.no) == numbers, "every row names a library by its number")

            // Each old cursor: exactly its library's changes since.
            var changes: [SyncChange] = [], changes14: [SyncChange] = []
            for _ in 0..<200 {
                let page = try await device.pullOnce()
                changes += page.changes
                if !page.more && !page.behind { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            for _ in 0..<200 {
                let page = try await device14.pullOnce()
                changes14 += page.changes
                if !page.more && !page.behind { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(changes.map(\.id.uuidString) == [ben.uppercased()] && changes.first?.removed == true, "\(changes)")
            #expect(changes14.compactMap(\.member?.cardId) == ["R001"] && changes14.count == 1, "\(changes14)")
            // Later changes are written by number and reach the right device.
            _ = try await f.addTitle("Die unendliche Geschichte", isbn: "9783522202008")
            try await device.pull()
            try await device14.pull()
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "Room 12 after the update")
            Self.expectEqual(device14.mirror, try await Self.serverState(app, library: other), "Room 14 after the update")
            let library = try #require(UUID(uuidString: f.libraryID))
            #expect(try await Sync.purge(library: library, now: Date().addingTimeInterval(31 * 86_400), gate: app.writeGate, on: app.db) == 1)

            // A deleted library's log goes with it; the next library takes the next number and starts a log of its own.
            #expect(try await f.owner.delete("\(room14.lib)?confirm=true").status == .noContent)
            let left = try await app.db.sql.raw("SELECT library_id AS no, COUNT(*) AS n FROM sync_log GROUP BY library_id").all(decoding: Named.self)
            #expect(left.map(\.no) == [1], "\(left.map(\.no))")
            let third = try await f.owner.post("/api/v1/libraries", ["name": "Room 16"])
            let room16 = Fixture(app: app, owner: f.owner, libraryID: third.string("id"))
            _ = try await room16.addMember("T001", "Tom")
            let numbered = try await app.db.sql.raw("SELECT no FROM libraries ORDER BY no").all(decoding: Number.self).map(\.no)
            #expect(numbered == [1, 2], "the freed number is taken again: its log went with its library")
            var device16 = Device(f.owner, lib: room16.lib, id: "laptop")
            try await device16.pull()
            #expect(device16.mirror.values.compactMap(\.member?.cardId) == ["T001"] && device16.mirror.count == 1, "\(device16.mirror)")
        }
    }

    @Test func oldTombstonesArePurgedAndAnOlderCursorMustFetchAgain() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let ben = try await f.addMember("S002", "Ben")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            let old = try #require(device.cursor)
            #expect(try await f.owner.delete("\(f.lib)/members/\(ben)").status == .noContent)
            let library = try #require(UUID(uuidString: f.libraryID))
            // Not yet old enough: kept.
            #expect(try await Sync.purge(library: library, now: Date(), gate: app.writeGate, on: app.db) == 0)
            #expect(try await Sync.purge(library: library, now: Date().addingTimeInterval(31 * 86_400), gate: app.writeGate, on: app.db) == 1)
            let reply = try await f.owner.send(.GET, "\(f.lib)/sync/changes?cursor=\(old)", headers: ["Accept-Language": "ga"])
            #expect(reply.status == .gone && reply.errorCode == "sync_refetch", "\(reply.json)")
            #expect(reply.errorMessage?.contains("leabharlann") == true)
            // From the start, the device is whole again.
            var fresh = Device(f.owner, lib: f.lib, id: "phone")
            try await fresh.pull()
            Self.expectEqual(fresh.mirror, try await Self.serverState(app, library: f.libraryID), "after a refetch")
        }
    }

    @Test func theFeedIsTheLibrarysOwnAndBoundedAndCursorsAreChecked() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada")
            let viewer = try await f.staff("vic", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/sync/changes").status == .ok)
            // A viewer reads, but lending from a device is refused like the API's.
            let lent = try await Device(viewer, lib: f.lib, id: "v").send([["seq": 1, "op": "checkout", "cardId": "S001", "copyBarcode": "X"]])
            #expect(lent.first?.status == .rejected && lent.first?.code == "forbidden")
            // Someone else's library: not found.
            let other = try await Client(app: app, token: f.owner.token).post("/api/v1/libraries", ["name": "Other"])
            let stranger = try await f.staff("sam", role: "librarian")
            #expect(try await stranger.get("/api/v1/libraries/\(other.string("id"))/sync/changes").status == .notFound)
            #expect(try await stranger.post("/api/v1/libraries/\(other.string("id"))/sync/push",
                                             ["clientId": "x", "mutations": [["seq": 1, "op": "return", "copyBarcode": "X"]]]).status == .notFound)
            // Cursors and sizes are checked.
            for bad in ["x", "v-1", "v1.9.00000000-0000-0000-0000-000000000000", "v99999999999999999999"] {
                let reply = try await f.owner.get("\(f.lib)/sync/changes?cursor=\(bad)")
                #expect(reply.status == .unprocessableEntity && reply.errorField == "cursor", "\(bad)")
            }
            let tooLarge = try await f.owner.get("\(f.lib)/sync/changes?limit=5001")
            #expect(tooLarge.status == .badRequest && tooLarge.errorField == "limit", "\(tooLarge.status) \(String(buffer: tooLarge.body).prefix(200))")
            let many = (1...501).map { ["seq": $0, "op": "return", "copyBarcode": "X"] as [String: Any] }
            let tooMany = try await f.owner.post("\(f.lib)/sync/push", ["clientId": "x", "mutations": many])
            #expect(tooMany.status == .unprocessableEntity && tooMany.errorField == "mutations")
            let noClient = try await f.owner.post("\(f.lib)/sync/push", ["clientId": " ", "mutations": [["seq": 1, "op": "return"]]])
            #expect(noClient.status == .unprocessableEntity && noClient.errorField == "clientId")
            // An incomplete mutation is answered, not a failed push.
            let incomplete = try await Device(f.owner, lib: f.lib, id: "x").send([["seq": 1, "op": "renew"], ["seq": 2, "op": "progress", "page": 3]])
            #expect(incomplete.map(\.status) == [.rejected, .rejected] && incomplete.map(\.field) == ["loanId", "titleId"])
        }
    }

    @Test func progressAndQuotesFromADeviceAreAddedOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 1, extra: ["pageCount": 300])
            var device = Device(f.owner, lib: f.lib, id: "reader")
            device.enqueue("progress", ["titleId": title, "page": 157])
            device.enqueue("quote", ["titleId": title, "text": "Zeit ist Leben.", "quotePage": "57"])
            let sent = device.queue
            let results = try await device.push().results
            #expect(results.map(\.status) == [.applied, .applied], "\(results)")
            #expect(results[0].read?.page == 157)
            _ = try await device.send(sent)
            let quotes = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM quotes").first()?.decode(column: "n", as: Int.self)
            let events = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM progress_events").first()?.decode(column: "n", as: Int.self)
            #expect(quotes == 1 && events == 1)
        }
    }

    @Test func titleEditsMergeByFieldAndTheNewerChangeWinsAField() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Krabat", authors: ["Otfried Preußler"], copies: 1, extra: ["series": "Classics"])
            var device = Device(f.owner, lib: f.lib, id: "tablet")
            try await device.pull()
            let seen = try #require(device.mirror["title:\(title)"]?.title)
            let editedOffline = clock.now
            clock.advance(days: 0.01)
            // Meanwhile on the server: another field, and the same field later than the device's edit.
            #expect(try await f.owner.patch("\(f.lib)/titles/\(title)", ["publisher": "Thienemann", "series": "Favourites"]).status == .ok)
            clock.advance(days: 0.01)
            device.enqueue("editTitle", ["titleId": title, "fields": ["subtitle": "Roman", "series": "Schule"],
                                         "base": ["subtitle": "", "series": seen.series ?? ""],
                                         "editedAt": ISO8601DateFormatter().string(from: editedOffline)])
            let result = try #require(try await device.push().results.first)
            #expect(result.status == .applied, "\(result)")
            #expect(result.kept == ["series"])
            #expect(result.title?.subtitle == "Roman" && result.title?.series == "Favourites" && result.title?.publisher == "Thienemann")
            // An edit made after the server's: the device's value wins; a tie also goes to the device.
            try await device.pull()
            let now = clock.now
            device.enqueue("editTitle", ["titleId": title, "fields": ["series": "Schule"], "base": ["series": "Classics"],
                                         "editedAt": ISO8601DateFormatter().string(from: now.addingTimeInterval(60))])
            let later = try #require(try await device.push().results.first)
            #expect(later.status == .applied && later.kept == nil && later.title?.series == "Schule", "\(later)")
            // An edit naming no field, and one by a volunteer, are refused with the reason.
            device.enqueue("editTitle", ["titleId": title, "fields": [:] as [String: Any]])
            #expect(try await device.push().results.first?.code == "invalid")
            let volunteer = Device(try await f.staff("vera", role: "volunteer"), lib: f.lib, id: "v")
            let refused = try await volunteer.send([["seq": 1, "op": "editTitle", "titleId": title, "fields": ["series": "X"]]])
            #expect(refused.first?.status == .rejected && refused.first?.code == "forbidden", "\(refused)")
        }
    }
}
