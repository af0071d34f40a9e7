import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The installation's nightly backups as its administrator set them: where they go, at what hour
/// (the server's time zone) and how many are kept. Kept as one JSON value in `server_settings`.
struct NightlyBackupSettings: Codable, Sendable, Equatable {
    /// The folder, a full path; nil: the default (`SHELFMARK_BACKUP_DIR`, else `backups` in the data directory).
    var folder: String?
    var hour: Int = 2
    var rotation = BackupRotation()

    static let hourRange = 0...23
    static let folderMaxLength = 1_000
    private static let key = "nightly_backups"

    static func load(on db: any Database) async throws -> NightlyBackupSettings {
        try await ServerSettings.stored(key, as: NightlyBackupSettings.self, on: db) ?? NightlyBackupSettings()
    }

    func save(gate: WriteGate, on db: any Database) async throws {
        try await ServerSettings.store(self, key: Self.key, gate: gate, on: db)
    }

    /// The folder the backups go to: the chosen one, or the default.
    func resolvedFolder(_ app: Application) -> String {
        folder ?? Self.defaultFolder(app.storageConfig)
    }

    static func defaultFolder(_ storage: StorageConfig?, env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = env["SHELFMARK_BACKUP_DIR"], !dir.isEmpty { return absolute(dir) }
        switch storage {
        case .sqlite(let path): return absolute((path as NSString).deletingLastPathComponent + "/backups")
        default: return absolute((env["SHELFMARK_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data") + "/backups")
        }
    }

    private static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    /// Folders a backup never goes into: the system's own.
    static let systemFolders = ["/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/proc", "/run", "/sbin", "/sys", "/usr"]

    /// A folder an administrator typed: a full path to an existing folder this server may write, not
    /// the root or a system folder. An empty one means the default. The default folder is made when
    /// missing; a chosen one must exist (a USB disk or a network share is mounted there).
    static func checkFolder(_ raw: String?) throws -> String? {
        guard let text = try Check.optional(raw, field: "folder", max: folderMaxLength) else { return nil }
        guard text.hasPrefix("/") else { throw NightlyBackupError.folderNotAbsolute }
        guard !text.contains(where: { $0.isNewline || $0 == "\0" }) else { throw NightlyBackupError.folderForbidden }
        let path = URL(fileURLWithPath: text).standardizedFileURL.path
        guard path != "/", !path.split(separator: "/").contains(".."),
              !systemFolders.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) else { throw NightlyBackupError.folderForbidden }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw NightlyBackupError.folderMissing
        }
        try probeWritable(path)
        return path
    }

    /// Writes and removes a small file in `folder`: what a backup needs to be able to do there.
    static func probeWritable(_ folder: String) throws {
        let probe = folder + "/.shelfmark-probe-\(UUID().uuidString)"
        guard FileManager.default.createFile(atPath: probe, contents: Data("ok".utf8), attributes: [.posixPermissions: 0o600]) else {
            throw NightlyBackupError.folderNotWritable
        }
        try? FileManager.default.removeItem(atPath: probe)
    }
}

/// The nightly backups' settings as the API shows them, with where they stand.
struct NightlyBackupsDTO: Content {
    /// The folder the backups go to (the default when none was chosen).
    var folder: String
    var folderIsDefault: Bool
    /// The hour of the night they are made, in the server's time zone (`timeZone`).
    var hour: Int
    var timeZone: String
    var keepDaily: Int
    var keepWeekly: Int
    var keepMonthly: Int
    /// `sqlite`: each backup holds a copy of the whole database and each library's backup file;
    /// `postgresql`: the libraries' backup files (the database itself is backed up with `pgDumpCommand`).
    var database: String
    var pgDumpCommand: String?
    var lastGoodAt: Date?
    var lastFailure: LastFailure?
    var freeBytes: Int64?
    var totalBytes: Int64?
    /// `no_recent_backup` (none for two days), `folder_nearly_full`, `folder_unusable`.
    var warnings: [String]
    /// The latest restore drill (monthly, or when asked): what came back, or why it failed.
    var lastDrill: Drill?
    /// The backups in the folder, newest first.
    var backups: [Entry]

    struct LastFailure: Content {
        var at: Date
        var code: String
        var message: String
    }

    struct Drill: Content {
        var at: Date
        var report: RestoreDrill.Report?
        var error: ErrorBody.Detail?
    }

    struct Entry: Content {
        var name: String
        var madeAt: Date
        var bytes: Int64
        var libraries: Int
        var titles: Int
    }
}

/// A change to the nightly backups: only the fields sent change; an empty `folder` goes back to the default.
struct NightlyBackupsPatch: Content, SchemaConstrained {
    var folder: String?
    var hour: Int?
    var keepDaily: Int?
    var keepWeekly: Int?
    var keepMonthly: Int?

    static var schemaConstraints: [String: JSONValue] {
        // A full path, or empty for the default; whether it exists and can be written is the machine's
        // state, refused with 409.
        ["folder": ["maxLength": .number(Double(NightlyBackupSettings.folderMaxLength)), "pattern": "^(/.*)?$"], "hour": Rule.range(NightlyBackupSettings.hourRange),
         "keepDaily": Rule.range(BackupRotation.dailyRange), "keepWeekly": Rule.range(BackupRotation.weeklyRange),
         "keepMonthly": Rule.range(BackupRotation.monthlyRange)]
    }

    func applied(to settings: NightlyBackupSettings) throws -> NightlyBackupSettings {
        var changed = settings
        if let folder { changed.folder = try NightlyBackupSettings.checkFolder(folder) }
        if let hour = try Check.range(hour, NightlyBackupSettings.hourRange, field: "hour") { changed.hour = hour }
        if let n = try Check.range(keepDaily, BackupRotation.dailyRange, field: "keepDaily") { changed.rotation.daily = n }
        if let n = try Check.range(keepWeekly, BackupRotation.weeklyRange, field: "keepWeekly") { changed.rotation.weekly = n }
        if let n = try Check.range(keepMonthly, BackupRotation.monthlyRange, field: "keepMonthly") { changed.rotation.monthly = n }
        return changed
    }
}
