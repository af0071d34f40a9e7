import Fluent
import Foundation
import ShelfmarkCore
import SQLiteNIO
import SQLKit
import Vapor

/// The installation's backup, made every night by itself (and on the administrator's word): into a
/// folder of its own under the backup folder,
///
///     shelfmark-2026-11-28T020000Z/
///       shelfmark.sqlite        an online copy of the whole database (SQLite: `VACUUM INTO`)
///       libraries/<id>.json     each library's backup file, as "Back up" writes it
///       manifest.json           when, what, and the counts each file was checked against
///
/// Everything is written into `.incomplete-<name>` first, each file read back and checked (the copy
/// opened and its integrity checked, every table counted; each library file decoded and its counts
/// compared with what was written), flushed to the disk, and only then renamed to its name: a power
/// cut leaves an `.incomplete-` folder, which the next run removes, and never touches a finished
/// backup. Then the rotation removes the backups it no longer keeps. A lock file keeps two runs out
/// of one folder at once; the kernel lets go of it when a process dies.
enum NightlyBackup {
    static let prefix = "shelfmark-"
    static let incompletePrefix = ".incomplete-"
    static let manifestName = "manifest.json"

    /// A finished backup's manifest.
    struct Manifest: Codable, Sendable {
        var format = "shelfmark-nightly-backup"
        var version = 1
        var madeAt: Date
        /// `sqlite` or `postgresql`.
        var database: String
        /// The newest change to the database's shape this version knows (the copy needs this version or newer).
        var schema: String
        /// The database copy's rows by table (SQLite).
        var databaseCounts: [String: Int]?
        var libraries: [LibraryFile]
        var bytes: Int64

        struct LibraryFile: Codable, Sendable {
            var id: UUID
            var name: String
            var file: String
            var titles: Int
            var copies: Int
            var members: Int
            var loans: Int
            var bytes: Int64
        }
    }

    /// What a run did: the job keeps it, the API and the page show it.
    struct Report: Codable, Sendable {
        var folder: String
        var name: String
        var bytes: Int64
        var libraries: Int
        var titles: Int
        /// Older backups the rotation removed.
        var removed: Int
    }

    /// A backup's folder name for `date` (`shelfmark-2026-11-28T020000Z`), and back.
    static func name(for date: Date) -> String { prefix + date.fileStamp }

    static func date(ofName name: String) -> Date? {
        guard name.hasPrefix(prefix) else { return nil }
        let stamp = name.dropFirst(prefix.count)
        guard stamp.count == 18 else { return nil }
        var text = String(stamp)
        // 2026-11-28T020000Z → 2026-11-28T02:00:00Z
        text.insert(":", at: text.index(text.startIndex, offsetBy: 13))
        text.insert(":", at: text.index(text.startIndex, offsetBy: 16))
        return try? Date(text, strategy: .iso8601)
    }

    /// Makes a backup now into the configured folder, checks it, and prunes by the rotation.
    static func make(app: Application) async throws -> Report {
        let settings = try await NightlyBackupSettings.load(on: app.db)
        let folder = settings.resolvedFolder(app)
        if settings.folder == nil {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return try await make(into: folder, rotation: settings.rotation, zone: .current, app: app)
    }

    static func make(into folder: String, rotation: BackupRotation, zone: TimeZone, app: Application) async throws -> Report {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw NightlyBackupError.folderMissing
        }
        let lock = try FolderLock(folder)
        defer { lock.release() }
        // Nobody else holds the lock: any unfinished folder is a run that died.
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where entry.hasPrefix(incompletePrefix) {
            try? FileManager.default.removeItem(atPath: folder + "/" + entry)
        }
        let now = app.clock.now()
        let previous = list(folder).first
        try checkRoom(folder: folder, previous: previous, app: app)

        let backupName = name(for: now)
        let work = folder + "/" + incompletePrefix + backupName
        try FileManager.default.createDirectory(atPath: work + "/libraries", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            var manifest = Manifest(madeAt: now, database: Dialect(app.db) == .sqlite ? "sqlite" : "postgresql",
                                    schema: Migrations.inOrder.last.map { $0.name } ?? "", databaseCounts: nil, libraries: [], bytes: 0)
            if case .sqlite = app.storageConfig {
                manifest.databaseCounts = try await copyDatabase(to: work + "/shelfmark.sqlite", app: app)
            }
            struct LibraryName: Decodable { var id: UUID; var name: String }
            let libraries = try await app.db.sql.raw("SELECT id, name FROM libraries WHERE pending_job_id IS NULL ORDER BY created_at, id")
                .all(decoding: LibraryName.self)
            for library in libraries {
                manifest.libraries.append(try await writeLibrary(library.id, name: library.name, into: work, now: now, app: app))
            }
            manifest.bytes = size(of: work)
            let manifestData = try JSONEncoder.manifest.encode(manifest)
            try writeSynced(manifestData, to: work + "/" + manifestName)
            manifest.bytes += Int64(manifestData.count)
            syncDirectory(work + "/libraries")
            syncDirectory(work)
            try FileManager.default.moveItem(atPath: work, toPath: folder + "/" + backupName)
            syncDirectory(folder)
            let removed = prune(folder, rotation: rotation, zone: zone)
            return Report(folder: folder, name: backupName, bytes: manifest.bytes, libraries: manifest.libraries.count,
                          titles: manifest.libraries.reduce(0) { $0 + $1.titles }, removed: removed)
        } catch {
            try? FileManager.default.removeItem(atPath: work)
            throw error
        }
    }

    /// An online copy of the SQLite database (`VACUUM INTO` reads one consistent state while others
    /// go on writing), opened again, its integrity checked and every table counted. The copy reads
    /// through a connection of its own: on one of the pool's (one per event loop) every request of that
    /// loop waited for the whole copy (3.6 s at 100,000 titles).
    private static func copyDatabase(to path: String, app: Application) async throws -> [String: Int] {
        if case .sqlite(let live) = app.storageConfig {
            try await onOwnConnection(live, app: app) { _ = try await $0.query("VACUUM INTO ?1", [.text(path)]) }
        } else {
            try await app.db.sql.raw("VACUUM INTO \(bind: path)").run()
        }
        let counts = try await onOwnConnection(path, app: app) { connection in
            let check = try await connection.query("PRAGMA integrity_check").first?.column("integrity_check")?.string
            guard check == "ok" else { throw NightlyBackupError.verificationFailed(file: "shelfmark.sqlite") }
            let tables = try await connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                .compactMap { $0.column("name")?.string }
            var counts: [String: Int] = [:]
            for table in tables {
                counts[table] = try await connection.query("SELECT COUNT(*) AS n FROM \(DatabaseMove.quoted(table))").first?.column("n")?.integer ?? -1
            }
            return counts
        }
        try syncFile(path)
        return counts
    }

    /// `body` on a connection to the SQLite file at `path` opened for it alone (not one of the pool's),
    /// closed after.
    private static func onOwnConnection<T: Sendable>(_ path: String, app: Application, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        let connection = try await SQLiteConnection.open(storage: .file(path: path), threadPool: app.threadPool, logger: app.logger,
                                                         on: app.eventLoopGroup.any())
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A library's backup file, read back: it must decode and hold what was written.
    private static func writeLibrary(_ id: UUID, name: String, into work: String, now: Date, app: Application) async throws -> Manifest.LibraryFile {
        let backup = try await Backup.make(libraryID: id, includeCovers: true, now: now, on: app.db)
        let file = "libraries/\(id.uuidString.lowercased()).json"
        let data = try Backup.encode(backup)
        try writeSynced(data, to: work + "/" + file)
        let back = try Backup.decode(try Data(contentsOf: URL(fileURLWithPath: work + "/" + file)))
        guard back.titles.count == backup.titles.count, back.copies.count == backup.copies.count,
              back.members.count == backup.members.count, back.loans.count == backup.loans.count, back.library.name == backup.library.name else {
            throw NightlyBackupError.verificationFailed(file: file)
        }
        return Manifest.LibraryFile(id: id, name: name, file: file, titles: backup.titles.count, copies: backup.copies.count,
                                    members: backup.members.count, loans: backup.loans.count, bytes: Int64(data.count))
    }

    /// Refuses to start when the folder's disk has less room than the database (or the last backup) needs.
    private static func checkRoom(folder: String, previous: Listed?, app: Application) throws {
        var need: Int64 = previous?.bytes ?? 0
        if case .sqlite(let path) = app.storageConfig {
            let database = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? nil
            need = max(need, database ?? 0)
        }
        need += need / 10 + (1 << 20)
        if let space = DiskSpace(folder), space.free < need {
            throw NightlyBackupError.notEnoughRoom(need: need, free: space.free)
        }
    }

    /// A finished backup in the folder.
    struct Listed: Sendable {
        var name: String
        var madeAt: Date
        var manifest: Manifest
        var bytes: Int64 { manifest.bytes }
    }

    /// The finished backups in `folder` (those with a manifest), newest first.
    static func list(_ folder: String) -> [Listed] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { name -> Listed? in
            guard let date = date(ofName: name),
                  let data = FileManager.default.contents(atPath: folder + "/" + name + "/" + manifestName),
                  let manifest = try? JSONDecoder.manifest.decode(Manifest.self, from: data) else { return nil }
            return Listed(name: name, madeAt: date, manifest: manifest)
        }.sorted { $0.madeAt > $1.madeAt }
    }

    /// Removes the finished backups the rotation does not keep; answers how many.
    static func prune(_ folder: String, rotation: BackupRotation, zone: TimeZone) -> Int {
        let backups = list(folder)
        let keep = Set(rotation.keep(backups.map(\.madeAt), in: zone))
        var removed = 0
        for backup in backups where !keep.contains(backup.madeAt) {
            if (try? FileManager.default.removeItem(atPath: folder + "/" + backup.name)) != nil { removed += 1 }
        }
        return removed
    }

    private static func size(of directory: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total: Int64 = 0
        while let item = walker.nextObject() as? String {
            if let size = (try? FileManager.default.attributesOfItem(atPath: directory + "/" + item))?[.size] as? Int64 { total += size }
        }
        return total
    }

    /// Writes `data` (the owner's only) and flushes it to the disk before answering.
    private static func writeSynced(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
              let handle = FileHandle(forWritingAtPath: path) else { throw NightlyBackupError.folderNotWritable }
        defer { try? handle.close() }
        try handle.write(contentsOf: data)
        try handle.synchronize()
    }

    private static func syncFile(_ path: String) throws {
        guard let handle = FileHandle(forUpdatingAtPath: path) else { throw NightlyBackupError.folderNotWritable }
        defer { try? handle.close() }
        try handle.synchronize()
    }

    /// Flushes a folder's entries (a rename is durable once its folder is).
    private static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}

extension Date {
    /// The moment in UTC as a file name takes it: `2026-11-28T020000Z`.
    var fileStamp: String { formatted(.iso8601).replacingOccurrences(of: ":", with: "") }
}

/// The room on the disk that holds a folder.
struct DiskSpace: Sendable {
    var free: Int64
    var total: Int64

    init?(_ path: String) {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        free = Int64(stats.f_bavail) * Int64(stats.f_frsize)
        total = Int64(stats.f_blocks) * Int64(stats.f_frsize)
    }
}

/// An exclusive lock on `<folder>/.lock` (`flock`), held by one run at a time; the kernel releases it
/// when the process ends, however it ends.
final class FolderLock: Sendable {
    private let fd: Int32

    init(_ folder: String) throws {
        fd = open(folder + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw NightlyBackupError.folderNotWritable }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw NightlyBackupError.alreadyRunning
        }
    }

    func release() {
        flock(fd, LOCK_UN)
        close(fd)
    }
}

extension JSONEncoder {
    static var manifest: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var manifest: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
