@testable import App
import Foundation
import SQLKit
import Testing
import VaporTesting

/// Copies that name their library by its number (`CopiesByLibraryNumber`) are the copies they were. The
/// update from copies named by id (what every older database has) keeps each copy with its library, and
/// what refers to a copy: on SQLite the table is made again, and dropping the old one must not run the
/// loans', holds' and stocktake scans' `ON DELETE SET NULL`. The kept counts, every device's cursor and
/// a deleted library's copies go on as before.
@Suite struct CopiesByLibraryNumberTests {
    struct CopyRow: Decodable, Hashable { var id: UUID; var library_id: UUID; var title_id: UUID; var barcode: String; var status: String; var location: String? }
    struct Ref: Decodable, Hashable { var id: UUID; var copy_id: UUID? }
    struct Kept: Decodable, Hashable { var library_id: UUID; var key: String; var n: Int }

    /// Every copy with its library's id, whichever way the copies name it.
    static func copies(_ app: Application) async throws -> Set<CopyRow> {
        if let rows = try? await app.db.sql.raw("""
            SELECT c.id, l.id AS library_id, c.title_id, c.barcode, c.status, c.location FROM copies c JOIN libraries l ON l.no = c.library_no
            """).all(decoding: CopyRow.self) {
            return Set(rows)
        }
        return Set(try await app.db.sql.raw("SELECT id, library_id, title_id, barcode, status, location FROM copies").all(decoding: CopyRow.self))
    }

    /// The kept counts of copies in and out of circulation and on each shelf, by library.
    static func kept(_ app: Application) async throws -> Set<Kept> {
        let circulating = try await app.db.sql.raw("""
            SELECT library_id, CASE WHEN circulating THEN 'in' ELSE 'out' END AS key, CAST(n AS BIGINT) AS n FROM copy_counts WHERE n <> 0
            """).all(decoding: Kept.self)
        let shelves = try await app.db.sql.raw("SELECT library_id, location AS key, CAST(n AS BIGINT) AS n FROM shelf_counts WHERE n <> 0")
            .all(decoding: Kept.self)
        return Set(circulating + shelves)
    }

    /// The same counts as counting the copies gives them.
    static func counted(_ copies: Set<CopyRow>) -> Set<Kept> {
        var n: [Kept: Int] = [:]
        for c in copies {
            n[Kept(library_id: c.library_id, key: ["available", "on_loan"].contains(c.status) ? "in" : "out", n: 0), default: 0] += 1
            if let location = c.location, c.status != "withdrawn" { n[Kept(library_id: c.library_id, key: location, n: 0), default: 0] += 1 }
        }
        return Set(n.map { Kept(library_id: $0.key.library_id, key: $0.key.key, n: $0.value) })
    }

    @Test func theUpdateKeepsEveryCopyWhatRefersToItTheCountsAndEveryCursor() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 2, extra: ["location": "Room 12"])
            let holes = try await f.addTitle("Holes", copies: 1, extra: ["location": "Room 12"])
            _ = try await f.addTitle("Emil", copies: 1)
            for (card, name) in [("S001", "Ada"), ("S002", "Bo"), ("S003", "Cy")] { _ = try await f.addMember(card, name) }
            let lent = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            #expect(lent.status == .created, "\(lent.json)")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S002", "titleId": holes]).status == .created)
            // A hold that waits for the lent copy of Holes, and one that is given Momo's free copy.
            #expect(try await f.owner.post("\(f.lib)/holds", ["cardId": "S003", "titleId": holes]).status == .created)
            #expect(try await f.owner.post("\(f.lib)/holds", ["cardId": "S003", "titleId": momo]).status == .created)
            let made = try await f.owner.post("/api/v1/libraries", ["name": "Room 14"])
            let room14 = Fixture(app: app, owner: f.owner, libraryID: made.string("id"))
            _ = try await room14.addTitle("Krabat", copies: 2, extra: ["location": "Shelf A"])
            var device = SyncTests.Device(f.owner, lib: f.lib, id: "phone")
            var device14 = SyncTests.Device(f.owner, lib: room14.lib, id: "tablet")
            try await device.pull()
            try await device14.pull()

            let copies = try await Self.copies(app)
            let loans = Set(try await app.db.sql.raw("SELECT id, copy_id FROM loans").all(decoding: Ref.self))
            let holds = Set(try await app.db.sql.raw("SELECT id, copy_id FROM holds").all(decoding: Ref.self))
            #expect(copies.count == 6 && loans.count == 2 && loans.allSatisfy { $0.copy_id != nil })
            #expect(holds.filter { $0.copy_id != nil }.count == 1, "one hold was given a copy: \(holds)")
            #expect(try await Self.kept(app) == Self.counted(copies))

            // As an older database has them, then updated.
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().revert(on: $0) }
            #expect(try await Self.copies(app) == copies)
            try await onOneConnection(app) { try await CopiesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }

            #expect(try await Self.copies(app) == copies)
            #expect(Set(try await app.db.sql.raw("SELECT id, copy_id FROM loans").all(decoding: Ref.self)) == loans, "the loans keep their copies")
            #expect(Set(try await app.db.sql.raw("SELECT id, copy_id FROM holds").all(decoding: Ref.self)) == holds, "the holds keep their copies")
            #expect(try await Self.kept(app) == Self.counted(copies))
            if Dialect(app.db) == .sqlite {
                struct Kind: Decodable { var kind: String; var n: Int }
                let kinds = try await app.db.sql.raw("SELECT typeof(library_no) AS kind, COUNT(*) AS n FROM copies GROUP BY 1").all(decoding: Kind.self)
                #expect(kinds.map { [$0.kind, String($0.n)] } == [["integer", "6"]])
            }
            // Nothing changed for a device, and what changes after reaches it.
            let quiet = try await device.pullOnce()
            #expect(quiet.changes.isEmpty, "\(quiet.changes)")
            let returned = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": lent.string("copyBarcode")])
            #expect(returned.status == .ok, "\(returned.json)")
            _ = try await f.addTitle("Matilda", copies: 1, extra: ["location": "Room 12"])
            try await device.pull()
            SyncTests.expectEqual(device.mirror, try await SyncTests.serverState(app, library: f.libraryID), "after the update")
            #expect(try await Self.kept(app) == Self.counted(try await Self.copies(app)))
            try await device14.pull()
            SyncTests.expectEqual(device14.mirror, try await SyncTests.serverState(app, library: room14.libraryID), "the other library")

            // A library deleted takes its copies with it, by their number.
            #expect(try await f.owner.delete("\(room14.lib)?confirm=true").status == .noContent)
            let left = try await Self.copies(app)
            #expect(left.count == 5 && left.allSatisfy { $0.library_id.uuidString == f.libraryID.uppercased() }, "\(left)")
            #expect(try await Self.kept(app) == Self.counted(left))
        }
    }
}
