@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// One background-job mechanism.
@Suite struct JobTests {
    /// Two imports into one library never interleave: the second is refused (409 `job_running`, in the
    /// request's language) while the first runs; once the first has ended, the library is free again.
    @Test func oneJobAtATimeWritesIntoALibrary() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let running = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            headers.contentType = .plainText
            headers.replaceOrAdd(name: .acceptLanguage, value: "de")
            let refused = try await app.testing().sendRequest(.POST, "\(f.lib)/import?format=isbn-list", headers: headers, body: ByteBuffer(string: "9783522202602\n"))
            let reply = Client.Reply(status: refused.status, body: refused.body, headers: refused.headers)
            #expect(reply.status == .conflict)
            #expect(reply.errorCode == "job_running")
            try await Jobs.finish(running, result: nil as String?, failure: nil, app: app)
            let accepted = try await app.testing().sendRequest(.POST, "\(f.lib)/import", headers: headers, body: ByteBuffer(string: "title,author,isbn\nMomo,Michael Ende,\n"))
            let job = try await f.owner.finished(Client.Reply(status: accepted.status, body: accepted.body, headers: accepted.headers))
            #expect(job.status == .ok, "\(String(buffer: job.body))")
            #expect((job["report"] as? [String: Any])?["titlesCreated"] as? Int == 1)
            #expect(job["titlesCreated"] as? Int == 1)
            #expect(job["rowsRead"] as? Int == 1)
        }
    }

    /// A job whose row cannot be written (here: a user that does not exist, refused by the
    /// foreign key; in life a full disk or a lost connection) fails with that error, not as `job_running`.
    @Test func aJobThatCannotBeRecordedIsThatErrorNotBusy() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            do {
                _ = try await Jobs.begin(.importFile, library: library, target: library, user: UUID(), now: app.clock.now(), app: app)
                Issue.record("a job of a user that does not exist was recorded")
            } catch let error as JobError {
                Issue.record("reported as \(error)")
            } catch {
                #expect(error.answered.code != "job_running")
            }
            // The library is free: nothing was left half-begun.
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let job = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            try await Jobs.finish(job, result: nil as String?, failure: nil, app: app)
        }
    }

    /// A job whose process stopped (its lease ran out) is failed as interrupted, said in the reader's
    /// language, and no longer holds its library.
    @Test func aJobWhoseServerStoppedEndsAsInterrupted() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let long = app.clock.now().addingTimeInterval(-2 * Jobs.lease)
            let stale = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: long, app: app)
            var german = f.owner
            german.token = f.owner.token
            let job = try await german.send(.GET, "/api/v1/jobs/\(stale.uuidString)", headers: ["accept-language": "de"])
            #expect(job["state"] as? String == "failed")
            let error = try #require(job["error"] as? [String: Any])
            #expect(error["code"] as? String == "job_interrupted")
            #expect((error["message"] as? String)?.contains("Server") == true)
            #expect((error["message"] as? String)?.contains("stopped") == false)
            _ = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            // Another user cannot see the job.
            let other = try await f.staff("vera", role: "viewer")
            #expect(try await other.get("/api/v1/jobs/\(stale.uuidString)").status == .notFound)
        }
    }

    /// A server starting on SQLite (whose database is this process's alone) fails at once the
    /// jobs a stopped process left running, lease or not: the library takes an import right away.
    @Test func aServerStartingOnSQLiteFreesTheLibrariesOfJobsItsPredecessorLeft() async throws {
        try await withTestApp { app in
            guard Dialect(app.db) == .sqlite else { return }
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let orphan = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            await #expect(throws: JobError.self) {
                _ = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            }
            let scheduler = RecurringJobs.scheduler(longestSleep: .seconds(300))
            try await scheduler.didBootAsync(app)
            await scheduler.shutdownAsync(app)
            let job = try await Jobs.find(orphan, user: user, app: app)
            #expect(job.status == .failed)
            _ = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
        }
    }

    /// A background loop runs a round at boot, the next when it is rung (not before: its round asked
    /// for a long wait), goes on after a round that fails, and runs no round after shutdown. The
    /// server's loops are the features' declarations, each with its own name.
    @Test func aBackgroundLoopRunsWhenRungSurvivesAFailedRoundAndStops() async throws {
        actor Count { var n = 0; func next() -> Int { n += 1; return n } }
        struct Failed: Error {}
        let count = Count()
        let loop = BackgroundLoop("test loop", longestWait: .seconds(60)) { _ in
            if await count.next() == 2 { throw Failed() }
            return .seconds(60)
        }
        func waitFor(_ n: Int) async throws {
            for _ in 0..<250 where await count.n < n { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await withTestApp { app in
            try await loop.didBootAsync(app)
            try await waitFor(1)
            try await Task.sleep(for: .milliseconds(200))
            #expect(await count.n == 1)
            loop.ring()
            try await waitFor(2)
            loop.ring()
            try await waitFor(3)
            #expect(await count.n == 3)
            await loop.shutdownAsync(app)
            loop.ring()
            try await Task.sleep(for: .milliseconds(200))
            #expect(await count.n == 3)
        }
        let names = Features.all.flatMap { $0.backgroundLoops() }.map(\.name)
        #expect(names.sorted() == ["enrichment worker", "mail worker", "nightly backup", "scheduler"])
    }

    /// The doorbell of a background loop: a ring before the wait is not lost, a ring during it ends
    /// it at once, and without one the wait ends after its time.
    @Test func aWakeupIsNeverLostAndNeverPolls() async throws {
        let wakeup = Wakeup()
        let clock = ContinuousClock()
        wakeup.ring()
        var started = clock.now
        await wakeup.wait(upTo: .seconds(30))
        #expect(clock.now - started < .seconds(5))
        started = clock.now
        await wakeup.wait(upTo: .milliseconds(200))
        #expect(clock.now - started >= .milliseconds(200))
        started = clock.now
        async let waited: Void = wakeup.wait(upTo: .seconds(30))
        try await Task.sleep(for: .milliseconds(100))
        wakeup.ring()
        await waited
        #expect(clock.now - started < .seconds(5))
    }

    /// The API's error message is in the language the request asks for; code and field stay the same.
    @Test func apiRefusalsAreInTheRequestsLanguage() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Momo", copies: 1)
            for (lang, word) in [("de", "Exemplare"), ("ga", "cóip"), ("zh-Hans", "副本")] {
                let reply = try await f.owner.send(.PATCH, "\(f.lib)/titles/\(id)", ["totalCopies": -2], headers: ["accept-language": lang])
                #expect(reply.status == .unprocessableEntity)
                #expect(reply.errorCode == "invalid")
                #expect(reply.errorField == "totalCopies")
                #expect(reply.errorMessage?.contains(word) == true, "\(lang): \(reply.errorMessage ?? "")")
                #expect(reply.errorMessage?.contains("`") == false)
            }
            let english = try await f.owner.send(.PATCH, "\(f.lib)/titles/\(id)", ["totalCopies": -2], headers: ["accept-language": "en"])
            #expect(english.errorMessage?.contains("Number of copies") == true, "\(english.errorMessage ?? "")")
            #expect(english.errorMessage?.contains("-2") == true)
            #expect(english.errorMessage?.contains("`") == false)
        }
    }
}

/// Recurring jobs run once per period and library, whatever the number of instances, catch
/// up once after downtime, and the daily tidy-up removes finished jobs older than the retention.
@Suite struct RecurringJobTests {
    struct PeriodRow: Decodable { var id: UUID; var period: String?; var state: String; var result: String? }

    static func runs(_ app: Application, library: UUID) async throws -> [PeriodRow] {
        try await app.db.sql.raw("SELECT id, period, state, result FROM jobs WHERE kind = 'prune' AND library_id = \(bind: library) ORDER BY created_at")
            .all(decoding: PeriodRow.self)
    }

    @Test func aPeriodRunsOnceWhateverTheNumberOfInstancesAndCatchesUpOnce() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            // Ten instances claim the same period at once: exactly one gets it.
            let period = Schedule.daily(at: 3).period(at: clock.now, in: Library.zone(nil)).key
            let claims = try await withThrowingTaskGroup(of: UUID?.self) { group in
                for _ in 0..<10 {
                    group.addTask { try await RecurringJobs.claim(.prune, library: library, period: period, now: clock.now, app: app) }
                }
                return try await group.reduce(into: [UUID]()) { if let id = $1 { $0.append(id) } }
            }
            #expect(claims.count == 1)
            try await Jobs.finish(claims[0], result: RecurringJobs.Outcome(removed: 0), failure: nil, app: app)
            // The scheduler finds that period taken: nothing runs again today.
            #expect(try await RecurringJobs.tick(app: app, jobs: [.prune]).isEmpty)
            // Three days without a server: one run when it is back, for the latest period only.
            clock.advance(days: 3)
            let started = try await RecurringJobs.tick(app: app, jobs: [.prune])
            #expect(started.count == 1)
            for id in started { await app.jobRunner.wait(id) }
            #expect(try await RecurringJobs.tick(app: app, jobs: [.prune]).isEmpty)
            let runs = try await Self.runs(app, library: library)
            #expect(runs.map(\.period) == [period, Schedule.daily(at: 3).period(at: clock.now, in: Library.zone(nil)).key])
            #expect(runs.allSatisfy { $0.state == "done" }, "\(runs)")
        }
    }

    @Test func theDailyTidyUpRemovesFinishedJobsPastTheRetentionAndKeepsTheRest() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let old = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: clock.now, app: app)
            try await Jobs.finish(old, result: nil as String?, failure: nil, app: app)
            _ = try await f.addTitle("Momo", isbn: "9783522202602")   // a queued enrichment job: not finished, kept
            clock.advance(days: 31)
            let recent = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: clock.now, app: app)
            try await Jobs.finish(recent, result: nil as String?, failure: nil, app: app)
            let outcome = try await Jobs.prune(library: library, app: app)
            #expect(outcome.removed == 1)
            struct IDRow: Decodable { var id: UUID; var kind: String }
            let left = try await app.db.sql.raw("SELECT id, kind FROM jobs WHERE library_id = \(bind: library)").all(decoding: IDRow.self)
            #expect(!left.contains { $0.id == old })
            #expect(left.contains { $0.id == recent })
            #expect(left.contains { $0.kind == "enrich" })
            // Run by the scheduler, the tidy-up records what it did.
            for id in try await RecurringJobs.tick(app: app) { await app.jobRunner.wait(id) }
            let run = try #require(try await RecurringJobTests.runs(app, library: library).last)
            #expect(run.state == "done")
            #expect(run.result?.contains("\"removed\":0") == true, "\(run.result ?? "")")
        }
    }
}

/// The migration that makes one job system moves every row: imports stay as they were,
/// filling in titles become `enrich` jobs of their title (and back, on revert).
@Suite struct UnifyJobsMigrationTests {
    @Test func enrichmentRowsAndJobsMoveIntoOneTable() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let titleID = try #require(UUID(uuidString: try await f.addTitle("Momo", isbn: "9783522202602")))
            let importJob = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            try await Jobs.finish(importJob, result: nil as String?, failure: nil, app: app)
            try await onOneConnection(app) { db in
                try await AddEnrichmentRanges().revert(on: db)
                try await UnifyJobs().revert(on: db)
            }
            struct Old: Decodable { var title_id: UUID; var state: String; var attempts: Int }
            let before = try await app.db.sql.raw("SELECT title_id, state, attempts FROM enrichment_jobs").all(decoding: Old.self)
            #expect(before.map(\.title_id) == [titleID])
            try await app.db.sql.raw("UPDATE enrichment_jobs SET attempts = 3, last_error = 'late'").run()
            try await onOneConnection(app) { db in
                try await UnifyJobs().prepare(on: db)
                try await AddEnrichmentRanges().prepare(on: db)
            }
            struct New: Decodable { var id: UUID; var kind: String; var subject_id: UUID?; var attempts: Int; var last_error: String?; var user_id: UUID? }
            let after = try await app.db.sql.raw("SELECT id, kind, subject_id, attempts, last_error, user_id FROM jobs ORDER BY kind").all(decoding: New.self)
            #expect(after.map(\.kind) == ["enrich", "import"])
            #expect(after.first?.subject_id == titleID && after.first?.attempts == 3 && after.first?.last_error == "late")
            #expect(after.last?.id == importJob && after.last?.user_id == user)
            // The queue works on the moved row.
            let claimed = try await Enrichment.claim(owner: "test", now: app.clock.now(), gate: app.writeGate, on: app.db)
            #expect(claimed?.title_id == titleID)
        }
    }
}

/// The Background work page: its model built straight from the database, then the page as
/// staff and a viewer see it.
@Suite struct BackgroundPageTests {
    @Test func thePageListsSchedulesAndRecentRunsWithWhyOneFailed() async throws {
        try await withTestApp { app in
            // Set up: a failed import, a tidy-up run, a title waiting to be filled in.
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let lib = String(catalog.dropLast("/catalog".count))
            let library = try #require(UUID(uuidString: String(lib.split(separator: "/").last ?? "")))
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let failed = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            try await Jobs.finish(failed, result: nil as String?, failure: Jobs.Failure(ExchangeError.emptyFile, languages: app.languages), app: app)
            for id in try await RecurringJobs.tick(app: app) { await app.jobRunner.wait(id) }
            try await Enrichment.enqueue(titleID: UUID(), libraryID: library, now: app.clock.now(), on: app.db)
            // The model.
            let ctx = LibraryContext(libraryID: library, name: "Room 12", policy: LoanPolicy(), role: .owner,
                                     user: AuthenticatedUser(id: user, username: "owner", displayName: "Owner"))
            let model = try await BackgroundPage.make(library: ctx, app: app)
            #expect(model.planned.map(\.kind) == [.prune, .expireHolds])
            #expect(model.planned.first.map { $0.next > app.clock.now() } == true)
            #expect(model.enrichment.pending == 1)
            #expect(Set(model.runs.map(\.kind)) == [.prune, .expireHolds, .importFile] && model.runs.last?.kind == .importFile)
            let prune = model.runs.first { $0.kind == .prune }
            #expect(prune?.state == .done && prune?.removed == 0)
            #expect(model.runs.first { $0.kind == .expireHolds }?.expired == 0)
            #expect(model.runs.last?.state == .failed && model.runs.last?.failure?.field == "file")
            #expect(model.runs.last?.page == .job(library: library, job: failed))
            // The page, in German: the failure said in German, the schedule and the queue.
            browser.language = "de"
            let page = try await browser.get(WebRoute.background(library: library).path)
            #expect(page.status == .ok)
            #expect(page.html.contains("Alte Einträge aufräumen") && page.html.contains("Täglich um 03:00"))
            #expect(page.html.contains(Strings(lang: .de).message(ExchangeError.emptyFile)))
            #expect(page.html.contains("Bücher, die auf Ergänzung warten: 1."))
            #expect(try await browser.get(WebRoute.more(library: library).path).html.contains(WebRoute.background(library: library).path))
        }
    }
}
