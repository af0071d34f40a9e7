@testable import App
import Foundation
import SQLKit
import Testing
import VaporTesting

/// Loans that name their library by its number (`LoansByLibraryNumber`) are the loans they were. The
/// update from loans named by id (what every older database has) keeps each loan with its library, copy,
/// title, member, dates and rowid, and what refers to it: on SQLite the table is made again, and dropping
/// the old one must not run the fines' `ON DELETE` action. Each library's loans list, overdue list,
/// report, every device's cursor and a deleted library's loans go on as before.
@Suite struct LoansByLibraryNumberTests {
    struct LoanFacts: Decodable, Hashable {
        var id: UUID; var library_id: UUID; var copy_id: UUID?; var title_id: UUID?; var member_id: UUID?
        var due_at: Date; var returned_at: Date?; var renewals: Int; var rowid: Int
    }

    static func loans(_ app: Application) async throws -> Set<LoanFacts> {
        let numbered = try await LibraryNumber.numbered("loans", on: app.db.sql)
        let library = numbered ? "(SELECT l.id FROM libraries l WHERE l.no = o.library_no)" : "o.library_id"
        // PostgreSQL has no rowid.
        let rowid = Dialect(app.db) == .sqlite ? "o.rowid" : "0"
        return Set(try await app.db.sql.raw(SQLQueryString("""
            SELECT o.id, \(library) AS library_id, o.copy_id, o.title_id, o.member_id, o.due_at, o.returned_at, o.renewals, \(rowid) AS rowid
            FROM loans o
            """)).all(decoding: LoanFacts.self))
    }

    /// A reply's JSON as text with its keys sorted: two replies compared whole.
    static func text(_ json: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test func theUpdateKeepsEveryLoanWhatRefersToItEachLibrarysListsAndEveryCursor() async throws {
        // 2 March 2026, 09:00 UTC: the report's months are known.
        let clock = TestClock(Date(timeIntervalSince1970: 1_772_442_000))
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let settings = try await f.owner.patch(f.lib, ["fineMode": "money", "finePerDay": 20, "fineGraceDays": 0, "fineCap": 300, "currency": "eur"])
            #expect(settings.status == .ok, "\(settings.json)")
            let momo = try await f.addTitle("Momo", copies: 2)
            let holes = try await f.addTitle("Holes", copies: 1)
            _ = try await f.addMember("S001", "Ada")
            _ = try await f.addMember("S002", "Ben")
            let made = try await f.owner.post("/api/v1/libraries", ["name": "Room 14"])
            let room14 = Fixture(app: app, owner: f.owner, libraryID: made.string("id"))
            let krabat = try await room14.addTitle("Krabat", copies: 1)
            _ = try await room14.addMember("R001", "Rosa")

            let adaMomo = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            let benHoles = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S002", "titleId": holes])
            #expect(adaMomo.status == .created && benHoles.status == .created)
            let rosaKrabat = try await room14.owner.post("\(room14.lib)/checkouts", ["cardId": "R001", "titleId": krabat])
            #expect(rosaKrabat.status == .created)
            clock.advance(days: 18)
            // Ben's back four days late: a fine on his loan. Ada's is overdue.
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": benHoles.string("copyBarcode")]).status == .ok)
            var device = SyncTests.Device(f.owner, lib: f.lib, id: "phone")
            var device14 = SyncTests.Device(f.owner, lib: room14.lib, id: "tablet")
            try await device.pull()
            try await device14.pull()

            let loans = try await Self.loans(app)
            struct Fine: Decodable, Hashable { var id: UUID; var loan_id: UUID? }
            let fines = Set(try await app.db.sql.raw("SELECT id, loan_id FROM fines").all(decoding: Fine.self))
            #expect(loans.count == 3 && fines.count == 1 && fines.allSatisfy { $0.loan_id != nil }, "\(fines)")
            let report = "\(f.lib)/reports/circulation?from=2026-03-01&to=2026-04-30"
            let reported = try await f.owner.get(report)
            #expect(reported.status == .ok, "\(reported.json)")

            // As an older database has them, then updated.
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            #expect(try await Self.loans(app) == loans)
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }

            #expect(try await Self.loans(app) == loans, "every loan with its library, copy, title, member, dates and rowid")
            #expect(Set(try await app.db.sql.raw("SELECT id, loan_id FROM fines").all(decoding: Fine.self)) == fines, "the fines keep their loans")
            if Dialect(app.db) == .sqlite {
                struct Kind: Decodable { var kind: String; var n: Int }
                let kinds = try await app.db.sql.raw("SELECT typeof(library_no) AS kind, COUNT(*) AS n FROM loans GROUP BY 1").all(decoding: Kind.self)
                #expect(kinds.map { [$0.kind, String($0.n)] } == [["integer", "3"]])
                // The open loans are read off their own index in their order; returns in a period off theirs.
                struct Step: Decodable { var detail: String }
                func plan(_ query: SQLQueryString) async throws -> String {
                    try await app.db.sql.raw("EXPLAIN QUERY PLAN " + query).all(decoding: Step.self).map(\.detail).joined(separator: " | ")
                }
                let library = try #require(UUID(uuidString: f.libraryID))
                let open = try await plan("""
                    SELECT id FROM loans WHERE \(LibraryNumber.rows(of: "loans", library)) AND returned_at IS NULL AND due_at < \(bind: clock.now)
                    ORDER BY due_at, id LIMIT 50
                    """)
                #expect(open.contains("COVERING INDEX loans_open") && !open.contains("TEMP B-TREE"), "\(open)")
                let returned = try await plan("""
                    SELECT COUNT(*) FROM loans WHERE \(LibraryNumber.rows(of: "loans", library))
                    AND returned_at >= \(bind: clock.now.addingTimeInterval(-86_400)) AND returned_at < \(bind: clock.now)
                    """)
                #expect(returned.contains("COVERING INDEX loans_library_returned"), "\(returned)")
            }

            // Each library's lists show its own loans only; the report says what it said.
            func titles(_ fixture: Fixture, _ path: String) async throws -> [String] {
                let reply = try await fixture.owner.get("\(fixture.lib)/\(path)")
                #expect(reply.status == .ok, "\(reply.json)")
                return reply.array.compactMap { $0["title"] as? String }
            }
            #expect(try await titles(f, "loans") == ["Momo"])
            #expect(try await titles(f, "loans?overdue=true") == ["Momo"])
            #expect(try await titles(room14, "loans") == ["Krabat"])
            #expect(try await Self.text(try await f.owner.get(report).json) == Self.text(reported.json))

            // Nothing changed for a device, and what changes after reaches it.
            let quiet = try await device.pullOnce()
            #expect(quiet.changes.isEmpty, "\(quiet.changes)")
            let renewed = try await f.owner.post("\(f.lib)/loans/\(adaMomo.string("id"))/renew")
            #expect(renewed.status == .ok, "\(renewed.json)")
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": adaMomo.string("copyBarcode")]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S002", "titleId": momo]).status == .created)
            try await device.pull()
            SyncTests.expectEqual(device.mirror, try await SyncTests.serverState(app, library: f.libraryID), "after the update")
            #expect(try await titles(f, "loans") == ["Momo"])
            #expect(try await titles(f, "loans?overdue=true").isEmpty)
            #expect(try await room14.owner.post("\(room14.lib)/returns", ["copyBarcode": rosaKrabat.string("copyBarcode")]).status == .ok)
            try await device14.pull()
            SyncTests.expectEqual(device14.mirror, try await SyncTests.serverState(app, library: room14.libraryID), "the other library")
            #expect(try await titles(room14, "loans").isEmpty)

            // A library deleted takes its loans with it, by their number.
            #expect(try await f.owner.delete("\(room14.lib)?confirm=true").status == .noContent)
            let left = try await Self.loans(app)
            #expect(left.count == 3 && left.allSatisfy { $0.library_id.uuidString == f.libraryID.uppercased() }, "\(left)")
        }
    }
}
