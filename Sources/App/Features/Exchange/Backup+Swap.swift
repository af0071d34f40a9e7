import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A restore *over* a library, in bounded batches (one transaction of 100,000 titles held
/// SQLite's only writer for 20 s, so every other library's lending and sign-ins waited for it).
///
/// 1. The backup is written into a hidden library beside it (`pending_job_id`: nobody sees it), a
///    batch per transaction (`BatchPacer`: about 10 ms each), exactly as a restore into a new library. The library itself is
///    untouched and in use meanwhile; should the restore fail or its process die, the hidden library
///    is removed (`Jobs.removeUnfinishedLibraries`) and nothing else changed.
/// 2. In one short transaction the library takes the backup's settings (and mail templates, when the
///    backup has them), is hidden (its restore job's id) and names its source (`restore_source_id`).
/// 3. Its old data is erased and the new moved in (`library_id`, the copies' `library_no`, rewritten), a batch per transaction;
///    the tables' triggers keep the counts, the search index and the sync log. When every row has
///    moved, the hidden library is deleted and the library is shown again.
///
/// Step 3 can be resumed from any batch: the library says whether its old data is all gone
/// (`restore_erased`), so a resumed swap never erases what it already moved. A swap whose job died is
/// finished by a new job (`resumeSwaps`, run by whoever finds the old job dead: its owner's job page,
/// the scheduler, the next start); until then the library stays hidden, never half-made.
extension Backup {
    /// The tables whose rows a restore writes with a library's id, moved from the hidden library to the
    /// restored one (`Features.swapOrder`; `reading_days` is counted again instead, the counts tables
    /// follow by trigger).
    static var swappedTables: [String] { Features.swapOrder }

    /// Replaces everything `libraryID` holds with the backup (steps above), as job `job`.
    @discardableResult
    static func restore(_ backup: LibraryBackup, over libraryID: UUID, job: UUID, gate: WriteGate, on db: any Database,
                        logger: Logger? = nil) async throws -> LeftOut {
        let started = ContinuousClock.now
        let (source, leftOut) = try await beginSwap(backup, over: libraryID, job: job, gate: gate, on: db)
        logger?.notice("restore over library \(libraryID): written beside it in \(seconds(since: started)) s")
        try await finishSwap(libraryID, from: source, gate: gate, on: db, logger: logger)
        return leftOut
    }

    private static func seconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        return String(format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Steps 1 and 2: the backup written into a hidden library, then the library hidden and pointed at
    /// it. Returns the hidden library's id.
    static func beginSwap(_ backup: LibraryBackup, over libraryID: UUID, job: UUID, gate: WriteGate,
                          on db: any Database) async throws -> (source: UUID, leftOut: LeftOut) {
        let source = Library(name: "restore \(job.uuidString.lowercased())")
        source.pendingJobID = job
        try await gate.transaction(on: db) { db in try await source.create(on: db) }
        let sourceID = try source.requireID()
        let leftOut: LeftOut
        do {
            leftOut = try await restore(backup, into: sourceID, mailOf: libraryID, on: db, batches: gate)
            try await gate.transaction(on: db) { db in
                let settings = try await db.sql.raw("SELECT * FROM libraries WHERE id = \(bind: sourceID)").first(decoding: Settings.self)
                guard let settings else { throw AccountError.libraryNotFound }
                // Every setting, an empty one too (a backup without a fine cap leaves none).
                try await db.sql.update("libraries").set(model: settings, nilEncodingStrategy: .asNil).where("id", .equal, libraryID).run()
                // The backup's templates replace the library's (when it has any: an older backup has none).
                if backup.mailTemplates != nil {
                    try await db.sql.raw("DELETE FROM mail_templates WHERE library_id = \(bind: libraryID)").run()
                }
                try await db.sql.raw("""
                    UPDATE libraries SET pending_job_id = \(bind: job), restore_source_id = \(bind: sourceID), restore_erased = \(bind: false)
                    WHERE id = \(bind: libraryID)
                    """).run()
            }
        } catch {
            await Accounts.removeNewLibrary(sourceID, gate: gate, on: db)
            throw error
        }
        return (sourceID, leftOut)
    }

    /// Step 3, from wherever it stopped: the old data erased (unless it already is), every row of
    /// `source` moved into `libraryID`, the hidden library deleted and the library shown.
    static func finishSwap(_ libraryID: UUID, from source: UUID, gate: WriteGate, on db: any Database, logger: Logger? = nil) async throws {
        var started = ContinuousClock.now
        struct State: Decodable { var restore_erased: Bool }
        let erased = try await db.sql.raw("SELECT restore_erased FROM libraries WHERE id = \(bind: libraryID)").first(decoding: State.self)?.restore_erased
        if erased == false {
            try await eraseAll(libraryID: libraryID, gate: gate, on: db)
            try await gate.transaction(on: db) { db in
                try await db.sql.raw("UPDATE libraries SET restore_erased = \(bind: true) WHERE id = \(bind: libraryID)").run()
            }
            logger?.notice("restore over library \(libraryID): its old data erased in \(seconds(since: started)) s")
            started = ContinuousClock.now
        }
        for table in swappedTables {
            try await inBatches(gate: gate, on: db) { db, limit in
                let ids = try await ids(table, library: source, limit: limit, on: db)
                if !ids.isEmpty {
                    try await db.sql.update(table).set(SQLIdentifier(LibraryNumber.column(of: table)), to: LibraryNumber.value(for: table, libraryID))
                        .where("id", .in, ids).run()
                }
                return ids.count
            }
        }
        logger?.notice("restore over library \(libraryID): the backup's rows moved in in \(seconds(since: started)) s")
        try await gate.transaction(on: db) { db in
            try await ReadingDays.recount(library: libraryID, on: db.sql)
            try await LoanTallies.recount(library: libraryID, on: db.sql)
            try await db.sql.raw("DELETE FROM libraries WHERE id = \(bind: source)").run()
            try await Accounts.forgetLibrary(source, on: db)
            try await db.sql.raw("""
                UPDATE libraries SET pending_job_id = NULL, restore_source_id = NULL, restore_erased = \(bind: false)
                WHERE id = \(bind: libraryID)
                """).run()
        }
    }

    /// Swaps whose job is no longer running (its process died, or it failed on the way, say on a full
    /// disk): each is finished by a new restore job of this process, claimed as any job of its library
    /// is (`Jobs.begin`: another instance that finds it at the same moment is refused), under the old
    /// job's user. Called after dead jobs are ended; a failure is logged and tried again the next time.
    static func resumeSwaps(app: Application) async {
        struct Row: Decodable { var id: UUID; var restore_source_id: UUID; var user_id: UUID? }
        let rows: [Row]
        do {
            rows = try await app.db.sql.raw("""
                SELECT l.id, l.restore_source_id, j.user_id FROM libraries l LEFT JOIN jobs j ON j.id = l.pending_job_id
                WHERE l.restore_source_id IS NOT NULL AND (j.id IS NULL OR j.state <> 'running')
                """).all(decoding: Row.self)
        } catch {
            app.logger.error("restores left half-way: cannot read them: \(String(describing: error))")
            return
        }
        for row in rows {
            let job: UUID
            do {
                job = try await Jobs.begin(.restore, library: row.id, target: row.id, user: row.user_id, now: app.clock.now(), app: app,
                                           resumingSwap: true)
                try await app.writeGate.transaction(on: app.db) { db in
                    try await db.sql.raw("UPDATE libraries SET pending_job_id = \(bind: job) WHERE id = \(bind: row.id)").run()
                }
            } catch {
                continue  // another instance took it, or the database refuses writes now: the next look tries again
            }
            app.logger.notice("restore over library \(row.id): its job stopped half-way; finishing it as job \(job)")
            Jobs.run(job, app: app) {
                let (db, gate) = app.jobStorage
                try await finishSwap(row.id, from: row.restore_source_id, gate: gate, on: db, logger: app.logger)
                await db.settleAfterBulkLoad(titles: Limits.rowsPerRestore, logger: app.logger)
                guard let library = try await Library.find(row.id, on: app.db) else { throw AccountError.libraryNotFound }
                var role = Role.owner  // the command line's restores have no user
                if let user = row.user_id, let mine = try await Accounts.librariesWithRoles(of: user, on: app.db).first(where: { $0.library.id == row.id }) {
                    role = mine.role
                }
                return RestoreJob.Outcome(library: library.dto(role: role), leftOut: nil)
            }
        }
    }

    /// Deletes everything a library holds before a backup replaces it, a batch per transaction: what
    /// `eraseData(libraryID:on:)` deletes (the same tables, in the same order), and the reading life
    /// recorded in it, staff's included (reads with their progress, goals, quotes, page photos), which
    /// the backup brings back: kept, a reader's goal for the year would clash with the backup's, and
    /// their reads would be there twice.
    static func eraseAll(libraryID: UUID, gate: WriteGate, on db: any Database) async throws {
        for table in Features.eraseOrder(includingRestoreOnly: true) {
            switch table.rows {
            case .byLibrary(let only) where table.keyedByID:
                try await deleteInBatches(table.name, library: libraryID, also: only.map { " AND \(unsafeRaw: $0)" } ?? "", gate: gate, on: db)
            case .childOf(let parent, let key):
                try await deleteChildren(table.name, key: key, of: parent, library: libraryID, gate: gate, on: db)
            case .byLibrary, .library, .server:
                // Rows without an id (a table keyed by reader and day): one statement.
                let statement = deleteAll(table, library: libraryID)
                try await gate.transaction(on: db) { db in try await db.sql.raw(statement).run() }
            }
        }
    }

    /// Deletes the rows of `table` whose `key` names a row of `parent` in `library`, walking the
    /// parents in id order (they are all still there), a batch of parents per transaction.
    private static func deleteChildren(_ table: String, key: String, of parent: String, library: UUID, gate: WriteGate,
                                       on db: any Database) async throws {
        var after: UUID?
        var pacer = BatchPacer()
        while true {
            let from = after
            let last: UUID? = try await gate.batch(&pacer, on: db) { db, limit in
                struct Row: Decodable { var id: UUID }
                var query = db.sql.select().column("id").from(parent).where(LibraryNumber.rows(of: parent, library)).orderBy("id").limit(limit)
                if let from { query = query.where("id", .greaterThan, from) }
                let ids = try await query.all(decoding: Row.self).map(\.id)
                guard let last = ids.last else { return (nil, 0) }
                try await db.sql.delete(from: table).where(SQLIdentifier(key), .in, ids).run()
                return (last, ids.count)
            }
            guard let last else { break }
            after = last
        }
    }

    private static func deleteInBatches(_ table: String, library: UUID, also: SQLQueryString, gate: WriteGate, on db: any Database) async throws {
        try await inBatches(gate: gate, on: db) { db, limit in
            let ids = try await ids(table, library: library, also: also, limit: limit, on: db)
            if !ids.isEmpty { try await db.sql.delete(from: table).where("id", .in, ids).run() }
            return ids.count
        }
    }

    private static func ids(_ table: String, library: UUID, also: SQLQueryString = "", limit: Int, on db: any Database) async throws -> [UUID] {
        struct Row: Decodable { var id: UUID }
        var query: SQLQueryString = "SELECT id FROM \(unsafeRaw: table) WHERE \(LibraryNumber.rows(of: table, library))"
        query = query + also + " LIMIT \(unsafeRaw: String(limit))"
        return try await db.sql.raw(query).all(decoding: Row.self).map(\.id)
    }

    /// Runs `step` (given the batch size, `BatchPacer`'s; it returns how many rows it changed) in a
    /// transaction of its own until it changes none, so others write between two batches.
    private static func inBatches(gate: WriteGate, on db: any Database,
                                  _ step: @escaping @Sendable (any Database, Int) async throws -> Int) async throws {
        var pacer = BatchPacer()
        while try await gate.batch(&pacer, on: db, { db, limit in
            let changed = try await step(db, limit)
            return (changed, changed)
        }) > 0 {}
    }
}
