@testable import App
import Fluent
import FluentSQL
import Foundation
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
}
