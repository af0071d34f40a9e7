import Foundation
import NIOConcurrencyHelpers
import PostgresNIO
import SQLiteNIO
import Vapor

/// Whether writes currently fail for want of disk space. Set when a write fails that way, cleared by
/// the next write that succeeds (a request, or `/health`'s probe), so the server recovers as soon as
/// space is freed, and `/health` says writes fail meanwhile.
final class StorageHealth: Sendable {
    private let failingSince = NIOLockedValueBox<Date?>(nil)

    private let openedReadOnly = NIOLockedValueBox(false)

    var writesFailing: Bool { readOnly || failingSince.withLockedValue { $0 != nil } }
    func markFailing(at now: Date) { failingSince.withLockedValue { if $0 == nil { $0 = now } } }
    func markWorking() { failingSince.withLockedValue { $0 = nil } }

    /// The database is open for reading only: the disk was full when the server started (`FullDiskStart`).
    var readOnly: Bool { openedReadOnly.withLockedValue { $0 } }
    func markReadOnly() { openedReadOnly.withLockedValue { $0 = true } }
    func markWritable() {
        openedReadOnly.withLockedValue { $0 = false }
        markWorking()
    }

    /// Whether the disk holding `path` (an SQLite database's file) has less room than a write may
    /// need: then `/health` tries a write before saying writes work (a server started on a
    /// full disk said it was healthy while every sign-in got 507).
    static func nearlyFull(_ path: String, below bytes: UInt64 = 8 << 20) -> Bool {
        guard let space = DiskSpace(StorageConfig.folder(ofFile: path)) else { return false }
        return UInt64(max(0, space.free)) < bytes
    }

    /// SQLite's "database or disk is full", its failed writes, PostgreSQL's 53100, or the system's ENOSPC.
    /// SQLite's "read-only database" too: Shelfmark opens its database read only when the disk is full
    /// (`FullDiskStart`), and the data directory is otherwise its own.
    static func isDiskFull(_ error: any Error) -> Bool {
        if let sqlite = error as? SQLiteError {
            switch sqlite.reason {
            case .full, .ioErrorFailedWrite, .ioErrorFailedSync, .ioErrorFailedSharedMemSize, .readOnly: return true
            default: break
            }
        }
        if let psql = error as? PSQLError, let state = psql.serverInfo?[.sqlState] {
            return state == "53100" || state == "53000"
        }
        let text = String(describing: error)
        return text.contains("database or disk is full") || text.contains("No space left on device")
    }
}

extension Application {
    private struct StorageHealthKey: StorageKey { typealias Value = StorageHealth }

    var storageHealth: StorageHealth {
        if let existing = storage[StorageHealthKey.self] { return existing }
        let health = StorageHealth()
        storage[StorageHealthKey.self] = health
        return health
    }
}
