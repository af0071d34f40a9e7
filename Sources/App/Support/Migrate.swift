import Fluent
import FluentPostgresDriver
import Foundation
import PostgresNIO
import SQLKit
import Vapor

extension Application {
    /// Runs pending migrations. On PostgreSQL the whole run holds a session advisory lock, so any number
    /// of instances may start together on one empty database: the first migrates, the others wait
    /// and then find nothing left to do.
    public func migrateHoldingLock() async throws {
        guard let sql = db as? any SQLDatabase, Dialect(db) == .postgresql else {
            try await migrateQuietly()
            return
        }
        // Held on one connection for the whole run; migrations use others from the pool.
        try await db.withConnection { conn in
            let locked = conn as! any SQLDatabase
            try await locked.raw("SELECT pg_advisory_lock(\(literal: Self.migrationLockKey))").run()
            do {
                try await self.migrateQuietly()
            } catch {
                _ = try? await locked.raw("SELECT pg_advisory_unlock(\(literal: Self.migrationLockKey))").run()
                throw error
            }
            try await locked.raw("SELECT pg_advisory_unlock(\(literal: Self.migrationLockKey))").run()
        }
    }

    /// Migrations say nothing when there is nothing to do (a command prints what was asked for), one
    /// line naming what they apply when there is, and fail loudly.
    private func migrateQuietly() async throws {
        fluent.migrationLogLevel = .debug
        try await migrator.setupIfNeeded().get()
        let applied = try await DatabaseVersion.applied(on: db)
        try DatabaseVersion.refuseNewer(applied: applied)
        let pending = try await migrator.previewPrepareBatch().get()
        if !pending.isEmpty && storageHealth.readOnly {
            throw AppError(status: .insufficientStorage, code: "disk_full", message: """
                The disk is full, and this version of Shelfmark has to update the database before it starts, which needs room. \
                Free some space on the disk that holds Shelfmark's data and start it again.
                """)
        }
        if !pending.isEmpty && !applied.isEmpty {
            if let copy = try await DatabaseVersion.copyBeforeUpdate(self, now: Date()) {
                logger.notice("Before updating the database, a copy of it was saved at \(copy)")
            } else {
                logger.notice("Updating a PostgreSQL database made by an earlier version: keep a pg_dump backup from before this start")
            }
        }
        if !pending.isEmpty {
            logger.notice("Updating the database: \(pending.map { $0.0.name.split(separator: ".").last.map(String.init) ?? $0.0.name }.joined(separator: ", "))")
        }
        // The migrations before `IdsAsBytes` run with today's code, which writes ids as bytes: an
        // older SQLite database's ids become bytes first, so what they add matches what is there.
        // `IdsAsBytes` runs again in its place, for the triggers those migrations make.
        if !applied.isEmpty, Dialect(db) == .sqlite, !applied.contains(IdsAsBytes().name) {
            try await IdsAsBytes().prepare(on: db)
        }
        try await migrator.prepareBatch().get()
        if !pending.isEmpty && !applied.isEmpty { await giveBackFreedPages() }
    }

    /// An update that made tables smaller (a compacted log, leaner indexes) leaves their old pages free
    /// inside SQLite's file; when they are a tenth of it or more, the file is written again without them
    /// (`VACUUM`), once, at the update. Nothing is lost if it cannot be (a disk too full for the copy
    /// `VACUUM` makes): the pages are reused by later writes.
    func giveBackFreedPages() async {
        guard Dialect(db) == .sqlite else { return }
        let sql = db.sql
        struct Pages: Decodable { var free: Int; var total: Int; var size: Int }
        do {
            guard let pages = try await sql.raw("""
                SELECT (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_count FROM pragma_page_count) AS total,
                       (SELECT page_size FROM pragma_page_size) AS size
                """).first(decoding: Pages.self), pages.free * 10 >= pages.total, pages.free > 0 else { return }
            let megabytes = Double(pages.free * pages.size) / 1_000_000
            try await sql.raw("VACUUM").run()
            logger.notice("The update freed \(String(format: "%.1f", megabytes)) MB of the database file; the file was written again without them")
        } catch {
            logger.warning("The database file keeps the room the update freed (it is reused by later writes): \(String(describing: error))")
        }
    }

    /// "shelfmrk" as a number: the lock key of Shelfmark's migrations.
    static let migrationLockKey = 0x7368_656C_666D_726B
}

/// The real cause of a database error, for the one line a failed start prints: PostgresNIO's errors
/// describe themselves generically unless asked for their details.
func databaseErrorDescription(_ error: any Error) -> String? {
    if let psql = error as? PSQLError {
        var parts: [String] = []
        if let message = psql.serverInfo?[.message] { parts.append(message) }
        if let detail = psql.serverInfo?[.detail] { parts.append(detail) }
        if let code = psql.serverInfo?[.sqlState] { parts.append("SQLSTATE \(code)") }
        if parts.isEmpty, let underlying = psql.underlying { parts.append(String(describing: underlying)) }
        if parts.isEmpty { parts.append(String(reflecting: psql)) }
        return "PostgreSQL: " + parts.joined(separator: "; ")
    }
    return nil
}
