import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
@testable import App

@Suite struct BulkInsertTests {
    struct ShelfCount: Decodable, Hashable { var library_id: UUID; var location: String; var n: Int }

    /// The kept counts are what counting the titles and copies gives, the shelves' too.
    func expectCountsAsRecounted(_ app: Application, _ when: String) async throws {
        try await CatalogListTests.expectKeptCountsTrue(app)
        let shelves = try await app.db.sql.raw("SELECT library_id, location, n FROM shelf_counts WHERE n <> 0").all(decoding: ShelfCount.self)
        let onShelves = try await app.db.sql.raw("""
            SELECT l.id AS library_id, c.location, COUNT(*) AS n FROM copies c JOIN libraries l ON l.no = c.library_no
            WHERE c.location IS NOT NULL AND c.status <> 'withdrawn' GROUP BY 1, 2
            """).all(decoding: ShelfCount.self)
        #expect(Set(shelves) == Set(onShelves), "the shelves' counts \(when)")
    }

    /// Copies inserted many at once (`BulkInsert`: an import, a seed, an undone bulk delete) are counted and
    /// logged as a copy added alone is: the counts equal a recount, a device pulling in small pages gets
    /// each copy once, and a copy added afterwards comes after them in the feed. A batch that fails leaves
    /// nothing behind, and the copies added after it are counted and logged.
    @Test func copiesInsertedInBulkAreCountedAndLoggedAsOneAddedAlone() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            let momo = try #require(UUID(uuidString: try await f.addTitle("Momo", copies: 1)))
            let odd = try #require(UUID(uuidString: try await f.addTitle("Odd and the Frost Giants", copies: 1)))
            let no = try await LibraryNumber.read(library, on: app.db.sql)
            var early = SyncTests.Device(f.owner, lib: f.lib, id: "early")
            try await early.pull(limit: 3)

            var ids = UUIDSource()
            var rows = CopyRow.fresh([(momo, 3, "Fiction"), (odd, 2, nil), (odd, 2, "Poetry")], firstAccession: 900, now: Date(), ids: &ids)
            rows[1].status = CopyStatus.lost.rawValue
            rows[4].status = CopyStatus.onLoan.rawValue
            rows[6].status = CopyStatus.withdrawn.rawValue
            let batch = rows
            try await app.db.transaction { db in
                try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: batch, values: { $0.values(library: no) }, on: db)
            }
            try await expectCountsAsRecounted(app, "after the bulk insert")
            var between = SyncTests.Device(f.owner, lib: f.lib, id: "between")
            try await between.pull(limit: 3)
            if Dialect(app.db) == .sqlite {
                struct Log: Decodable { var n: Int; var versions: Int }
                let log = try #require(try await app.db.sql.raw("SELECT COUNT(*) AS n, COUNT(DISTINCT version) AS versions FROM sync_log WHERE kind = 2")
                    .first(decoding: Log.self))
                #expect(log.n == 9 && log.versions == 9, "each copy its own version: \(log)")
            }

            // A batch that fails (a barcode already taken) writes nothing, and leaves the triggers working.
            var clash = CopyRow.fresh([(momo, 2, "Fiction")], firstAccession: 950, now: Date(), ids: &ids)
            clash[1].barcode = rows[0].barcode
            let clashing = clash
            await #expect(throws: (any Error).self) {
                try await app.db.transaction { db in
                    try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: clashing, values: { $0.values(library: no) }, on: db)
                }
            }
            #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM copies").first()?.decode(column: "n", as: Int.self) == 9)
            let after = try await f.addTitle("After", copies: 1)
            #expect(try await f.owner.post("\(f.lib)/titles/\(after)/copies", ["count": 2, "location": "Fiction"]).status.code < 300)
            try await expectCountsAsRecounted(app, "after a failed batch and three copies added alone")

            // Every copy once, to a device that pulled before and in small pages; only the later copies to
            // one that pulled right after the bulk insert.
            let copies = Set(try await app.db.sql.raw("SELECT id FROM copies").all().map { try $0.decode(column: "id", as: UUID.self) })
            #expect(copies.count == 12)
            try await early.pull(limit: 3)
            #expect(Set(early.mirror.values.filter { $0.kind == .copy }.map(\.id)) == copies)
            let seen = Set(between.mirror.values.filter { $0.kind == .copy }.map(\.id))
            try await between.pull(limit: 3)
            let later = Set(between.mirror.values.filter { $0.kind == .copy }.map(\.id)).subtracting(seen)
            #expect(later.count == 3, "the copies added after the bulk insert reach a device that pulled right after it")
            #expect(seen.count == 9)
        }
    }

    /// Titles inserted many at once (an import, a seed, an undone bulk delete) are counted and logged as a
    /// title added alone: the kept counts equal a recount, each title has its own version in the order of
    /// the rows (SQLite), a device pulling in small pages gets every title on the shelves once and none of
    /// the wishlist, and a title added afterwards comes after them. A batch that fails leaves nothing
    /// behind, and the titles added after it are counted.
    @Test func titlesInsertedInBulkAreCountedAndLoggedAsOneAddedAlone() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            _ = try await f.addTitle("Momo", copies: 1)
            var early = SyncTests.Device(f.owner, lib: f.lib, id: "early")
            try await early.pull(limit: 2)

            var ids = UUIDSource()
            let now = Date()
            let rows = try (0..<40).map { i -> TitleRow in
                var r = ImportRecord(line: i + 1)
                r.title = ["Anne of Green Gables", "Zazie dans le métro", "1984", "Émile", "the Hobbit"][i % 5] + " \(i)"
                r.authors = ["Author \(i % 7)"]
                r.wishlist = i % 8 == 0
                var row = try TitleRow(importing: r, id: ids.next(), now: now)
                row.favorite = i % 3 == 0
                return row
            }
            try await app.db.transaction { db in
                let no = try await LibraryNumber.read(library, on: db.sql)
                try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: rows, values: { $0.values(library: no) }, on: db)
            }
            try await CatalogListTests.expectKeptCountsTrue(app)
            var between = SyncTests.Device(f.owner, lib: f.lib, id: "between")
            try await between.pull(limit: 2)
            if Dialect(app.db) == .sqlite {
                struct Log: Decodable { var n: Int; var versions: Int; var low: Int; var high: Int; var removed: Int; var clock: Int }
                let log = try #require(try await app.db.sql.raw("""
                    SELECT COUNT(*) AS n, COUNT(DISTINCT version) AS versions, MIN(version) AS low, MAX(version) AS high,
                        SUM(deleted) AS removed, (SELECT version FROM sync_clock) AS clock FROM sync_log
                    WHERE kind = 1 AND entity_id IN (\(binds: rows.map(\.id)))
                    """).first(decoding: Log.self))
                #expect(log.n == 40 && log.versions == 40 && log.high - log.low == 39 && log.removed == 5 && log.clock == log.high,
                        "each title its own version, one after the other, the clock past them: \(log)")
                struct Order: Decodable { var id: UUID }
                let logged = try await app.db.sql.raw("""
                    SELECT entity_id AS id FROM sync_log WHERE kind = 1 AND entity_id IN (\(binds: rows.map(\.id))) ORDER BY version
                    """).all(decoding: Order.self)
                #expect(logged.map(\.id) == rows.map(\.id), "the versions in the order of the rows")
            }

            // A batch that fails (an id already taken) writes nothing, and leaves the triggers working.
            var clash = try (0..<3).map { i -> TitleRow in
                var r = ImportRecord(line: i + 1)
                r.title = "Clash \(i)"
                return try TitleRow(importing: r, id: ids.next(), now: now)
            }
            clash[2].id = rows[1].id
            let clashing = clash
            let no = try await LibraryNumber.read(library, on: app.db.sql)
            await #expect(throws: (any Error).self) {
                try await app.db.transaction { db in
                    try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: clashing, values: { $0.values(library: no) }, on: db)
                }
            }
            #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM titles").first()?.decode(column: "n", as: Int.self) == 41)
            let after = try await f.addTitle("After", copies: 0)
            try await CatalogListTests.expectKeptCountsTrue(app)

            let shelved = Set(rows.filter { !$0.wishlist }.map(\.id))
            try await early.pull(limit: 2)
            let titles = Set(early.mirror.values.filter { $0.kind == .title }.map(\.id))
            #expect(titles.isSuperset(of: shelved) && titles.count == shelved.count + 2, "every title on the shelves, once; none of the wishlist")
            let seen = Set(between.mirror.values.filter { $0.kind == .title }.map(\.id))
            try await between.pull(limit: 2)
            let later = Set(between.mirror.values.filter { $0.kind == .title }.map(\.id)).subtracting(seen)
            #expect(later.map(\.uuidString) == [after.uppercased()], "only the title added after the bulk insert reaches a device that pulled right after it")
        }
    }
}
