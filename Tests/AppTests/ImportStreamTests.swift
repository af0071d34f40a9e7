@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import SQLiteNIO
import Testing
import Vapor
import VaporTesting
import ShelfmarkReplay

@Suite struct UUIDSourceTests {
    /// Bulk ids: version 7, RFC 9562 variant, unique, and increasing as text (how SQLite stores and
    /// orders them), also when thousands are made in one millisecond.
    @Test func idsAreTimeOrderedUniqueVersion7() {
        var source = UUIDSource()
        let ids = (0..<20_000).map { _ in source.next() }
        #expect(Set(ids).count == ids.count)
        #expect(ids.map(\.uuidString) == ids.map(\.uuidString).sorted())
        for id in ids.prefix(100) {
            let bytes = withUnsafeBytes(of: id.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 7)
            #expect(bytes[8] >> 6 == 0b10)
        }
        let millis = withUnsafeBytes(of: ids[0].uuid) { raw in (0..<6).reduce(UInt64(0)) { $0 << 8 | UInt64(raw[$1]) } }
        #expect(abs(Double(millis) / 1000 - Date().timeIntervalSince1970) < 60)
        // Random parts differ from id to id, across the 512-number refills of the buffer.
        let randomParts = ids.map { id in withUnsafeBytes(of: id.uuid) { Array($0[9..<16]) } }
        #expect(Set(randomParts).count == ids.count)
    }

    /// An id goes to SQLite as its 16 bytes and comes back the same, from bytes or from the text an
    /// earlier version wrote; bytes sort as that text did, so an order or a cursor by id is unchanged.
    @Test func idsAreKeptAsBytesThatSortAsTheirText() {
        var source = UUIDSource()
        let ids = (0..<1_000).map({ _ in source.next() }) + (0..<200).map { _ in UUID() }
            + [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
               UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for id in ids {
            guard case .blob(let bytes) = id.sqliteData else { Issue.record("\(id) is not written as bytes"); continue }
            #expect(bytes.readableBytes == 16)
            #expect(UUID(sqliteData: .blob(bytes)) == id)
            #expect(UUID(sqliteData: .text(id.uuidString)) == id)
            #expect(UUID(sqliteData: .text(id.uuidString.lowercased())) == id)
        }
        #expect(UUID(sqliteData: .text("not an id")) == nil)
        #expect(UUID(sqliteData: .integer(7)) == nil)
        let byBytes = ids.sorted { a, b in withUnsafeBytes(of: a.uuid) { x in withUnsafeBytes(of: b.uuid) { y in x.lexicographicallyPrecedes(y) } } }
        #expect(byBytes == ids.sorted { $0.uuidString < $1.uuidString })
    }

    @Test func accessionBarcodesArePaddedToSixDigits() {
        #expect(Copy.barcode(accession: 1) == "C000001")
        #expect(Copy.barcode(accession: 42) == "C000042")
        #expect(Copy.barcode(accession: 999_999) == "C999999")
        #expect(Copy.barcode(accession: 1_234_567) == "C1234567")
    }
}

@Suite struct StreamedImportTests {
    /// A file over a megabyte is read in pieces: every row arrives, line numbers stay right, and a
    /// broken row after the first piece is reported by its line.
    @Test func aLargeFileIsReadInPiecesWithTheRightLineNumbers() async throws {
        try await withTestApp { app in
            // setup: 3,000 rows of ~400 bytes (1.2 MB), a quoted note with a line break in each, one bad ISBN far in
            var csv = "ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes\r\n"
            let note = String(repeating: "n", count: 330)
            for i in 0..<3_000 {
                let isbn = i == 2_500 ? "978-0-306-40615-8" : ""
                csv += "\(isbn),Title \(i),Author \(i),1,1,en,,,,\"\(note)\r\nsecond line\"\r\n"
            }
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("streamed-\(UUID().uuidString).csv")
            try Data(csv.utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            #expect(csv.utf8.count > 1 << 20)
            let ctx = try await CommandLibrary.context(named: "Streamed", create: true, app: app)
            // MUT
            let report = try await Importer.run(file: url, format: nil, existing: .skip, library: ctx, app: app, now: Date())
            // validate: row 2,500 starts on line 2 + 2 × 2,500
            #expect(report.rowsRead == 3_000)
            #expect(report.titlesCreated == 3_000)  // the bad ISBN's book comes in without it
            #expect(report.failed.isEmpty)
            #expect(report.warnings.map(\.line) == [2 + 2 * 2_500])
            #expect(report.encoding == "UTF-8")
            #expect(try await Title.query(on: app.db).inLibrary(ctx.libraryID).count() == 3_000)
        }
    }
}
