import Fluent
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import SQLKit
import Vapor

/// Where the data lives: an SQLite file under the data directory unless `DATABASE_URL` names
/// a PostgreSQL server.
enum StorageConfig: Sendable, Equatable {
    case sqlite(path: String)
    case postgres(url: String, schema: String?)
    /// A database that lives and dies with the process: for commands that read no data.
    case memory

    static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> StorageConfig {
        if let url = env["DATABASE_URL"], !url.isEmpty {
            guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw AppError.invalid("DATABASE_URL", "DATABASE_URL must start with postgres:// (got “\(url.prefix(20))…”). Leave it unset to use SQLite.")
            }
            return .postgres(url: url, schema: nil)
        }
        let dir = env["SHELFMARK_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data"
        return .sqlite(path: dir + "/shelfmark.sqlite")
    }

    /// The folder that holds the file at `path` ("." for a bare file name).
    static func folder(ofFile path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    var description: String {
        switch self {
        case .sqlite(let path): "SQLite at \(path)"
        case .memory: "SQLite in memory"
        case .postgres(let url, _):
            "PostgreSQL at \(URL(string: url)?.host ?? "?")"
        }
    }
}

extension Application {
    /// Registers the database and the serialisation of writes that SQLite needs.
    func useStorage(_ config: StorageConfig) throws {
        switch config {
        case .sqlite(let path):
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            // Data files of earlier versions were created readable by all: the owner's only from now on.
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + suffix)
            }
            writeGate = WriteGate(serialised: true)
            if FullDiskStart.mustOpenReadOnly(path) {
                openSQLite(FullDiskStart.immutableURI(path))
                storageHealth.markReadOnly()
                lifecycle.use(ReopenWhenThereIsRoom(path: path))
            } else {
                openSQLite(path)
                lifecycle.use(SQLiteJournal())
            }
            jobGate = writeGate.forOtherPool(cacheKiB: WriteGate.jobCacheKiB, checkpointsOutsideTheQueue: true)
            storage[JobLoopKey.self] = eventLoopGroup.next()
        case .memory:
            databases.use(.sqlite(.memory), as: .sqlite)
            writeGate = WriteGate(serialised: true)
        case .postgres(let url, let schema):
            var pg = try SQLPostgresConfiguration(url: url)
            if let schema { pg.searchPath = [schema] }
            // The test suite runs many apps at once against one server: fewer connections each, and
            // longer to wait for one (a test of a dozen requests at once queues behind the others').
            let perLoop = environment == .testing ? 3 : 8
            let wait: TimeAmount = environment == .testing ? .seconds(60) : .seconds(10)
            databases.use(.postgres(configuration: pg, maxConnectionsPerEventLoop: perLoop, connectionPoolTimeout: wait, sqlLogLevel: .trace),
                          as: .psql)
            writeGate = WriteGate(serialised: false)
        }
        storageConfig = config
    }

    private struct WriteGateKey: StorageKey { typealias Value = WriteGate }
    private struct JobGateKey: StorageKey { typealias Value = WriteGate }
    private struct JobLoopKey: StorageKey { typealias Value = any EventLoop }
    private struct StorageConfigKey: StorageKey { typealias Value = StorageConfig }

    var writeGate: WriteGate {
        get { storage[WriteGateKey.self] ?? WriteGate(serialised: false) }
        set { storage[WriteGateKey.self] = newValue }
    }

    /// Where a long job (a restore, an import) reads and writes, with the gate its writes queue in.
    /// On an SQLite file: connections of its own. Fluent's pool keeps one connection per event loop, so
    /// a job's batch on a request's connection made every request of that loop wait for the batch, reads
    /// too; on its own connections reads never wait (WAL), and writes wait only in the one queue of
    /// writers, behind at most one batch. Elsewhere (PostgreSQL, memory) the app's database and gate.
    /// The jobs' pool is asked on one event loop, so it keeps one connection: one page cache
    /// (`WriteGate.jobCacheKiB`), whose pages stay valid from one batch to the next (SQLite empties a
    /// connection's cache when another connection has written), and the jobs run one statement at a
    /// time on their one thread anyway.
    var jobStorage: (db: any Database, gate: WriteGate) {
        guard let gate = storage[JobGateKey.self], let loop = storage[JobLoopKey.self] else { return (db, writeGate) }
        return (databases.database(.sqliteJobs, logger: logger, on: loop)!, gate)
    }

    /// The SQLite file (or its read-only URI) as the app's database and as the long jobs' connections,
    /// which run their statements on a thread of their own: on the shared blocking pool (one thread per
    /// core) a job's statements queued behind requests' reads while it held the writer, and reads behind
    /// its batch's statements.
    func openSQLite(_ file: String) {
        databases.use(.sqlite(.file(file), sqlLogLevel: .trace), as: .sqlite)
        databases.use(OnOwnThreads(DatabaseConfigurationFactory.sqlite(.file(file), sqlLogLevel: .trace).make(), threads: OnOwnThreads.jobThreads),
                      as: .sqliteJobs, isDefault: false)
    }

    /// `openSQLite` on a running app: both pools' connections are closed and opened again on `file`.
    func reopenSQLite(_ file: String) {
        openSQLite(file)
        databases.reinitialize(.sqlite)
        databases.reinitialize(.sqliteJobs)
    }

    private var jobGate: WriteGate? {
        get { storage[JobGateKey.self] }
        set { storage[JobGateKey.self] = newValue }
    }

    var storageConfig: StorageConfig? {
        get { storage[StorageConfigKey.self] }
        set { storage[StorageConfigKey.self] = newValue }
    }
}

/// Runs a write as one transaction. SQLite allows one writer at a time and its connections would
/// otherwise meet as SQLITE_BUSY; one in-process queue of writers avoids that (an SQLite database
/// belongs to one app instance). PostgreSQL transactions run concurrently and rely on row locks.
struct WriteGate: Sendable {
    let serialised: Bool
    private let mutex: AsyncMutex
    private let batcher: WriteBatcher
    /// Event loops whose SQLite connection has `synchronous = NORMAL`. Fluent's SQLite pool keeps
    /// exactly one connection per event loop, so the loop names the connection of the gate's pool.
    /// Should a connection be replaced after an error, the new one runs with SQLite's default FULL:
    /// safe, only slower.
    private let tunedLoops = NIOLockedValueBox<Set<ObjectIdentifier>>([])

    /// Already inside a transaction (`Scope.inside`): a write joins it and runs on the caller's task.
    private let joined: Bool
    /// The page cache of this pool's connections in KiB; nil keeps SQLite's 2 MB.
    private let cacheKiB: Int?
    /// This pool's commits never fold the write-ahead log into the database (SQLite's automatic
    /// checkpoint, run by the commit that takes the log past 1,000 pages); each of its writes does it
    /// after its commit, once out of the queue of writers (`checkpoint`). A long job's batch puts some
    /// 1,000 pages into the log (its rows land all over the list and search indexes), so nearly every
    /// one of its commits folded them in, two `fsync`s included, while every other write waited.
    let checkpointsOutsideTheQueue: Bool

    /// The page cache of the long jobs' connection. An import's or a restore's batch puts rows all over
    /// the list and search indexes (some 100 MB of pages at 100,000 titles); with SQLite's 2 MB each
    /// batch read most of the pages it touched back from the file before writing them out again.
    /// Measured on a 100,000-row import: 2 MB 6,600 rows/s, 16 MB 6,700, 32 MB 7,200–8,800 (medians of
    /// interleaved runs on a noisy machine), for 30 MB more at the peak. The cache fills only as a job
    /// reads pages, and the one connection keeps them while the process runs.
    static let jobCacheKiB = 32_768

    init(serialised: Bool) {
        (self.serialised, joined, mutex, batcher, cacheKiB, checkpointsOutsideTheQueue) = (serialised, false, AsyncMutex(), WriteBatcher(), nil, false)
    }

    private init(joined: Bool) {
        (serialised, self.joined, mutex, batcher, cacheKiB, checkpointsOutsideTheQueue) = (false, joined, AsyncMutex(), WriteBatcher(), nil, false)
    }

    private init(sharing other: WriteGate, cacheKiB: Int?, checkpointsOutsideTheQueue: Bool) {
        (serialised, joined, mutex, batcher) = (other.serialised, other.joined, other.mutex, other.batcher)
        (self.cacheKiB, self.checkpointsOutsideTheQueue) = (cacheKiB, checkpointsOutsideTheQueue)
    }

    /// The same queue of writers for another pool of connections to the same file (long jobs'): one
    /// writer at a time across both, each pool's connections tuned as they are first used, with a page
    /// cache of `cacheKiB`, checkpointing after their writes instead of in their commits when asked.
    func forOtherPool(cacheKiB: Int?, checkpointsOutsideTheQueue: Bool = false) -> WriteGate {
        WriteGate(sharing: self, cacheKiB: cacheKiB, checkpointsOutsideTheQueue: checkpointsOutsideTheQueue)
    }

    /// The gate of a transaction already open: its writes are part of it. (Fluent's own nested
    /// `transaction` would do the same, but on a task of its own: one more hop between threads per write.)
    static let joined = WriteGate(joined: true)

    func transaction<T: Sendable>(on db: any Database, _ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        if joined { return try await body(db) }
        guard serialised else { return try await db.transaction(body) }
        return try await exclusiveConnection(on: db) { try await $0.transaction(body) }
    }

    /// Like `transaction`, but on SQLite the write may share one transaction with others queued at
    /// the same moment (group commit: one BEGIN/COMMIT for the batch instead of one each).
    /// Contract: `body` throws an `AppError` or `CirculationError` only *before* it writes; such a
    /// refusal leaves the batch untouched. Any other error rolls the batch back, and each write is
    /// then retried alone, so one failure never sinks another.
    func batchedTransaction<T: Sendable>(on db: any Database, _ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        if joined { return try await body(db) }
        guard serialised else { return try await db.transaction(body) }
        return try await batcher.run(on: db, gate: self) { try await body($0) } as! T
    }

    /// Holds the SQLite write queue and a tuned connection while `body` runs.
    func exclusiveConnection<T: Sendable>(on db: any Database, _ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        await mutex.lock()
        do {
            let result = try await db.withConnection { [tunedLoops, cacheKiB, checkpointsOutsideTheQueue] connection in
                // WAL with synchronous=NORMAL: a commit is one write to the log, durable across app
                // crashes; FULL would fsync on every commit and cap check-outs at a few hundred a second.
                // Set here because the pool's connections cannot be configured as they open.
                let loop = ObjectIdentifier(connection.eventLoop)
                if !tunedLoops.withLockedValue({ $0.contains(loop) }) {
                    try await connection.sql.raw("PRAGMA synchronous = NORMAL").run()
                    // Statement journals (multi-row writes with triggers) in memory, not in /var/tmp files.
                    try await connection.sql.raw("PRAGMA temp_store = MEMORY").run()
                    // After each checkpoint the log is cut back to 16 MB, not left at its largest (a
                    // bulk import's size): space on a small disk stays with the database.
                    try await connection.sql.raw("PRAGMA journal_size_limit = 16777216").run()
                    if let cacheKiB { try await connection.sql.raw("PRAGMA cache_size = \(unsafeRaw: String(-cacheKiB))").run() }
                    if checkpointsOutsideTheQueue { try await connection.sql.raw("PRAGMA wal_autocheckpoint = 0").run() }
                    tunedLoops.withLockedValue { _ = $0.insert(loop) }
                }
                let began = ContinuousClock.now
                let result = try await body(connection)
                // Every other write waited this long: a long hold names where batches should be smaller.
                let held = ContinuousClock.now - began
                if held > .milliseconds(100) { connection.logger.debug("a write held the one writer for \(Int(held / .milliseconds(1))) ms") }
                return result
            }
            await mutex.unlock()
            if checkpointsOutsideTheQueue { await checkpoint(on: db) }
            return result
        } catch {
            await mutex.unlock()
            throw error
        }
    }

    /// Folds the write-ahead log into the database while the others write: a PASSIVE checkpoint waits
    /// for nobody and copies what it can (the next writer starts the log again from its beginning once
    /// all of it is in). After every write of this pool's, so the log grows by at most one write's pages
    /// between two; a checkpoint that fails (a full disk) leaves the log as it was, for the next.
    private func checkpoint(on db: any Database) async {
        do {
            try await db.withConnection { try await $0.sql.raw("PRAGMA wal_checkpoint(PASSIVE)").run() }
        } catch {
            db.logger.warning("the write-ahead log could not be folded in after a long job's write: \(String(reflecting: error))")
        }
    }
}

/// Group commit for SQLite: writes that arrive while a batch runs form the next batch.
actor WriteBatcher {
    typealias Body = @Sendable (any Database) async throws -> any Sendable
    private struct Item {
        let body: Body
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    private var pending: [Item] = []
    private var draining = false

    func run(on db: any Database, gate: WriteGate, _ body: @escaping Body) async throws -> any Sendable {
        try await withCheckedThrowingContinuation { continuation in
            pending.append(Item(body: body, continuation: continuation))
            if !draining {
                draining = true
                Task { await self.drain(on: db, gate: gate) }
            }
        }
    }

    private func drain(on db: any Database, gate: WriteGate) async {
        while !pending.isEmpty {
            let batch = pending
            pending = []
            await Self.commit(batch, on: db, gate: gate)
        }
        draining = false
    }

    private static func commit(_ batch: [Item], on db: any Database, gate: WriteGate) async {
        let bodies = batch.map(\.body)
        do {
            let outcomes = try await gate.exclusiveConnection(on: db) { connection in
                try await connection.transaction { tx in
                    var outcomes: [Result<any Sendable, any Error>] = []
                    for body in bodies {
                        do {
                            outcomes.append(.success(try await body(tx)))
                        } catch let refusal where refusal is AppError || refusal is any DomainError {
                            outcomes.append(.failure(refusal))
                        }
                    }
                    return outcomes
                }
            }
            for (item, outcome) in zip(batch, outcomes) { item.continuation.resume(with: outcome) }
        } catch {
            for item in batch {
                do {
                    item.continuation.resume(returning: try await gate.transaction(on: db, item.body))
                } catch {
                    item.continuation.resume(throwing: error)
                }
            }
        }
    }
}

extension DatabaseID {
    /// The long jobs' connections to the SQLite file (`Application.jobStorage`).
    static let sqliteJobs = DatabaseID(string: "sqlite-jobs")
}

/// A database whose connections run their blocking work on `threads` instead of the app's pool.
struct OnOwnThreads: DatabaseConfiguration {
    /// The long jobs' thread, for the life of the process (like the shared blocking pool): jobs run one
    /// statement at a time, and a pool never shut down cannot be shut down under a closing connection.
    static let jobThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    private var inner: any DatabaseConfiguration
    private let threads: NIOThreadPool

    init(_ inner: any DatabaseConfiguration, threads: NIOThreadPool) { (self.inner, self.threads) = (inner, threads) }

    var middleware: [any AnyModelMiddleware] {
        get { inner.middleware }
        set { inner.middleware = newValue }
    }

    func makeDriver(for databases: Databases) -> any DatabaseDriver {
        inner.makeDriver(for: Databases(threadPool: threads, on: databases.eventLoopGroup))
    }
}

extension Request {
    /// The one way a handler changes data: a transaction through the app's write gate.
    func write<T: Sendable>(_ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
        try await application.writeGate.transaction(on: db, body)
    }

    var sql: any SQLDatabase { db as! any SQLDatabase }
}

extension Database {
    var sql: any SQLDatabase { self as! any SQLDatabase }

    /// After a bulk load of 1,000 titles or more (an import, a restore, a seed): on PostgreSQL, the
    /// loaded tables are vacuumed and analysed at once, as autovacuum would within a minute or so:
    /// until then the planner knows nothing of the new rows and counting titles reads every row
    /// instead of the index alone (measured: a 20,000-title catalog page p50 50 ms before, 13 ms
    /// after). Smaller loads are left to autovacuum; SQLite needs nothing. Runs outside a
    /// transaction; a failure only leaves the work to autovacuum.
    func settleAfterBulkLoad(titles: Int, logger: Logger) async {
        guard titles >= 1_000, Dialect(self) == .postgresql else { return }
        do {
            try await sql.raw("VACUUM (ANALYZE) titles, copies, title_categories, members").run()
        } catch {
            logger.warning("VACUUM after a bulk load failed; autovacuum will do it: \(String(reflecting: error))")
        }
    }
}

/// Puts an SQLite database into write-ahead-log mode when the app boots: readers no longer wait for
/// the writer, and commits are cheap. The mode is stored in the file, so this is a no-op afterwards.
///
/// Then, before anything writes, the log a previous process left (one stopped on a full disk cannot
/// fold its log into the database) is folded in and truncated to nothing: the pages it
/// held move into the database, which needed them anyway, and the rest of its size is given back, so
/// a restart after space was freed leaves that space to the writes people make instead of spending
/// it on a log that keeps growing. On a disk still full this fails, is logged, and the server starts
/// anyway (reads work; `/health` says writes fail).
struct SQLiteJournal: LifecycleHandler {
    func willBootAsync(_ application: Application) async throws {
        try await application.db.sql.raw("PRAGMA journal_mode = WAL").run()
        do {
            try await application.db.sql.raw("PRAGMA wal_checkpoint(TRUNCATE)").run()
        } catch {
            application.logger.error("The database's write-ahead log could not be folded in at start (is the disk full?): \(String(reflecting: error))")
        }
    }
}
