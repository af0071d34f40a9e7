import Fluent
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import SQLKit
import Vapor

/// When the nightly backups run, how they stand, and the administrator's changes to them.
enum NightlyBackups {
    /// No good backup for this long is a warning on the overview.
    static let staleAfter: TimeInterval = 2 * 86_400

    /// Runs the backup of the period that has come, once whatever the number of instances (a job row
    /// per night, unique by its period): at the hour each night, and at start when a night was missed
    /// while the server was off. A new installation (no backup made yet) waits for its first night
    /// rather than backing up at its first start.
    static func loop(longestWait: Duration = .seconds(900)) -> BackgroundLoop {
        let started = NIOLockedValueBox<Date?>(nil)
        return BackgroundLoop("nightly backup", longestWait: longestWait, round: { app in
            let settings = try await NightlyBackupSettings.load(on: app.db)
            let schedule = Schedule.daily(at: settings.hour)
            let now = app.clock.now()
            let since = started.withLockedValue { s -> Date in if s == nil { s = now }; return s! }
            let period = schedule.period(at: now, in: .current)
            var due = period.start >= since
            if !due { due = try await hasHistory(settings, app: app) }
            if due, let id = try await claim(period: period.key, now: now, app: app) {
                Jobs.run(id, app: app) {
                    let report = try await NightlyBackup.make(app: app)
                    // Once a month, the night's backup is restored into a scratch database.
                    if let drill = try await RestoreDrill.claim(period: String(period.key.prefix(7)), now: app.clock.now(), app: app) {
                        Jobs.run(drill, app: app) { try await RestoreDrill.run(app: app) }
                    }
                    return report
                }
            }
            return .seconds(max(1, schedule.next(after: now, in: .current).timeIntervalSince(now) + 1))
        })
    }

    /// Whether nightly backups ran here before (a run on record, or a backup in the folder).
    private static func hasHistory(_ settings: NightlyBackupSettings, app: Application) async throws -> Bool {
        if try await app.db.sql.raw("SELECT id FROM jobs WHERE kind = \(bind: Jobs.Kind.nightlyBackup.rawValue) LIMIT 1").first() != nil { return true }
        return !NightlyBackup.list(settings.resolvedFolder(app)).isEmpty
    }

    /// The night's run, when no instance has claimed it yet.
    static func claim(period: String, now: Date, app: Application) async throws -> UUID? {
        try await Jobs.claimInstallationRun(.nightlyBackup, period: period, now: now, app: app)
    }

    /// A backup now, on the administrator's word: a job they can follow.
    static func start(user: UUID, app: Application) async throws -> UUID {
        try await Jobs.beginInstallationRun(.nightlyBackup, user: user, app: app) { try await NightlyBackup.make(app: app) }
    }

    struct Status: Sendable {
        var settings: NightlyBackupSettings
        var folder: String
        var backups: [NightlyBackup.Listed]
        var lastFailure: (at: Date, failure: Jobs.Failure)?
        var running: Bool
        var space: DiskSpace?
        var warnings: [Warning]
        var postgres: Bool
        var lastDrill: RestoreDrill.Last?

        var lastGood: Date? { backups.first?.madeAt }
    }

    enum Warning: String, Sendable, CaseIterable {
        /// No good backup for two days (and the installation is older than that).
        case noRecentBackup = "no_recent_backup"
        /// The folder's disk has room for fewer than two more backups, or under 5 % free.
        case folderNearlyFull = "folder_nearly_full"
        /// The folder is missing or cannot be written.
        case folderUnusable = "folder_unusable"
    }

    static func status(app: Application) async throws -> Status {
        let settings = try await NightlyBackupSettings.load(on: app.db)
        let folder = settings.resolvedFolder(app)
        let backups = NightlyBackup.list(folder)
        struct Run: Decodable { var state: String; var created_at: Date; var finished_at: Date?; var failure: String? }
        let runs = try await app.db.sql.raw("""
            SELECT state, created_at, finished_at, failure FROM jobs WHERE kind = \(bind: Jobs.Kind.nightlyBackup.rawValue)
            ORDER BY created_at DESC LIMIT 5
            """).all(decoding: Run.self)
        let now = app.clock.now()
        var lastFailure: (at: Date, failure: Jobs.Failure)?
        if let failed = runs.first(where: { $0.state == "failed" }), let failure = Jobs.Failure.stored(failed.failure),
           backups.first.map({ $0.madeAt < failed.created_at }) ?? true {
            lastFailure = (failed.finished_at ?? failed.created_at, failure)
        }
        let running = runs.contains { $0.state == "running" }
        var warnings: [Warning] = []
        var isDirectory: ObjCBool = false
        let usable = FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
            && FileManager.default.isWritableFile(atPath: folder)
        // The default folder is made by the first backup; a chosen one must be there.
        if !usable && (settings.folder != nil || !backups.isEmpty) { warnings.append(.folderUnusable) }
        let space = usable ? DiskSpace(folder) : nil
        if let space, space.total > 0 {
            let newest = backups.first?.bytes ?? 0
            if space.free < 2 * newest || space.free * 20 < space.total { warnings.append(.folderNearlyFull) }
        }
        // Stale when the newest backup is over two days old, or there is none and the installation is older than that.
        var since = backups.first?.madeAt
        if since == nil { since = try await installedSince(on: app.db) }
        if let since, now.timeIntervalSince(since) > staleAfter { warnings.append(.noRecentBackup) }
        return Status(settings: settings, folder: folder, backups: backups, lastFailure: lastFailure, running: running, space: space,
                      warnings: warnings, postgres: Dialect(app.db) == .postgresql, lastDrill: try await RestoreDrill.last(on: app.db))
    }

    /// When the installation began: its first library.
    private static func installedSince(on db: any Database) async throws -> Date? {
        struct Row: Decodable { var created_at: Date? }
        return try await db.sql.raw("SELECT MIN(created_at) AS created_at FROM libraries").first(decoding: Row.self)?.created_at
    }

    /// The command that backs up a PostgreSQL database, without its password (pg_dump asks, or reads ~/.pgpass).
    static func pgDumpCommand(_ storage: StorageConfig?) -> String? {
        guard case .postgres(let url, _) = storage, var parts = URLComponents(string: url) else { return nil }
        parts.password = nil
        parts.query = nil
        return "pg_dump --format=custom --file=shelfmark-$(date +%F).dump '\(parts.string ?? "")'"
    }

    static func dto(_ status: Status, app: Application, t: Strings) -> NightlyBackupsDTO {
        NightlyBackupsDTO(
            folder: status.folder, folderIsDefault: status.settings.folder == nil, hour: status.settings.hour, timeZone: TimeZone.current.identifier,
            keepDaily: status.settings.rotation.daily, keepWeekly: status.settings.rotation.weekly, keepMonthly: status.settings.rotation.monthly,
            database: status.postgres ? "postgresql" : "sqlite", pgDumpCommand: pgDumpCommand(app.storageConfig),
            lastGoodAt: status.lastGood,
            lastFailure: status.lastFailure.map { .init(at: $0.at, code: $0.failure.code, message: $0.failure.message(t)) },
            freeBytes: status.space?.free, totalBytes: status.space?.total, warnings: status.warnings.map(\.rawValue),
            lastDrill: status.lastDrill.map {
                .init(at: $0.at, report: $0.report, error: $0.failure.map { ErrorBody.Detail(code: $0.code, message: $0.message(t), field: $0.field) })
            },
            backups: status.backups.map {
                .init(name: $0.name, madeAt: $0.madeAt, bytes: $0.bytes, libraries: $0.manifest.libraries.count,
                      titles: $0.manifest.libraries.reduce(0) { $0 + $1.titles })
            })
    }

    /// The administrator's change, checked as a whole before it is kept.
    static func update(_ patch: NightlyBackupsPatch, gate: WriteGate, on db: any Database) async throws {
        let changed = try patch.applied(to: try await NightlyBackupSettings.load(on: db))
        try await changed.save(gate: gate, on: db)
    }
}

extension Jobs {
    /// The installation's run of `kind` (no library's) for `period`, when no instance has claimed it:
    /// the row is written only if none of that kind and period exists (each such kind has a partial
    /// unique index on its period), so of several instances exactly one gets an id back.
    static func claimInstallationRun(_ kind: Kind, period: String, now: Date, app: Application) async throws -> UUID? {
        precondition(kind == .nightlyBackup || kind == .backupDrill, "\(kind) has no unique index on its period")
        let id = UUID()
        return try await app.writeGate.transaction(on: app.db) { db in
            let row = try await db.sql.raw("""
                INSERT INTO jobs (id, library_id, kind, state, lease_until, rows_read, titles_created, copies_added, created_at, attempts, period)
                VALUES (\(bind: id), NULL, \(bind: kind.rawValue), 'running', \(bind: now.addingTimeInterval(Jobs.lease)),
                        0, 0, 0, \(bind: now), 1, \(bind: period))
                ON CONFLICT (period) WHERE kind = \(unsafeRaw: "'" + kind.rawValue + "'") DO NOTHING
                RETURNING id
                """).first()
            return row == nil ? nil : id
        }
    }

    /// An installation run of `kind` on the administrator's word, as a job they can follow; refused
    /// while one of its kind runs.
    static func beginInstallationRun<R: Encodable & Sendable>(_ kind: Kind, user: UUID, app: Application,
                                                             _ work: @escaping @Sendable () async throws -> R) async throws -> UUID {
        try await endDeadJobs(now: app.clock.now(), app: app)
        if try await app.db.sql.raw("SELECT id FROM jobs WHERE kind = \(bind: kind.rawValue) AND state = 'running' LIMIT 1").first() != nil {
            throw NightlyBackupError.alreadyRunning
        }
        let id = try await begin(kind, library: nil, target: nil, user: user, now: app.clock.now(), app: app)
        run(id, app: app, work)
        return id
    }
}
