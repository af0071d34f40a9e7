import Fluent
import FluentSQLiteDriver
import Foundation
import Vapor

/// A server started on a full disk serves reading. Opening an SQLite database in WAL mode makes its
/// shared-memory index (`-shm`), which a full disk refuses, and the server used to stop there. So when
/// the disk has no room at start, the database is opened *immutable* (read only, no index, no locks):
/// pages, the catalog and the API read as usual, every write is refused as a full disk's (507), the
/// overview and `/health` say so, and as soon as there is room again the database is opened for
/// writing in place, without a restart.
///
/// Only a database whose log (`-wal`) is empty is opened so: a log with writes in it (a server stopped
/// by a power cut on a full disk) holds rows an immutable reader would not see, and that database is
/// opened as usual (its index exists already) or not at all.
enum FullDiskStart {
    /// Whether `directory` has room for what SQLite makes as it opens a database: 256 KB written,
    /// flushed and removed.
    static func hasRoom(_ directory: String) -> Bool {
        let probe = directory + "/.shelfmark-room-check"
        let fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return errno != ENOSPC && errno != EDQUOT }
        defer {
            close(fd)
            unlink(probe)
        }
        let chunk = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<4 where write(fd, chunk, chunk.count) != chunk.count { return false }
        return fsync(fd) == 0
    }

    /// Whether the database at `path` should be opened for reading only: it exists, its log holds
    /// nothing, and its disk has no room (the write is tried only when the disk says it is nearly full).
    static func mustOpenReadOnly(_ path: String) -> Bool {
        let files = FileManager.default
        guard files.fileExists(atPath: path), StorageHealth.nearlyFull(path) else { return false }
        let log = (try? files.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        return log == 0 && !hasRoom(StorageConfig.folder(ofFile: path))
    }

    /// SQLite's URI for the database opened immutable (read only; the file is not expected to change).
    static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// How often a server opened for reading looks for room to write again.
    static let recheck: Duration = .seconds(10)
}

/// While the database is open for reading only: looks for room every few seconds, then opens it for
/// writing in place (the pool's read-only connections are closed; the next request gets a writable one).
struct ReopenWhenThereIsRoom: LifecycleHandler {
    let path: String

    func didBootAsync(_ application: Application) async throws {
        application.logger.error("""
            The disk holding \(path) is full: Shelfmark started for reading only. Nothing can be saved until \
            some space is freed; it then opens the database for writing by itself.
            """)
        let path = path
        application.storage[RecheckKey.self] = Task {
            while !Task.isCancelled, application.storageHealth.readOnly {
                try? await Task.sleep(for: FullDiskStart.recheck)
                guard !Task.isCancelled, FullDiskStart.hasRoom(StorageConfig.folder(ofFile: path)) else { continue }
                application.reopenSQLite(path)
                do {
                    try await application.db.sql.raw("PRAGMA journal_mode = WAL").run()
                    application.storageHealth.markWritable()
                    application.logger.notice("There is room on the disk again: the database is open for writing.")
                } catch {
                    // Room went again before the database opened: back to reading, and look again.
                    application.reopenSQLite(FullDiskStart.immutableURI(path))
                    application.logger.warning("The database could not be opened for writing yet: \(String(reflecting: error))")
                }
            }
        }
    }

    func shutdown(_ application: Application) {
        application.storage[RecheckKey.self]?.cancel()
    }

    private struct RecheckKey: StorageKey { typealias Value = Task<Void, Never> }
}
