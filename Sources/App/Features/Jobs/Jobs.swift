import Fluent
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Vapor

/// Work in the background, one mechanism: a durable row in `jobs` says what runs, how far it got and
/// how it ended. Three ways in:
/// - started by a person (imports, restores): `begin` then `run`; at most one writes into a library at
///   a time (a second is refused with `job_running`);
/// - queued per subject (filling in a title, `enrich`): `Enrichment.enqueue`, claimed by the worker with
///   a lease and retried with backoff;
/// - recurring (`RecurringJobs`): one run per period and library, claimed by the scheduler (`RecurringJobs.scheduler`, a `BackgroundLoop`).
/// The work runs in a task of this process (`JobRunner`), which renews the row's lease while it works.
/// A job whose process died is marked failed when its lease runs out, so a page never waits on it for
/// ever. Finished jobs are removed after `retention` by the daily `prune` run.
enum Jobs {
    enum Kind: String, Codable, Sendable, CaseIterable {
        case importFile = "import", restore, enrich, prune, expireHolds = "expire_holds", reminders
        /// The installation's backup (no library's): nightly, or when the administrator asks.
        case nightlyBackup = "nightly_backup"
        /// The monthly restore drill of the newest nightly backup (no library's).
        case backupDrill = "backup_drill"
        /// Saved reports mailed on their schedule (a library's, each morning one of them is due).
        case mailReports = "mail_reports"
        /// Closed loans past the library's retention forget their borrower (nightly, where set).
        case retention
        /// The school's roster read from the library's drop folder (nightly, where asked for).
        case rosterFolder = "roster_folder"
    }
    enum State: String, Codable, Sendable { case running, done, failed }

    /// How long a job counts as alive without a sign of life; renewed every `heartbeat`.
    /// A dead instance's job frees its library within `lease` (it was a minute); the lease
    /// is renewed four times as often, so a heartbeat waiting behind a long write does not lose it.
    static let lease: TimeInterval = 20
    static let heartbeat: Duration = .seconds(5)

    /// A job as stored.
    struct Record: Decodable, Sendable {
        var id: UUID
        var library_id: UUID?
        var target_library_id: UUID?
        var user_id: UUID?
        var kind: String
        var state: String
        var lease_until: Date?
        var rows_read: Int
        var titles_created: Int
        var copies_added: Int
        var result: String?
        var failure: String?
        var created_at: Date
        var finished_at: Date?

        var status: State { State(rawValue: state) ?? .failed }

        func decodedResult<R: Decodable>(_ type: R.Type) -> R? {
            result.flatMap { try? JSONDecoder.api.decode(R.self, from: Data($0.utf8)) }
        }

        var decodedFailure: Failure? { Failure.stored(failure) }
    }

    /// Why a job failed: the API's code, English message and field, and the message in every language,
    /// written when it failed (the error itself does not outlive the process), so a page says it in the
    /// reader's language.
    struct Failure: Codable, Sendable, Equatable {
        var code: String
        var message: String
        var field: String?
        var messages: [String: String]?

        static let interrupted = Failure(JobError.interrupted)

        /// A failure as a job row keeps it (JSON), nil when there is none.
        static func stored(_ text: String?) -> Failure? {
            text.flatMap { try? JSONDecoder.api.decode(Failure.self, from: Data($0.utf8)) }
        }

        /// The failure with its message in each of `languages` (the application's: `app.languages`).
        init(_ error: any Error, languages: [Lang] = Lang.allCases) {
            let error = error is CancellationError ? JobError.interrupted : error
            let app = error.answered
            (code, message, field) = (app.code, app.message, app.field)
            messages = Dictionary(uniqueKeysWithValues: languages.map { ($0.rawValue, Strings(lang: $0).message(error)) })
        }

        /// The message in `t`'s language.
        func message(_ t: Strings) -> String { messages?[t.lang.rawValue] ?? t.message(error) }

        var error: AppError { AppError(status: .unprocessableEntity, code: code, message: message, field: field) }
    }

    /// Records a running job writing into `target`; refused when a job already writes into it. `user`
    /// nil: the command line's (no account started it).
    /// A library a restore is being swapped into (`Backup.beginSwap`) takes no other job until the swap
    /// is done: `resumingSwap` is the job that finishes it.
    static func begin(_ kind: Kind, library: UUID?, target: UUID?, user: UUID?, now: Date, app: Application,
                      resumingSwap: Bool = false) async throws -> UUID {
        let id = UUID()
        try await app.writeGate.transaction(on: app.db) { db in
            try await expireLeases(now: now, on: db)
            if let target, try await db.sql.raw("""
                SELECT id FROM jobs WHERE target_library_id = \(bind: target) AND state = 'running'
                """).first() != nil {
                throw busy
            }
            if let target, !resumingSwap, try await db.sql.raw("""
                SELECT id FROM libraries WHERE id = \(bind: target) AND restore_source_id IS NOT NULL
                """).first() != nil {
                throw busy
            }
            // Another instance may begin one between the check and the insert: the partial unique index
            // then keeps the row out (no row comes back), which is `busy`. Any other failure (a full
            // disk, a lost connection) is thrown as what it is.
            let inserted = try await db.sql.raw("""
                INSERT INTO jobs (id, library_id, target_library_id, user_id, kind, state, lease_until, rows_read, titles_created,
                                  copies_added, result, failure, created_at, finished_at, attempts)
                VALUES (\(bind: id), \(bind: library), \(bind: target), \(bind: user), \(bind: kind.rawValue), 'running',
                        \(bind: now.addingTimeInterval(lease)), 0, 0, 0, NULL, NULL, \(bind: now), NULL, 0)
                ON CONFLICT (target_library_id) WHERE state = 'running' DO NOTHING
                RETURNING id
                """).first()
            if inserted == nil { throw busy }
        }
        return id
    }

    static let busy = JobError.busy

    /// How far the job got; also renews its lease. Written through the long jobs' connection that
    /// writes the job's batches (`Application.jobStorage`): a write from another connection of the same
    /// SQLite file would empty that connection's page cache between two batches.
    static func progress(_ id: UUID, rows: Int, titles: Int, copies: Int, app: Application) async throws {
        let until = app.clock.now().addingTimeInterval(lease)
        let (db, gate) = app.jobStorage
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                UPDATE jobs SET rows_read = \(bind: rows), titles_created = \(bind: titles), copies_added = \(bind: copies),
                  lease_until = \(bind: until) WHERE id = \(bind: id) AND state = 'running'
                """).run()
        }
    }

    static func renewLease(_ id: UUID, app: Application) async throws {
        let until = app.clock.now().addingTimeInterval(lease)
        let (db, gate) = app.jobStorage
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("UPDATE jobs SET lease_until = \(bind: until) WHERE id = \(bind: id) AND state = 'running'").run()
        }
    }

    /// Ends a job: done with its result, or failed with why.
    static func finish(_ id: UUID, result: (any Encodable & Sendable)?, failure: Failure?, app: Application) async throws {
        let resultText = try result.map { String(decoding: try JSONEncoder.api.encode($0), as: UTF8.self) }
        let failureText = try failure.map { String(decoding: try JSONEncoder.api.encode($0), as: UTF8.self) }
        let now = app.clock.now()
        struct Ended: Decodable { var kind: String }
        let ended = try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("""
                UPDATE jobs SET state = \(bind: failure == nil ? State.done.rawValue : State.failed.rawValue), result = \(bind: resultText),
                  failure = \(bind: failureText), finished_at = \(bind: now), lease_until = NULL
                WHERE id = \(bind: id) RETURNING kind
                """).first(decoding: Ended.self)
        }
        if let ended { app.serverMetrics?.jobFinished(kind: ended.kind, failed: failure != nil) }
    }

    /// Ends the jobs whose process stopped (`expireLeases`) and finishes the restore swaps they left
    /// (`Backup.resumeSwaps`): what the job pages and the scheduler's rounds do when they find one.
    static func endDeadJobs(now: Date, app: Application) async throws {
        try await app.writeGate.transaction(on: app.db) { db in try await expireLeases(now: now, on: db) }
        await Backup.resumeSwaps(app: app)
    }

    /// Jobs whose process stopped (lease run out) are failed, so their library is free again.
    static func expireLeases(now: Date, on db: any Database) async throws {
        let failure = String(decoding: try JSONEncoder.api.encode(Failure.interrupted), as: UTF8.self)
        try await db.sql.raw("""
            UPDATE jobs SET state = 'failed', failure = \(bind: failure), finished_at = \(bind: now), lease_until = NULL
            WHERE state = 'running' AND lease_until < \(bind: now) AND kind <> 'enrich'
            """).run()
        try await removeUnfinishedLibraries(on: db)
    }

    /// Libraries a restore was writing when its job died (`AddLibraryPendingJob`): removed whole, with
    /// everything written into them, so nothing half-made is left and the name is free again. A swap
    /// already under way (a library that names its source, and that source) is finished instead
    /// (`Backup.resumeSwaps`), never removed.
    static func removeUnfinishedLibraries(on db: any Database) async throws {
        struct Row: Decodable { var id: UUID }
        let orphans = try await db.sql.raw("""
            SELECT l.id FROM libraries l WHERE l.pending_job_id IS NOT NULL AND l.restore_source_id IS NULL
              AND NOT EXISTS (SELECT 1 FROM libraries swapped WHERE swapped.restore_source_id = l.id)
              AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = l.pending_job_id AND j.state = 'running')
            """).all(decoding: Row.self)
        for orphan in orphans {
            try await Accounts.removeUnfinishedLibrary(orphan.id, on: db)
        }
    }

    /// At the start of a server on SQLite, whose database belongs to this one process: every job still
    /// "running" belonged to a process that stopped, and is failed at once rather than when its lease
    /// runs out, so its library takes an import again at once.
    static func failOrphans(now: Date, on db: any Database) async throws {
        let failure = String(decoding: try JSONEncoder.api.encode(Failure.interrupted), as: UTF8.self)
        try await db.sql.raw("""
            UPDATE jobs SET state = 'failed', failure = \(bind: failure), finished_at = \(bind: now), lease_until = NULL
            WHERE state = 'running' AND kind <> 'enrich'
            """).run()
        try await removeUnfinishedLibraries(on: db)
    }

    /// A job of this user, its lease checked.
    static func find(_ id: UUID, user: UUID, app: Application) async throws -> Record {
        let now = app.clock.now()
        let lookup: @Sendable (any Database) async throws -> Record? = { db in
            try await db.sql.raw("SELECT * FROM jobs WHERE id = \(bind: id) AND user_id = \(bind: user)").first(decoding: Record.self)
        }
        guard var record = try await lookup(app.db) else { throw JobError.notFound }
        if record.status == .running, let until = record.lease_until, until < now {
            try await endDeadJobs(now: now, app: app)
            record = try await lookup(app.db) ?? record
        }
        return record
    }

    /// Runs `work` as job `id` in the background: its lease is renewed while it runs, and it ends
    /// done with what `work` returns or failed with what it threw.
    static func run<R: Encodable & Sendable>(_ id: UUID, app: Application, _ work: @escaping @Sendable () async throws -> R,
                                             onFailure: @escaping @Sendable (any Error) async -> Void = { _ in }) {
        app.jobRunner.start(id) {
            let beat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: Jobs.heartbeat)
                    if Task.isCancelled { break }
                    try? await renewLease(id, app: app)
                }
            }
            defer { beat.cancel() }
            do {
                let result = try await work()
                try await finish(id, result: result, failure: nil, app: app)
            } catch {
                if error.answered.status.code >= 500 { app.logger.report(error: error) }
                await onFailure(error)
                do { try await finish(id, result: nil as String?, failure: Failure(error, languages: app.languages), app: app) } catch {
                    app.logger.error("job \(id): cannot record its end: \(String(describing: error))")
                }
            }
        }
    }
}

extension Jobs {
    /// Runs `work` as job `id` (as `run` does: lease renewed, its end recorded) and waits for it: what
    /// the command line that started it prints (`work`'s first value; the second is what the job
    /// keeps), or the error it failed with.
    static func runHere<Value: Sendable, Kept: Encodable & Sendable>(_ id: UUID, app: Application,
                                                                      _ work: @escaping @Sendable () async throws -> (Value, Kept)) async throws -> Value {
        let outcome = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        run(id, app: app) {
            do {
                let (value, kept) = try await work()
                outcome.withLockedValue { $0 = .success(value) }
                return kept
            } catch {
                outcome.withLockedValue { $0 = .failure(error) }
                throw error
            }
        }
        await app.jobRunner.wait(id)
        guard let result = outcome.withLockedValue({ $0 }) else { throw JobError.notFound }
        return try result.get()
    }
}

/// The tasks of the jobs this process runs: cancelled and awaited at shutdown, awaited by tests.
final class JobRunner: LifecycleHandler, Sendable {
    private let tasks = NIOLockedValueBox<[UUID: Task<Void, Never>]>([:])

    func start(_ id: UUID, _ work: @escaping @Sendable () async -> Void) {
        tasks.withLockedValue { tasks in
            tasks[id] = Task { [weak self] in
                await work()
                _ = self?.tasks.withLockedValue { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Waits until job `id` (if it runs here) has ended.
    func wait(_ id: UUID) async {
        await tasks.withLockedValue { $0[id] }?.value
    }

    func shutdownAsync(_ application: Application) async {
        let running = tasks.withLockedValue { Array($0.values) }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }
}

extension Application {
    private struct JobRunnerKey: StorageKey { typealias Value = JobRunner }

    /// This process's job runner (made and registered for shutdown with the storage).
    var jobRunner: JobRunner {
        if let runner = storage[JobRunnerKey.self] { return runner }
        let runner = JobRunner()
        storage[JobRunnerKey.self] = runner
        return runner
    }

    func useJobRunner() {
        lifecycle.use(jobRunner)
    }
}
