import Fluent
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import SQLKit
import Vapor

/// Work that runs by itself, per library, on a schedule in the library's time zone: one run per
/// period (day or week), whatever the number of instances on one PostgreSQL, and one catch-up run
/// after the server was down (the latest period only). Reminders, hold expiry and fines add a case
/// here and the work it does.
struct RecurringJob: Sendable {
    let kind: Jobs.Kind
    /// When it runs for a library; nil: not for this one (reminders switched off).
    let scheduleFor: @Sendable (RecurringJobs.LibraryZone) -> Schedule?
    /// The run's work for one library; what it answers is kept as the job's result.
    let work: @Sendable (_ library: UUID, _ app: Application) async throws -> RecurringJobs.Outcome

    init(kind: Jobs.Kind, schedule: Schedule, work: @escaping @Sendable (UUID, Application) async throws -> RecurringJobs.Outcome) {
        self.init(kind: kind, scheduleFor: { _ in schedule }, work: work)
    }

    init(kind: Jobs.Kind, scheduleFor: @escaping @Sendable (RecurringJobs.LibraryZone) -> Schedule?,
         work: @escaping @Sendable (UUID, Application) async throws -> RecurringJobs.Outcome) {
        (self.kind, self.scheduleFor, self.work) = (kind, scheduleFor, work)
    }

    static let prune = RecurringJob(kind: .prune, schedule: .daily(at: 3)) { library, app in
        try await Jobs.prune(library: library, app: app)
    }

    /// Holds not collected by the end of their pickup day expire; each copy passes to the next in line.
    static let expireHolds = RecurringJob(kind: .expireHolds, schedule: .daily(at: 1)) { library, app in
        RecurringJobs.Outcome(expired: try await Holds.expire(library: library, app: app))
    }

    /// Reminders: daily at the hour the library chose, while it has them switched on.
    static let reminders = RecurringJob(kind: .reminders, scheduleFor: { library in
        library.reminders_on == true ? .daily(at: library.reminder_hour ?? 8) : nil
    }) { library, app in
        try await Reminders.run(library: library, app: app)
    }

    /// Saved reports whose month or term has ended, mailed each morning while the library has some scheduled.
    static let mailReports = RecurringJob(kind: .mailReports, scheduleFor: { library in
        library.mails_reports == true ? .daily(at: SavedReports.hour) : nil
    }) { library, app in
        try await SavedReports.mailDue(library: library, app: app)
    }

    /// Borrowers forgotten past the library's retention: nightly at 02:00, where it has one.
    static let retention = RecurringJob(kind: .retention, scheduleFor: { library in
        library.retention_months == nil ? nil : .daily(at: 2)
    }) { library, app in
        try await Retention.run(library: library, app: app)
    }

    /// The school's roster from the library's drop folder: nightly at 01:00, where asked for.
    static let rosterFolder = RecurringJob(kind: .rosterFolder, scheduleFor: { library in
        library.roster_nightly == true ? .daily(at: 1) : nil
    }) { library, app in
        try await RosterFolder.run(library: library, app: app)
    }
}

enum RecurringJobs {
    /// Every recurring job of every library.
    static let all: [RecurringJob] = [.prune, .expireHolds, .reminders, .mailReports, .retention, .rosterFolder]

    /// What a run did, as a count the staff page shows.
    struct Outcome: Codable, Sendable, Equatable {
        var removed: Int?
        var expired: Int?
        /// A reminder run: messages queued, handed to the server, refused or not delivered, and members without email.
        var queued: Int?
        var sent: Int?
        var failed: Int?
        var withoutEmail: Int?
        /// A roster from the drop folder: members added, changed and archived; or archived had it been
        /// applied (`heldBack`: it waits as a preview).
        var added: Int? = nil
        var changed: Int? = nil
        var archived: Int? = nil
        var heldBack: Bool? = nil
    }

    /// A library as the scheduler needs it.
    struct LibraryZone: Decodable, Sendable {
        var id: UUID
        var time_zone: String?
        var reminders_on: Bool?
        var reminder_hour: Int?
        /// It has saved reports to mail.
        var mails_reports: Bool?
        /// Months a closed loan keeps its borrower (nil: for ever).
        var retention_months: Int?
        /// It reads the school's roster from its drop folder each night.
        var roster_nightly: Bool?
        var zone: TimeZone { Library.zone(time_zone) }
    }

    private static let zoneColumns: SQLQueryString = """
        id, time_zone, reminders_on, reminder_hour, retention_months, roster_nightly,
        EXISTS (SELECT 1 FROM saved_reports s WHERE s.library_id = libraries.id AND s.schedule <> 'none') AS mails_reports
        """

    static func libraries(on db: any Database) async throws -> [LibraryZone] {
        // Not a library a restore is still writing or swapping in (`pending_job_id`): it is nobody's yet.
        try await db.sql.raw("SELECT \(zoneColumns) FROM libraries WHERE pending_job_id IS NULL").all(decoding: LibraryZone.self)
    }

    static func library(_ id: UUID, on db: any Database) async throws -> LibraryZone? {
        try await db.sql.raw("SELECT \(zoneColumns) FROM libraries WHERE id = \(bind: id)").first(decoding: LibraryZone.self)
    }

    /// Claims the run of `job` for `library` and `period`: the row is written only if no run of that
    /// period exists (a partial unique index on kind, library and period), so of several instances
    /// exactly one gets an id back.
    static func claim(_ job: RecurringJob, library: UUID, period: String, now: Date, app: Application) async throws -> UUID? {
        let id = UUID()
        return try await app.writeGate.transaction(on: app.db) { db in
            let row = try await db.sql.raw("""
                INSERT INTO jobs (id, library_id, kind, state, lease_until, rows_read, titles_created, copies_added, created_at, attempts, period)
                VALUES (\(bind: id), \(bind: library), \(bind: job.kind.rawValue), 'running', \(bind: now.addingTimeInterval(Jobs.lease)),
                        0, 0, 0, \(bind: now), 1, \(bind: period))
                ON CONFLICT (kind, library_id, period) WHERE period IS NOT NULL DO NOTHING
                RETURNING id
                """).first()
            return row == nil ? nil : id
        }
    }

    /// Starts every run whose period has come and that no instance has claimed; answers the runs this
    /// process started (tests await them with `app.jobRunner.wait`).
    @discardableResult
    static func tick(app: Application, libraries given: [LibraryZone]? = nil, seen: NIOLockedValueBox<Set<String>>? = nil,
                     jobs: [RecurringJob] = all) async throws -> [UUID] {
        let now = app.clock.now()
        var started: [UUID] = []
        var zones = given ?? []
        if given == nil { zones = try await libraries(on: app.db) }
        for library in zones {
            for job in jobs {
                guard let schedule = job.scheduleFor(library) else { continue }
                let period = schedule.period(at: now, in: library.zone).key
                let key = "\(job.kind.rawValue) \(library.id) \(period)"
                if seen?.withLockedValue({ $0.contains(key) }) == true { continue }
                if let id = try await claim(job, library: library.id, period: period, now: now, app: app) {
                    started.append(id)
                    Jobs.run(id, app: app) { try await job.work(library.id, app) }
                }
                _ = seen?.withLockedValue { $0.insert(key) }
            }
        }
        return started
    }

    /// When the next run of any library is due (the scheduler sleeps until then, or five minutes).
    static func nextDue(after now: Date, libraries: [LibraryZone]) -> Date? {
        libraries.flatMap { library in all.compactMap { $0.scheduleFor(library)?.next(after: now, in: library.zone) } }.min()
    }

    /// A recurring job's schedule and its next run, for the staff page.
    struct Planned: Sendable {
        var kind: Jobs.Kind
        var schedule: Schedule
        var next: Date
    }

    static func planned(library: LibraryZone, now: Date) -> [Planned] {
        all.compactMap { job in
            job.scheduleFor(library).map { Planned(kind: job.kind, schedule: $0, next: $0.next(after: now, in: library.zone)) }
        }
    }
}

extension Jobs {
    /// How long a finished job is kept (the staff page shows them; `prune` removes older ones).
    static let retention: TimeInterval = 30 * 86_400

    /// The daily tidy-up of one library: finished jobs (imports, restores, filled-in titles, earlier
    /// runs) older than `retention` are removed, and those of libraries that no longer exist; and the
    /// sync feed's tombstones older than `Sync.tombstoneRetention`.
    static func prune(library: UUID, app: Application) async throws -> RecurringJobs.Outcome {
        let cutoff = app.clock.now().addingTimeInterval(-retention)
        let jobs = try await app.writeGate.transaction(on: app.db) { db in
            struct Count: Decodable { var n: Int }
            let condition: SQLQueryString = """
                (library_id = \(bind: library) OR library_id IS NULL) AND state IN ('done', 'failed') AND finished_at < \(bind: cutoff)
                """
            let count = try await db.sql.raw("SELECT COUNT(*) AS n FROM jobs WHERE \(condition)").first(decoding: Count.self)?.n ?? 0
            if count > 0 { try await db.sql.raw("DELETE FROM jobs WHERE \(condition)").run() }
            return count
        }
        // And the sync feed's old tombstones: a device away longer fetches everything again.
        let tombstones = try await Sync.purge(library: library, now: app.clock.now(), gate: app.writeGate, on: app.db)
        // And sign-in counts long quiet (the installation's, whichever library's round comes first).
        try await LoginThrottle.prune(now: app.clock.now(), gate: app.writeGate, on: app.db)
        return RecurringJobs.Outcome(removed: jobs + tombstones)
    }

    /// A job as the staff page lists it.
    struct Run: Decodable, Sendable {
        var id: UUID
        var kind: String
        var state: String
        var lease_until: Date?
        var created_at: Date
        var finished_at: Date?
        var result: String?
        var failure: String?
        var period: String?

        var status: State { State(rawValue: state) ?? .failed }
        var decodedFailure: Failure? { Failure.stored(failure) }
        var outcome: RecurringJobs.Outcome? { result.flatMap { try? JSONDecoder.api.decode(RecurringJobs.Outcome.self, from: Data($0.utf8)) } }
    }

    /// The library's latest jobs other than filling in titles (those are counted by `Enrichment.progress`),
    /// newest first; leases that ran out are ended first, so a dead job shows as failed.
    static func recent(library: UUID, limit: Int, app: Application) async throws -> [Run] {
        let now = app.clock.now()
        let read: @Sendable () async throws -> [Run] = {
            try await app.db.sql.raw("""
                SELECT id, kind, state, lease_until, created_at, finished_at, result, failure, period FROM jobs
                WHERE library_id = \(bind: library) AND kind <> 'enrich'
                ORDER BY created_at DESC LIMIT \(bind: limit)
                """).all(decoding: Run.self)
        }
        let runs = try await read()
        // As `find`: a dead job (its lease ran out) is ended first, written only when there is one.
        guard runs.contains(where: { $0.status == .running && ($0.lease_until.map { $0 < now } ?? false) }) else { return runs }
        try await endDeadJobs(now: now, app: app)
        return try await read()
    }
}

extension RecurringJobs {
    /// Runs the recurring jobs in `shelfmark serve`: at start (a run missed while the server was down
    /// is made then, once), then at each next scheduled moment, and at least every five minutes (a
    /// library made meanwhile, another instance's clock).
    static func scheduler(longestSleep: Duration = .seconds(300)) -> BackgroundLoop {
        let seen = NIOLockedValueBox<Set<String>>([])
        return BackgroundLoop("scheduler", longestWait: longestSleep, prepare: { app in
            if Dialect(app.db) == .sqlite {
                try await app.writeGate.transaction(on: app.db) { db in try await Jobs.failOrphans(now: app.clock.now(), on: db) }
            }
            await Backup.resumeSwaps(app: app)
        }, round: { app in
            // A restore swap whose instance died is finished even when nobody looks at its job.
            try await Jobs.endDeadJobs(now: app.clock.now(), app: app)
            let libraries = try await RecurringJobs.libraries(on: app.db)
            try await RecurringJobs.tick(app: app, libraries: libraries, seen: seen)
            let now = app.clock.now()
            guard let next = RecurringJobs.nextDue(after: now, libraries: libraries) else { return longestSleep }
            return .seconds(max(1, next.timeIntervalSince(now) + 1))
        })
    }
}
