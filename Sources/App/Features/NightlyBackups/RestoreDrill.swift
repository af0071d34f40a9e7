import Fluent
import Foundation
import SQLKit
import Vapor

/// The monthly restore drill: the newest backup restored, as a person would restore it, into a
/// scratch database of its own (a fresh SQLite file, every migration run), every library file through
/// the same restore as "Restore as a new library", and each library's titles, copies, members and
/// loans counted against what the backup's manifest says was written. A backup nobody ever restored
/// is a hope; this makes it a fact once a month, and says so on the backups page.
enum RestoreDrill {
    struct Report: Codable, Sendable {
        /// The backup restored (its folder's name).
        var backup: String
        var libraries: Int
        var titles: Int
        var copies: Int
        var members: Int
        var loans: Int
        var seconds: Double
    }

    static func run(app: Application) async throws -> Report {
        try await run(folder: try await NightlyBackupSettings.load(on: app.db).resolvedFolder(app), app: app)
    }

    static func run(folder: String, app: Application) async throws -> Report {
        guard let newest = NightlyBackup.list(folder).first else { throw NightlyBackupError.nothingToDrill }
        let started = ContinuousClock.now
        let scratchDir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-drill-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratchDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratchDir) }
        let scratch = try await Application.make(Environment(name: "drill", arguments: ["shelfmark"]))
        do {
            try scratch.useStorage(.sqlite(path: scratchDir + "/drill.sqlite"))
            scratch.fluent.migrationLogLevel = .debug
            Migrations.register(on: scratch)
            try await scratch.autoMigrate().get()
            let drillUser = User(username: "restore-drill", displayName: "Restore drill", passwordHash: "!", isAdmin: true)
            try await drillUser.create(on: scratch.db)
            let user = AuthenticatedUser(id: try drillUser.requireID(), username: drillUser.username, displayName: drillUser.displayName)
            var report = Report(backup: newest.name, libraries: 0, titles: 0, copies: 0, members: 0, loans: 0, seconds: 0)
            for file in newest.manifest.libraries {
                let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + newest.name + "/" + file.file))
                let restored = try await Backup.restoreAsNew(try Backup.decode(data), name: nil, user: user, job: nil,
                                                             gate: scratch.writeGate, on: scratch.db).library
                for (table, written) in [("titles", file.titles), ("copies", file.copies), ("members", file.members), ("loans", file.loans)] {
                    struct Row: Decodable { var n: Int }
                    let found = try await scratch.db.sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(LibraryNumber.rows(of: table, restored.id))")
                        .first(decoding: Row.self)?.n ?? 0
                    guard found == written else {
                        throw NightlyBackupError.drillMismatch(library: file.name, table: table, written: written, restored: found)
                    }
                }
                report.libraries += 1
                (report.titles, report.copies, report.members, report.loans) =
                    (report.titles + file.titles, report.copies + file.copies, report.members + file.members, report.loans + file.loans)
            }
            report.seconds = (ContinuousClock.now - started).seconds
            try await scratch.asyncShutdown()
            return report
        } catch {
            try? await scratch.asyncShutdown()
            throw error
        }
    }

    /// The month's drill, when no instance has claimed it yet (`period`: `2026-11`).
    static func claim(period: String, now: Date, app: Application) async throws -> UUID? {
        try await Jobs.claimInstallationRun(.backupDrill, period: period, now: now, app: app)
    }

    /// A drill now, on the administrator's word.
    static func start(user: UUID, app: Application) async throws -> UUID {
        let folder = try await NightlyBackupSettings.load(on: app.db).resolvedFolder(app)
        guard !NightlyBackup.list(folder).isEmpty else { throw NightlyBackupError.nothingToDrill }
        return try await Jobs.beginInstallationRun(.backupDrill, user: user, app: app) { try await RestoreDrill.run(app: app) }
    }

    /// The latest drill: when it ended and what it found, or why it failed.
    struct Last: Sendable {
        var at: Date
        var report: Report?
        var failure: Jobs.Failure?
    }

    static func last(on db: any Database) async throws -> Last? {
        struct Row: Decodable { var state: String; var created_at: Date; var finished_at: Date?; var result: String?; var failure: String? }
        guard let row = try await db.sql.raw("""
            SELECT state, created_at, finished_at, result, failure FROM jobs WHERE kind = \(bind: Jobs.Kind.backupDrill.rawValue)
            AND state <> 'running' ORDER BY created_at DESC LIMIT 1
            """).first(decoding: Row.self) else { return nil }
        let report = row.result.flatMap { try? JSONDecoder.api.decode(Report.self, from: Data($0.utf8)) }
        return Last(at: row.finished_at ?? row.created_at, report: row.state == "done" ? report : nil,
                    failure: row.state == "failed" ? (Jobs.Failure.stored(row.failure) ?? .interrupted) : nil)
    }
}
