@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import ShelfmarkReplay
import SQLKit
import Testing
import Vapor

/// A test app whose providers are a replay server of its own.
private func withLookupApp(clock: AppClock = AppClock(), _ body: (Application, ReplayServer, Fixture) async throws -> Void) async throws {
    let server = try await ReplayServer.start()
    do {
        try await withTestApp(clock: clock) { app in
            app.metadataConfig = MetadataConfig(endpoints: .replay(server.baseURL), timeout: .seconds(30))
            try await body(app, server, try await Fixture.make(app))
        }
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

private struct JobRow: Decodable {
    var state: String
    var attempts: Int
    var run_after: Date
    var last_error: String?
}

private func job(for titleID: String, on app: Application) async throws -> JobRow? {
    try await app.db.sql.raw("SELECT state, attempts, run_after, last_error FROM jobs WHERE kind = 'enrich' AND subject_id = \(bind: UUID(uuidString: titleID)!)")
        .first(decoding: JobRow.self)
}

@Suite struct LookupAPITests {
    @Test func lookupReturnsTheMergedRecordAndCachesIt() async throws {
        try await withLookupApp { app, server, f in
            let first = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "0-306-40615-2"])
            #expect(first.status == .ok)
            #expect(first["found"] as? Bool == true)
            #expect(first["cached"] as? Bool == false)
            let isbn = try #require(first["isbn"] as? [String: Any])
            #expect(isbn["isbn13"] as? String == "9780306406157")
            #expect(isbn["hyphenated"] as? String == "978-0-306-40615-7")
            let record = try #require(first["record"] as? [String: Any])
            #expect(record["title"] as? String == "Signals and Shelves")
            #expect(record["publisher"] as? String == "Plenum Press")
            #expect(record["pageCount"] as? Int == 312)
            #expect((record["coverUrl"] as? String)?.hasPrefix(server.baseURL) == true)
            let sources = try #require(record["fieldSources"] as? [[String: Any]])
            #expect(sources.contains { $0["field"] as? String == "publisher" && $0["provider"] as? String == "open_library" })
            #expect((first["sources"] as? [[String: Any]])?.count == 2)

            // The second scan costs nothing: answered from the database, no provider asked.
            let second = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "978-0306406157"])
            #expect(second["cached"] as? Bool == true)
            #expect((second["record"] as? [String: Any])?["title"] as? String == "Signals and Shelves")
            #expect(await server.requests(.google) == 1)
            #expect(await server.requests(.openlibrary) == 1)
        }
    }

    @Test func aDefiniteNotFoundIsCachedButAFailureIsNot() async throws {
        try await withLookupApp { app, server, f in
            let unknown = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9781111111113"])
            #expect(unknown.status == .ok)
            #expect(unknown["found"] as? Bool == false)
            #expect(unknown.string("message").contains("No provider knows ISBN 978-1-111-11111-3"))
            _ = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9781111111113"])
            #expect(await server.requests(.google) == 1)  // the negative answer was cached

            await server.setAll(.init(fault: .unavailable))
            let down = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9780316030571"])
            #expect(down.status == .ok)  // a soft "not found", never a 500
            #expect(down["found"] as? Bool == false)
            #expect(down.string("message").contains("could not answer"))
            #expect(down.string("message").contains("503"))
            await server.setAll(.init())
            let up = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9780316030571"])
            #expect(up["found"] as? Bool == true)  // asked again: the failure was not cached
            #expect(up["cached"] as? Bool == false)
        }
    }

    @Test func invalidISBNsGetA422SayingWhatIsWrong() async throws {
        try await withLookupApp { _, _, f in
            let checksum = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "978-0-306-40615-8"])
            #expect(checksum.status == .unprocessableEntity)
            #expect(checksum.errorField == "isbn")
            #expect(checksum.errorMessage?.contains("check digit") == true)
            let length = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "12345"])
            #expect(length.status == .unprocessableEntity)
            #expect(length.errorMessage?.contains("10 or 13 digits") == true)
            let ean = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "4006381333931"])
            #expect(ean.status == .unprocessableEntity)
            #expect(ean.errorMessage?.contains("978 or 979") == true)
            let anonymous = try await Client(app: f.app).post("/api/v1/lookup/isbn", ["isbn": "9780306406157"])
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test func lookupSaysWhenTheLibraryAlreadyHasTheISBN() async throws {
        try await withLookupApp { _, _, f in
            let id = try await f.addTitle("Signals and Shelves", isbn: "9780306406157", copies: 2)
            let reply = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "0306406152", "libraryId": f.libraryID])
            let existing = try #require(reply["existing"] as? [String: Any])
            #expect(existing["id"] as? String == id)
            #expect(existing["totalCopies"] as? Int == 2)
            #expect(existing["addCopiesUrl"] as? String == "\(f.lib)/titles/\(id)/copies")
            let other = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9780316030571", "libraryId": f.libraryID])
            #expect(other["existing"] == nil)
            let stranger = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": "9780316030571", "libraryId": UUID().uuidString])
            #expect(stranger.status == .notFound)
        }
    }

    @Test func providerSearchReturnsRankedCandidates() async throws {
        try await withLookupApp { _, server, f in
            let reply = try await f.owner.get("/api/v1/lookup/search?q=children%20of%20time")
            #expect(reply.status == .ok)
            let candidates = try #require(reply["candidates"] as? [[String: Any]])
            #expect(candidates.first?["title"] as? String == "Children of Time")
            #expect(candidates.first?["authors"] as? [String] == ["Adrian Tchaikovsky"])
            let fielded = try await f.owner.get("/api/v1/lookup/search?title=signals&author=okafor")
            #expect((fielded["candidates"] as? [[String: Any]])?.first?["isbn13"] as? String == "9780306406157")
            // Nothing to search for finds nothing, and says what to send.
            let empty = try await f.owner.get("/api/v1/lookup/search?q=")
            #expect(empty.status == .ok)
            #expect((empty["candidates"] as? [Any])?.isEmpty == true)
            #expect(empty.string("message").contains("Say what to search for"))
            await server.setAll(.init(fault: .rateLimited))
            let limited = try await f.owner.get("/api/v1/lookup/search?q=children")
            #expect(limited.status == .ok)
            #expect((limited["candidates"] as? [[String: Any]])?.isEmpty == true)
            #expect(limited.string("message").contains("could not answer"))
        }
    }
}

@Suite struct EnrichmentTests {
    @Test func addingByISBNAloneFillsTheRecordAndStoresTheCover() async throws {
        try await withLookupApp { app, _, f in
            let added = try await f.owner.post("\(f.lib)/titles", ["isbn": "978-0-306-40615-7", "copies": 1])
            #expect(added.status == .created, "\(added.json)")
            #expect(added.string("title") == "Signals and Shelves")
            #expect(added["authors"] as? [String] == ["Maren Okafor", "Tomás Ruiz"])
            #expect(added.string("publisher") == "Plenum Press")
            let id = added.string("id")
            // The cover still points at the provider until the background job stores it.
            #expect(try await job(for: id, on: app)?.state == "pending")
            #expect(try await Enrichment.drain(app: app, owner: "test") == 1)
            let detail = try await f.owner.get("\(f.lib)/titles/\(id)")
            let cover = detail.string("coverUrl")
            #expect(cover.hasPrefix("/api/v1/covers/"))
            #expect(try await job(for: id, on: app) == nil, "a job that is done is removed")

            // The app serves the cover itself, cacheably, without a session.
            let image = try await Client(app: app).get(cover)
            #expect(image.status == .ok)
            #expect(image.headers.first(name: .contentType) == "image/png")
            #expect(image.headers.first(name: .cacheControl)?.contains("immutable") == true)
            #expect(Array(image.body.readableBytesView.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
            let etag = try #require(image.headers.first(name: .eTag))
            let again = try await Client(app: app).send(.GET, cover, headers: ["If-None-Match": etag])
            #expect(again.status == .notModified)
            #expect(try await Client(app: app).get("/api/v1/covers/\(UUID().uuidString)").status == .notFound)

            // An unknown ISBN with no title: a clear 404 that says to type the title, nothing created.
            let unknown = try await f.owner.post("\(f.lib)/titles", ["isbn": "9781111111113"])
            #expect(unknown.status == .notFound)
            #expect(unknown.errorCode == "isbn_not_found")
            #expect(unknown.errorField == "title")
            #expect(unknown.errorMessage?.contains("no provider knows") == true)
        }
    }

    @Test func enrichmentFillsOnlyEmptyFieldsAndNeverWhatTheUserTyped() async throws {
        try await withLookupApp { app, _, f in
            let id = try await f.addTitle("My own name for it", isbn: "9780306406157",
                                          extra: ["description": "Typed by the librarian.", "pageCount": 99, "language": "ga"])
            // The user edits while the job waits: their value must survive too.
            _ = try await f.owner.patch("\(f.lib)/titles/\(id)", ["publishedDate": "1999"])
            try await Enrichment.drain(app: app, owner: "test")
            let t = try await f.owner.get("\(f.lib)/titles/\(id)")
            #expect(t.string("title") == "My own name for it")
            #expect(t.string("description") == "Typed by the librarian.")
            #expect(t["pageCount"] as? Int == 99)
            #expect(t.string("language") == "ga")
            #expect(t.string("publishedDate") == "1999")
            // Empty before: filled now.
            #expect(t.string("subtitle") == "A Field Guide to Small Libraries")
            #expect(t["authors"] as? [String] == ["Maren Okafor", "Tomás Ruiz"])
            #expect(t.string("publisher") == "Plenum Press")
            #expect(t.string("coverUrl").hasPrefix("/api/v1/covers/"))
            // Filled authors are searchable.
            let found = try await f.owner.get("\(f.lib)/titles?q=okafor")
            #expect(found["total"] as? Int == 1)
        }
    }

    @Test func failuresRetryWithBackoffAndSucceedLater() async throws {
        let clock = TestClock()
        try await withLookupApp(clock: clock.appClock) { app, server, f in
            await server.setAll(.init(fault: .unavailable))
            let id = try await f.addTitle("Use of Weapons", isbn: "9780316030571")
            #expect(try await Enrichment.drain(app: app, owner: "test") == 1)
            let failed = try #require(try await job(for: id, on: app))
            #expect(failed.state == "pending")
            #expect(failed.attempts == 1)
            #expect(failed.last_error?.contains("503") == true)
            #expect(failed.run_after > clock.now)
            // Not due yet: nothing runs.
            #expect(try await Enrichment.drain(app: app, owner: "test") == 0)
            await server.setAll(.init())
            clock.advance(days: 1)
            #expect(try await Enrichment.drain(app: app, owner: "test") == 1)
            #expect(try await job(for: id, on: app) == nil)
            let t = try await f.owner.get("\(f.lib)/titles/\(id)")
            #expect(t.string("publisher") == "Orbit")
            #expect(t["pageCount"] as? Int == 480)
        }
    }

    @Test func aCrashedWorkersJobIsTakenOverWhenItsLeaseEnds() async throws {
        let clock = TestClock()
        try await withLookupApp(clock: clock.appClock) { app, _, f in
            let id = try await f.addTitle("Signals", isbn: "9780306406157")
            // A worker claims the job, then dies without finishing.
            let claimed = try await Enrichment.claim(owner: "dead", now: clock.now, gate: app.writeGate, on: app.db)
            #expect(claimed?.title_id?.uuidString == id.uppercased())
            #expect(try await Enrichment.drain(app: app, owner: "alive") == 0)  // leased: not taken
            clock.advance(days: Enrichment.lease * 2 / 86_400)
            #expect(try await Enrichment.drain(app: app, owner: "alive") == 1)
            #expect(try await job(for: id, on: app) == nil)
            // The dead worker's late finish cannot bring the job back.
            try await Enrichment.finish(try #require(claimed), owner: "dead", error: "late", now: clock.now, gate: app.writeGate, on: app.db)
            #expect(try await job(for: id, on: app) == nil)
        }
    }

    @Test func anImportIsFilledInByOneJobPerBatchThatLeavesNothingBehind() async throws {
        let clock = TestClock()
        try await withLookupApp(clock: clock.appClock) { app, server, f in
            struct Job: Decodable { var subject_id: UUID?; var first_id: UUID?; var state: String; var attempts: Int; var last_error: String? }
            let library = try #require(UUID(uuidString: f.libraryID))
            func jobs() async throws -> [Job] {
                try await app.db.sql.raw("""
                    SELECT subject_id, first_id, state, attempts, last_error FROM jobs WHERE kind = 'enrich' AND library_id = \(bind: library)
                    ORDER BY subject_id
                    """).all(decoding: Job.self)
            }
            func importRows(_ rows: [String]) async throws {
                let csv = "ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes\r\n"
                    + rows.map { $0 + ",A. Writer,1,1,,,,," }.joined(separator: "\r\n") + "\r\n"
                let upload = try await f.owner.send(.POST, "\(f.lib)/import?format=csv", rawBody: Data(csv.utf8), contentType: "text/csv")
                #expect(upload.status == .accepted, "\(upload.json)")
                let done = try await f.owner.finished(upload)
                #expect(done.status == .ok)
                #expect(done["titlesCreated"] as? Int == rows.count, "\(done.json)")
            }
            // 30 titles, two of them known to the providers: one job over their range, not 30.
            try await importRows(["9780306406157,Signals", "9780316030571,Weapons"]
                                 + (0..<28).map { "\(ISBNTestData.valid13(seed: 500 + $0)),Unknown \($0)" })
            let queued = try await jobs()
            #expect(queued.count == 1 && queued.first?.first_id != nil && queued.first?.subject_id == nil, "\(queued)")
            let progress = try await f.owner.get("\(f.lib)/enrichment")
            #expect(progress["pending"] as? Int == 30, "\(progress.json)")
            #expect(try await Enrichment.drain(app: app, owner: "test") == 30)
            #expect(try await jobs().isEmpty, "a batch walked to its end is removed")
            let found = try await f.owner.get("\(f.lib)/titles?q=signals")
            let signals = try await f.owner.get("\(f.lib)/titles/\(((found["items"] as? [[String: Any]])?.first?["id"] as? String) ?? "")")
            #expect(signals.string("publisher") == "Plenum Press")

            // The providers out of reach: the batch waits as a whole with its backoff, no row per title.
            await server.setAll(.init(fault: .unavailable))
            try await importRows(["\(ISBNTestData.valid13(seed: 600)),Later 1", "\(ISBNTestData.valid13(seed: 601)),Later 2"])
            #expect(try await Enrichment.drain(app: app, owner: "test") == 2)
            let waiting = try await jobs()
            #expect(waiting.count == 1 && waiting.first?.first_id != nil && waiting.first?.state == "pending" && waiting.first?.attempts == 1,
                    "\(waiting)")
            #expect(waiting.first?.last_error?.contains("503") == true)
            #expect(try await Enrichment.drain(app: app, owner: "test") == 0, "not due yet")
            let outage = try await f.owner.get("\(f.lib)/enrichment")
            #expect(outage["pending"] as? Int == 2 && outage["failed"] as? Int == 0, "\(outage.json)")
            await server.setAll(.init())
            clock.advance(days: 1)
            #expect(try await Enrichment.drain(app: app, owner: "test") == 2)
            #expect(try await jobs().isEmpty)

            // A title that fails in a step where others were filled in is left to be tried again on its own.
            try await importRows(["\(ISBNTestData.valid13(seed: 700)),Alone 1", "\(ISBNTestData.valid13(seed: 701)),Alone 2"])
            let batch = try #require(try await Enrichment.claim(owner: "test", now: clock.now, gate: app.writeGate, on: app.db))
            let titles = try await Enrichment.nextOfBatch(batch, on: app.db)
            #expect(titles.count == 2)
            try await Enrichment.step(batch, owner: "test", through: titles.last, filled: 2, ended: true, failures: [(titles[0], "cover: 404")],
                                      now: clock.now, gate: app.writeGate, on: app.db)
            let alone = try await jobs()
            #expect(alone.count == 1 && alone.first?.subject_id == titles[0] && alone.first?.attempts == 1 && alone.first?.last_error == "cover: 404",
                    "\(alone)")
        }
    }

    @Test func concurrentWorkersNeverClaimTheSameJob() async throws {
        try await withLookupApp { app, _, f in
            for i in 0..<24 {
                try await f.addTitle("Book \(i)", isbn: String(ISBNTestData.valid13(seed: i)))
            }
            // A second instance on the same database when it is PostgreSQL (two app instances);
            // SQLite belongs to one process, whose write queue is shared by its workers.
            var instances = [app]
            var second: Application?
            if case .postgres = app.storageConfig {
                let other = try await Application.make(.testing)
                try App.configure(other, storage: app.storageConfig!)
                instances.append(other)
                second = other
            }
            let now = app.clock.now()
            let claims = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for worker in 0..<6 {
                    let instance = instances[worker % instances.count]
                    group.addTask {
                        var mine: [UUID] = []
                        while let job = try await Enrichment.claim(owner: "w\(worker)", now: now, gate: instance.writeGate, on: instance.db) {
                            mine.append(job.id)
                        }
                        return mine
                    }
                }
                var all: [UUID] = []
                for try await mine in group { all += mine }
                return all
            }
            try await second?.asyncShutdown()
            #expect(claims.count == 24)
            #expect(Set(claims).count == 24)
        }
    }
}

enum ISBNTestData {
    /// A valid ISBN-13 (978-1-…) made from a number, for bulk fixtures.
    static func valid13(seed: Int) -> String {
        let first12 = "9781" + String(format: "%08d", 40_000_000 + seed)
        let digits = first12.compactMap(\.wholeNumberValue)
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return first12 + String((10 - sum % 10) % 10)
    }
}

@Suite struct LookupCommandTests {
    @Test func lookupPrintsTheFullRecordWithItsSources() async throws {
        try await withLookupApp { app, _, _ in
            let looked = try await LookupService.isbn(try ISBN("9780306406157"), lookup: try await app.metadataLookup, now: app.clock.now(),
                                                      gate: app.writeGate, on: app.db)
            let lines = LookupCommand.lines(LookupController.response(try ISBN("9780306406157"), looked, existing: nil, now: app.clock.now()))
            let text = lines.joined(separator: "\n")
            #expect(lines.first == "ISBN           978-0-306-40615-7  (ISBN-10 0-306-40615-2)")
            #expect(text.contains("Title          Signals and Shelves  [Google Books]"))
            #expect(text.contains("Publisher      Plenum Press  [Open Library]"))
            #expect(text.contains("Pages          312"))
            #expect(text.contains("Description    Everything a volunteer needs"))
            #expect(text.contains("Source         Google Books: found"))
            #expect(text.contains("Cached         no"))
        }
    }
}

@Suite struct ImportLookupBoundTests {
    /// An ISBN-list import while every provider hangs: lookups run eight at a time, so twelve rows cost
    /// about two timeouts, not twelve; each row is reported, none is lost silently.
    @Test func anISBNListWhileProvidersHangIsBoundedAndReported() async throws {
        try await withLookupApp { app, server, f in
            await server.setAll(.init(fault: .hang))
            app.metadataConfig = MetadataConfig(endpoints: .replay(server.baseURL), timeout: .seconds(3))
            let isbns = ["9780306406157", "9783522202602", "9780140143508", "9780804429573", "9780439708180", "9780747532699",
                         "9780545010221", "9780261103573", "9780553293357", "9780451524935", "9780061120084", "9780743273565"]
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            headers.contentType = .plainText
            let response = try await app.testing().sendRequest(.POST, "\(f.lib)/import?format=isbn-list", headers: headers,
                                                               body: ByteBuffer(string: isbns.joined(separator: "\n") + "\n"))
            #expect(response.status == .accepted)
            let job = try await f.owner.finished(Client.Reply(status: response.status, body: response.body, headers: response.headers))
            #expect(job.status == .ok)
            let report = job["report"] as? [String: Any]
            #expect((report?["failed"] as? [[String: Any]])?.count == 12, "\(report ?? [:])")
            #expect(report?["titlesCreated"] as? Int == 0)
            // Eight at a time: the first eight requests arrive before any of them timed out (3 s), the
            // ninth only after. Sequential lookups would send one per timeout: the second at 3 s or later.
            // Read from when each request reached the provider, not from a stopwatch; the window is the
            // timeout (with 1 s a loaded fresh-clone run spread the first eight over 0.99 s).
            let arrivals = await server.arrivals(.google)
            #expect(arrivals.count >= 2, "\(arrivals)")
            let together = arrivals.filter { $0 < .milliseconds(2_950) }.count
            #expect((2...8).contains(together), "\(arrivals)")
        }
    }
}
