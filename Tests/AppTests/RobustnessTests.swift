@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// Robustness under faults.
@Suite struct RobustnessTests {
    /// Two instances starting at once on an empty PostgreSQL: both migrate (one waits for the other's
    /// lock) and both come up. Runs when the suite runs on PostgreSQL.
    @Test func instancesStartingTogetherOnAnEmptyPostgreSQLBothComeUp() async throws {
        guard let url = ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"], !url.isEmpty else { return }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var apps: [Application] = []
        for _ in 0..<3 {
            let app = try await Application.make(.testing)
            try configure(app, storage: .postgres(url: url, schema: schema))
            apps.append(app)
        }
        try await apps[0].db.sql.raw("CREATE SCHEMA \(ident: schema)").run()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for app in apps { group.addTask { try await app.migrateHoldingLock() } }
                try await group.waitForAll()
            }
            let reply = try await Client(app: apps[1]).post("/api/v1/setup", ["username": "owner", "password": "correct horse"])
            #expect(reply.status == .created)
            let count = try await apps[2].db.sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            #expect(count == 1)
        } catch {
            Issue.record("a concurrent start failed: \(describe(error))")
        }
        try? await apps[0].db.sql.raw("DROP SCHEMA \(ident: schema) CASCADE").run()
        for app in apps { try await app.asyncShutdown() }
    }

    /// A full disk, by SQLite's own limit on the file's size (`max_page_count`) set on every connection:
    /// writes answer a clear 507 `disk_full`, `/health` says writes fail, and as soon as there is room
    /// again everything works (sign-in included) without a restart.
    @Test func aFullDiskIsReportedClearlyAndRecoveredFromAtOnce() async throws {
        guard ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"]?.isEmpty ?? true else { return }
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            func limitPages(_ pages: Int?) async throws {
                for loop in app.eventLoopGroup.makeIterator() {
                    let db = try #require(app.databases.database(.sqlite, logger: app.logger, on: loop))
                    let n = try await db.sql.raw("PRAGMA page_count").first()?.decode(column: "page_count", as: Int.self) ?? 0
                    try await db.sql.raw("PRAGMA max_page_count = \(unsafeRaw: String(pages ?? (n + 2)))").run()
                }
            }
            try await limitPages(nil)
            var full: Client.Reply?
            for i in 0..<60 {
                let reply = try await f.owner.post("\(f.lib)/titles", ["title": "Book \(i)", "description": String(repeating: "words ", count: 3_000)])
                if reply.status != .created { full = reply; break }
            }
            let refused = try #require(full, "the disk never filled")
            #expect(refused.status == .insufficientStorage, "\(refused.status) \(refused.json)")
            #expect(refused.errorCode == "disk_full")
            let degraded = try await Client(app: app).get("/api/v1/health")
            #expect(degraded.status == .serviceUnavailable)
            #expect(degraded["writes"] as? String == "failing")

            try await limitPages(1_000_000_000)
            let healthy = try await Client(app: app).get("/api/v1/health")
            #expect(healthy.status == .ok)
            #expect(healthy["writes"] as? String == "ok")
            #expect(try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/titles", ["title": "After"]).status == .created)
        }
    }

    /// A loan starts when its copy is claimed: a check-out that waited for the writer is stamped with
    /// the moment it got it, so one copy's loans never overlap in the history. (The writer is held on
    /// one event loop's connection and the check-out reads on another's, so only the write waits.)
    @Test func aLoanIsStampedWhenItsCopyIsClaimed() async throws {
        guard ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"]?.isEmpty ?? true else { return }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S1", "Ada")
            var loops = app.eventLoopGroup.makeIterator()
            guard let first = loops.next(), let second = loops.next() else { return }  // one core: nothing to show
            let holderDB = try #require(app.databases.database(.sqlite, logger: app.logger, on: first))
            let lendDB = try #require(app.databases.database(.sqlite, logger: app.logger, on: second))
            let ctx = LibraryContext(libraryID: UUID(uuidString: f.libraryID)!, name: "Room 12", policy: LoanPolicy(), role: .owner,
                                     user: AuthenticatedUser(id: UUID(), username: "owner", displayName: "Owner"))
            let (holding, signal) = AsyncStream<Void>.makeStream()
            async let holder: Void = app.writeGate.transaction(on: holderDB) { _ in
                signal.yield()
                try await Task.sleep(for: .milliseconds(800))
            }
            for await _ in holding { break }  // the writer is busy now
            let arrived = clock.now
            let loan = try await Circulation.checkout(CheckoutInput(cardId: "S1", titleId: UUID(uuidString: title)), in: Scope(library: ctx, now: arrived, gate: app.writeGate, db: lendDB))
            try await holder
            #expect(loan.checkedOutAt.timeIntervalSince(arrived) >= 0.3, "\(loan.checkedOutAt.timeIntervalSince(arrived))")
        }
    }

    /// A loan never starts before its copy's last loan ended, even when that return was stamped by a
    /// clock running ahead (another instance's): it starts a millisecond after it.
    @Test func aLoanStartsAfterItsCopysLastReturnWhateverTheClocksSay() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S1", "Ada")
            try await f.addMember("S2", "Ben")
            let first = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            #expect(first.status == .created)
            clock.advance(days: 1)
            let back = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": first.string("copyBarcode")])
            #expect(back.status == .ok)
            func moment(_ column: String, of loan: Client.Reply) async throws -> Date {
                try #require(try await app.db.sql.raw("SELECT \(ident: column) FROM loans WHERE id = \(bind: UUID(uuidString: loan.string("id"))!)")
                    .first()?.decode(column: column, as: Date.self))
            }
            let returned = try await moment("returned_at", of: first)
            clock.advance(days: -0.5)   // this instance's clock runs half a day behind the one that took the return
            let second = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S2", "titleId": title])
            #expect(second.status == .created)
            let started = try await moment("checked_out_at", of: second)
            #expect(abs(started.timeIntervalSince(returned) - 0.001) < 0.0005, "\(started.timeIntervalSince(returned))")
            // On a clock that agrees, a loan starts when it is made.
            clock.advance(days: 1)
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": first.string("copyBarcode")]).status == .ok)
            clock.advance(days: 0.1)
            let third = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title])
            #expect(third.status == .created)
            let thirdStarted = try await moment("checked_out_at", of: third)
            #expect(abs(thirdStarted.timeIntervalSince(clock.now)) < 1, "\(thirdStarted) \(clock.now)")
        }
    }

    /// An import's activity entry is written with its first batch and counts up with each, so an
    /// import killed half-way still says what it brought in (one entry per file, never two).
    @Test func anImportsActivityEntryLandsWithItsRows() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let ctx = LibraryContext(libraryID: UUID(uuidString: f.libraryID)!, name: "Room 12", policy: LoanPolicy(), role: .owner,
                                     user: AuthenticatedUser(id: UUID(), username: "owner", displayName: "Owner"))
            let activity = Importer.ImportActivity(id: UUID(), format: .generic, library: ctx, at: Date())
            try await app.writeGate.transaction(on: app.db) { db in try await activity.record(titles: 2_000, copies: 2_000, on: db) }
            // (killed here: the entry already says 2,000)
            var entries = try await f.owner.get("\(f.lib)/activity?type=import").array
            #expect(entries.count == 1)
            #expect((entries.first?["info"] as? String)?.hasPrefix("2000 titles") == true, "\(entries)")
            try await app.writeGate.transaction(on: app.db) { db in try await activity.record(titles: 6_000, copies: 6_100, on: db) }
            entries = try await f.owner.get("\(f.lib)/activity?type=import").array
            #expect(entries.count == 1)
            #expect((entries.first?["info"] as? String)?.hasPrefix("6000 titles, 6100 copies") == true)
        }
    }

    /// A NUL or another control character in text (the fuzzer sent one in a category): removed before
    /// storing, so what is read back is what was stored, and sending the same names again links the
    /// same categories instead of failing on the unique index (it was a 500 once a name had a NUL).
    @Test func controlCharactersInTextAreRemovedBeforeStoring() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let body: [String: Any] = ["title": "Mo\u{0}mo\u{7}", "categories": ["A\u{0}B", "\u{5}", "Cafe\u{301}"]]
            let created = try await f.owner.post("\(f.lib)/titles", body)
            #expect(created.status == .created, "\(created.json)")
            let id = try #require(created.json["id"] as? String)
            for _ in 0..<2 {
                let patched = try await f.owner.patch("\(f.lib)/titles/\(id)", ["categories": ["A\u{0}B", "Caf\u{E9}", "\u{5}"]])
                #expect(patched.status == .ok, "\(patched.json)")
                let names = (patched.json["categories"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }.sorted()
                #expect(names == ["AB", "Caf\u{E9}"])
                #expect(patched.json["title"] as? String == "Momo")
            }
            let categories = try await f.owner.get("\(f.lib)/categories").array
            #expect(categories.count == 2, "\(categories)")
            // The same in a query (PostgreSQL refused the NUL with a 500).
            let found = try await f.owner.get("\(f.lib)/titles?q=Mo%00mo")
            #expect(found.status == .ok, "\(found.status)")
        }
    }
}
