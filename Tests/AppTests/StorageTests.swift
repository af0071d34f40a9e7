@testable import App
import Fluent
import FluentSQL
import Foundation
import NIOConcurrencyHelpers
import SQLKit
import Testing
import Vapor

/// A full disk freed: a server starting on a database whose previous process could not fold
/// its write-ahead log in (it stopped on a full disk) folds it in and truncates it before anything
/// writes, so the space freed goes to the writes people make, and nothing the log held is lost.
@Suite struct StorageTests {
    @Test func aStartFoldsInTheLogALastProcessLeftAndGivesItsSpaceBack() async throws {
        guard (ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"] ?? "").isEmpty else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("first.sqlite").path, crashed = dir.appendingPathComponent("crashed.sqlite").path

        // The process before: writes a megabyte into the log and stops before folding it in (the copy
        // taken while its connection is open is what a killed process leaves on disk).
        let before = try await Application.make(.testing)
        try configure(before, storage: .sqlite(path: first))
        try await before.db.sql.raw("PRAGMA journal_mode = WAL").run()
        try await before.db.withConnection { db in
            try await db.sql.raw("PRAGMA wal_autocheckpoint = 0").run()
            try await db.sql.raw("CREATE TABLE kept (n INTEGER, text TEXT)").run()
            for n in 0..<200 {
                try await db.sql.raw("INSERT INTO kept VALUES (\(bind: n), \(bind: String(repeating: "x", count: 4_000)))").run()
            }
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: first + suffix, toPath: crashed + suffix) }
        }
        try await before.asyncShutdown()
        let left = try #require(try FileManager.default.attributesOfItem(atPath: crashed + "-wal")[.size] as? Int)
        #expect(left > 800_000, "the log left behind: \(left) bytes")

        // The next start: the log is folded in and cut to nothing; every row it held is there.
        let after = try await Application.make(.testing)
        try configure(after, storage: .sqlite(path: crashed))
        try await SQLiteJournal().willBootAsync(after)
        let size = try FileManager.default.attributesOfItem(atPath: crashed + "-wal")[.size] as? Int ?? 0
        #expect(size == 0, "the log after the start: \(size) bytes")
        let rows = try await after.db.sql.raw("SELECT COUNT(*) AS n FROM kept").first()?.decode(column: "n", as: Int.self)
        #expect(rows == 200)
        try await after.asyncShutdown()
    }

    /// A long job's batch (a restore's, an import's) runs on connections of its own: while one holds
    /// the writer, a request reads on every event loop's connection at once, and a request's write
    /// queues behind the batch and lands after it, not beside it.
    @Test func aLongJobsBatchKeepsNoRequestWaitingToRead() async throws {
        try await withTestApp { app in
            guard Dialect(app.db) == .sqlite else { return }  // PostgreSQL: many connections per loop, no one writer
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", isbn: "9783522202602")
            let library = try #require(UUID(uuidString: f.libraryID))
            let (jobDB, gate) = app.jobStorage
            let (held, holding) = AsyncStream.makeStream(of: Void.self)
            let (release, releasing) = AsyncStream.makeStream(of: Void.self)
            let order = NIOLockedValueBox<[String]>([])
            let job = Task {
                try await gate.transaction(on: jobDB) { db in
                    try await db.sql.raw("UPDATE libraries SET name = 'Batch' WHERE id = \(bind: library)").run()
                    holding.yield()
                    for await _ in release { break }
                    order.withLockedValue { $0.append("batch") }
                }
            }
            for await _ in held { break }
            // Every loop's request connection reads while the batch is open (before the change, the
            // loop whose connection the batch held waited for it to end).
            let reads = try await withThrowingTaskGroup(of: Int?.self) { group in
                for loop in app.eventLoopGroup.makeIterator() {
                    group.addTask {
                        struct N: Decodable { var n: Int }
                        let db = try #require(app.databases.database(.sqlite, logger: app.logger, on: loop))
                        return try await db.sql.raw("SELECT COUNT(*) AS n FROM titles").first(decoding: N.self)?.n
                    }
                }
                group.addTask { try await Task.sleep(for: .seconds(10)); return nil }
                var answered: [Int] = []
                for try await n in group {
                    guard let n else { break }
                    answered.append(n)
                    if answered.count == Array(app.eventLoopGroup.makeIterator()).count { break }
                }
                group.cancelAll()
                return answered
            }
            #expect(reads == Array(repeating: 1, count: Array(app.eventLoopGroup.makeIterator()).count), "reads answered while the batch held the writer: \(reads)")
            // A request's write waits for the batch, then lands.
            let write = Task {
                try await app.writeGate.transaction(on: app.db) { db in
                    try await db.sql.raw("UPDATE libraries SET name = 'Request' WHERE id = \(bind: library)").run()
                    order.withLockedValue { $0.append("request") }
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            #expect(order.withLockedValue { $0 }.isEmpty)
            releasing.yield()
            try await job.value
            try await write.value
            #expect(order.withLockedValue { $0 } == ["batch", "request"])
            struct Name: Decodable { var name: String }
            let name = try await app.db.sql.raw("SELECT name FROM libraries WHERE id = \(bind: library)").first(decoding: Name.self)?.name
            #expect(name == "Request")
        }
    }

    /// A long job's write is folded from the write-ahead log into the database after its commit, out
    /// of the queue of writers, not by the commit itself (SQLite's automatic checkpoint, while every
    /// other write waits): its connection has the automatic checkpoint off, and the pages it wrote are
    /// in the database file when the write returns, though they were far fewer than the 1,000 pages
    /// that set the automatic one off.
    @Test func aLongJobsWriteIsFoldedInAfterItsCommitNotInIt() async throws {
        try await withTestApp { app in
            guard case .sqlite(let path) = app.storageConfig else { return }  // PostgreSQL has no such log
            try await app.db.sql.raw("PRAGMA journal_mode = WAL").run()
            try await app.writeGate.transaction(on: app.db) { db in try await db.sql.raw("CREATE TABLE job_rows (n INTEGER, text TEXT)").run() }
            func size(_ suffix: String) throws -> Int { try FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int ?? 0 }
            let before = try size("")
            let (jobDB, gate) = app.jobStorage
            try await gate.transaction(on: jobDB) { db in
                for n in 0..<200 {
                    try await db.sql.raw("INSERT INTO job_rows VALUES (\(bind: n), \(bind: String(repeating: "x", count: 4_000)))").run()
                }
            }
            let grown = try size("") - before, log = try size("-wal")
            #expect(grown >= 800_000, "the database file grew by \(grown) bytes after the job's write (its log \(log) bytes)")
            struct Pages: Decodable { var wal_autocheckpoint: Int }
            let automatic = try await jobDB.withConnection { db in
                try await db.sql.raw("PRAGMA wal_autocheckpoint").first(decoding: Pages.self)?.wal_autocheckpoint
            }
            #expect(automatic == 0)
            let rows = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM job_rows").first()?.decode(column: "n", as: Int.self)
            #expect(rows == 200)
        }
    }

    /// A long job's batches are as many rows as take about 10 ms, learnt as it goes.
    @Test func aBatchIsAsManyRowsAsFitTheTarget() {
        var pacer = BatchPacer()
        #expect(pacer.rows == 100)
        pacer.wrote(100, in: .milliseconds(100))  // 1 ms a row: 10 fit
        #expect(pacer.rows == 10)
        pacer.wrote(10, in: .milliseconds(1))  // fast: at most twice as many
        #expect(pacer.rows == 20)
        pacer.wrote(20, in: .seconds(5))  // very slow: never under the floor
        #expect(pacer.rows == 10)
        pacer.wrote(0, in: .seconds(5))  // nothing written says nothing
        #expect(pacer.rows == 10)
        for _ in 0..<20 { pacer.wrote(pacer.rows, in: .zero) }
        #expect(pacer.rows == 500)  // nor over the ceiling
    }
}
