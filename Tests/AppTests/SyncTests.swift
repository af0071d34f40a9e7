@testable import App
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// The sync feed and push. A device that pulls ends equal to the server, whatever happened
/// in between; a mutation is applied once however often it is sent; circulation conflicts are first-wins
/// and answered with the state that refused them; title edits merge field by field.
@Suite struct SyncTests {
    // MARK: A device, as the tests play it

    struct Device {
        let client: Client
        let lib: String
        let id: String
        var cursor: String?
        var mirror: [String: SyncChange] = [:]
        var queue: [[String: Any]] = []
        var nextSeq = 1

        init(_ client: Client, lib: String, id: String) { (self.client, self.lib, self.id) = (client, lib, id) }

        /// One page; answers whether there is more to pull now (or soon).
        @discardableResult
        mutating func pullOnce(limit: Int = 1_000) async throws -> SyncPage {
            var path = "\(lib)/sync/changes?limit=\(limit)"
            if let cursor { path += "&cursor=\(cursor)" }
            let reply = try await client.get(path)
            #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
            let page = try JSONDecoder.api.decode(SyncPage.self, from: Data(buffer: reply.body))
            for change in page.changes {
                let key = "\(change.kind.rawValue):\(change.id)"
                if change.removed == true { mirror[key] = nil } else { mirror[key] = change }
            }
            cursor = page.cursor
            return page
        }

        /// Pulls until caught up (a write still running on PostgreSQL may hold changes back a moment).
        mutating func pull(limit: Int = 1_000) async throws {
            for _ in 0..<500 {
                let page = try await pullOnce(limit: limit)
                if page.more { continue }
                if !page.behind { return }
                try await Task.sleep(for: .milliseconds(20))
            }
            Issue.record("the feed never caught up")
        }

        mutating func enqueue(_ op: String, _ fields: [String: Any]) {
            var mutation = fields
            (mutation["seq"], mutation["op"]) = (nextSeq, op)
            nextSeq += 1
            queue.append(mutation)
        }

        /// Sends the queue; answers the push sent and its results.
        mutating func push() async throws -> (sent: [[String: Any]], results: [SyncOutcome]) {
            let sent = queue
            queue = []
            guard !sent.isEmpty else { return ([], []) }
            return (sent, try await send(sent))
        }

        func send(_ mutations: [[String: Any]]) async throws -> [SyncOutcome] {
            let reply = try await client.post("\(lib)/sync/push", ["clientId": id, "mutations": mutations])
            #expect(reply.status == .ok, "\(String(buffer: reply.body).prefix(300))")
            return try JSONDecoder.api.decode(SyncPushResult.self, from: Data(buffer: reply.body)).results
        }

        func available(_ copies: [String: SyncChange]) -> [SyncCopy] {
            mirror.values.compactMap(\.copy).filter { $0.status == "available" }
        }
    }

    /// The library as the tables hold it, in the feed's shapes, through the API's JSON (its dates to the second).
    static func serverState(_ app: Application, library: String) async throws -> [String: SyncChange] {
        let sql = app.db.sql
        let id = try #require(UUID(uuidString: library))
        var state: [String: SyncChange] = [:]
        for row in try await sql.raw("""
            SELECT id, title, subtitle, authors, isbn13, publisher, published_date, page_count, series, series_number, reading_level,
                   cover_url, updated_at FROM titles WHERE library_no = \(LibraryNumber.of(id)) AND NOT wishlist
            """).all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["title:\(key)"] = SyncChange(kind: .title, id: key, title: try Sync.syncTitle(row))
        }
        for row in try await sql.raw("SELECT id, title_id, barcode, copy_number, status, location FROM copies WHERE library_no = \(LibraryNumber.of(id))").all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["copy:\(key)"] = SyncChange(kind: .copy, id: key, copy: try Sync.syncCopy(row))
        }
        for row in try await sql.raw("SELECT id, card_id, first_name, last_name, grade, suspended_until FROM members WHERE library_id = \(bind: id) AND archived_at IS NULL").all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["member:\(key)"] = SyncChange(kind: .member, id: key, member: SyncMember(
                cardId: try row.decode(column: "card_id", as: String.self), firstName: try row.decode(column: "first_name", as: String.self),
                lastName: try row.decode(column: "last_name", as: String.self), grade: try row.decode(column: "grade", as: String?.self),
                suspendedUntil: try row.decode(column: "suspended_until", as: Date?.self)))
        }
        for row in try await sql.raw("""
            SELECT id, copy_id, title_id, member_id, due_at, renewals FROM loans WHERE \(LibraryNumber.rows(of: "loans", id)) AND returned_at IS NULL
            """).all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["loan:\(key)"] = SyncChange(kind: .loan, id: key, loan: try Sync.syncLoan(row))
        }
        let json = try JSONEncoder.api.encode(state)
        return try JSONDecoder.api.decode([String: SyncChange].self, from: json)
    }

    static func expectEqual(_ mirror: [String: SyncChange], _ server: [String: SyncChange], _ who: String) {
        let missing = Set(server.keys).subtracting(mirror.keys), extra = Set(mirror.keys).subtracting(server.keys)
        #expect(missing.isEmpty && extra.isEmpty, "\(who): missing \(missing.sorted().prefix(5)), extra \(extra.sorted().prefix(5))")
        let stale = server.keys.filter { mirror[$0] != nil && mirror[$0] != server[$0] }
        #expect(stale.isEmpty, "\(who): stale \(stale.prefix(3).map { "\($0): \(String(describing: mirror[$0]!)) vs \(String(describing: server[$0]!))" })")
    }

    // MARK: Tests

    @Test func aMemberWhoLeavesLeavesTheFeedAndComesBackWithThem() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let ada = try await f.addMember("S001", "Ada", "Lovelace")
            let ben = try await f.addMember("S002", "Ben")
            #expect(try await f.owner.post("\(f.lib)/members/\(ben)/archive").status == .ok)
            var device = Device(f.owner, lib: f.lib, id: "phone-1")
            try await device.pull()
            #expect(device.mirror["member:\(ada)"] != nil && device.mirror["member:\(ben)"] == nil, "a member who left is not on the phone")
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "first pull")

            #expect(try await f.owner.post("\(f.lib)/members/\(ada)/archive").status == .ok)
            try await device.pull()
            #expect(device.mirror["member:\(ada)"] == nil, "leaving reaches the phone as a removal")
            #expect(try await f.owner.delete("\(f.lib)/members/\(ada)/archive").status == .ok)
            try await device.pull()
            #expect(device.mirror["member:\(ada)"]?.member?.cardId == "S001", "brought back, they are on the phone again")
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "after coming back")
        }
    }

    @Test func aFirstPullInPagesThenChangesLeaveTheDeviceEqualToTheServer() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2)
            for i in 1...9 { try await f.addTitle("Book \(i)", copies: 1) }
            let ada = try await f.addMember("S001", "Ada", "Lovelace")
            try await f.addMember("S002", "Ben")
            var device = Device(f.owner, lib: f.lib, id: "phone-1")
            // Pages of three: 10 titles, 11 copies, 2 members.
            try await device.pull(limit: 3)
            #expect(device.mirror.count == 23)
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "first pull")
            let member = try #require(device.mirror["member:\(ada)"]?.member)
            #expect(member.cardId == "S001" && member.lastName == "Lovelace")

            // Lend, edit, delete, move to the wishlist, return: each arrives, removals as removals.
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            #expect(loan.status == .created)
            #expect(try await f.owner.patch("\(f.lib)/titles/\(momo)", ["subtitle": "Die Zeitdiebe"]).status == .ok)
            #expect(try await f.owner.delete("\(f.lib)/members/\(try await f.addMember("S003", "Cem"))").status == .noContent)
            let before = device.cursor
            try await device.pull()
            #expect(device.cursor != before)
            #expect(device.mirror["loan:\(loan.string("id"))"]?.loan?.memberId?.uuidString == ada.uppercased())
            #expect(device.mirror["title:\(momo)"]?.title?.subtitle == "Die Zeitdiebe")
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "after changes")
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")]).status == .ok)
            try await device.pull()
            #expect(device.mirror["loan:\(loan.string("id"))"] == nil)
            Self.expectEqual(device.mirror, try await Self.serverState(app, library: f.libraryID), "after the return")

            // Nothing new: the same cursor, no changes.
            let quiet = try await device.pullOnce()
            #expect(quiet.changes.isEmpty && !quiet.more)

            // A loan count or a reminder stage is not a change a device is sent.
            try await app.db.sql.raw("UPDATE titles SET loan_count = loan_count + 5").run()
            #expect(try await device.pullOnce().changes.isEmpty)
        }
    }

    /// Property-style: seeded random interleavings of server writes and of pushes (and pushes sent again)
    /// from three devices end, after a pull, with every device equal to the server, no copy lent twice at
    /// once, and every loan accounted for by exactly one applied check-out.
    @Test(arguments: [11, 23, 47] as [UInt64])
    func randomInterleavingsEndWithEveryDeviceEqualToTheServer(seed: UInt64) async throws {
        try await withTestApp { app in
            var rng = SplitMix64(seed: seed)
            let f = try await Fixture.make(app)
            var titles: [String] = []
            for i in 1...8 { titles.append(try await f.addTitle("Title \(i)", copies: i % 3 == 0 ? 2 : 1)) }
            var cards = (1...6).map { String(format: "C%03d", $0) }
            for card in cards { try await f.addMember(card, "Reader \(card)") }
            let volunteer = try await f.staff("vera", role: "volunteer")
            var devices = [Device(f.owner, lib: f.lib, id: "desk"), Device(volunteer, lib: f.lib, id: "hall-phone"),
                           Device(volunteer, lib: f.lib, id: "tablet")]
            for i in devices.indices { try await devices[i].pull(limit: 5) }
            var serverLoans = 0
            var appliedCheckouts = Set<String>()
            var lastPush: [Int: [[String: Any]]] = [:]
            var lastResults: [Int: [SyncOutcome]] = [:]
            var memberCount = cards.count

            for step in 0..<70 {
                let d = Int(rng.next() % UInt64(devices.count))
                switch rng.next() % 9 {
                case 0:  // the desk lends directly
                    let card = cards[Int(rng.next() % UInt64(cards.count))], title = titles[Int(rng.next() % UInt64(titles.count))]
                    if try await f.owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": title]).status == .created { serverLoans += 1 }
                case 1:  // the desk takes a book back
                    if let barcode = try await app.db.sql.raw("""
                        SELECT c.barcode FROM loans l JOIN copies c ON c.id = l.copy_id WHERE l.returned_at IS NULL ORDER BY c.barcode LIMIT 1
                        """).first()?.decode(column: "barcode", as: String.self) {
                        #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": barcode]).status == .ok)
                    }
                case 2:  // the catalog and the members change
                    let title = titles[Int(rng.next() % UInt64(titles.count))]
                    #expect(try await f.owner.patch("\(f.lib)/titles/\(title)", ["subtitle": "Edition \(step)"]).status == .ok)
                    if rng.next() % 2 == 0 {
                        memberCount += 1
                        let card = String(format: "C%03d", memberCount)
                        try await f.addMember(card, "Reader \(card)")
                        cards.append(card)
                    }
                case 3, 4:  // a device lends what it believes is on the shelf
                    let copies = devices[d].available(devices[d].mirror)
                    let members = devices[d].mirror.values.compactMap(\.member)
                    if let copy = copies.randomElement(using: &rng), let member = members.randomElement(using: &rng) {
                        devices[d].enqueue("checkout", ["cardId": member.cardId, "copyBarcode": copy.barcode])
                    }
                case 5:  // a device takes back what it believes is out
                    let onLoan = devices[d].mirror.values.compactMap(\.copy).filter { $0.status == "on_loan" }
                    if let copy = onLoan.randomElement(using: &rng) { devices[d].enqueue("return", ["copyBarcode": copy.barcode]) }
                case 6:  // a device's network comes back
                    let (sent, results) = try await devices[d].push()
                    #expect(results.map(\.seq) == sent.compactMap { $0["seq"] as? Int })
                    for (mutation, result) in zip(sent, results) where result.status == .applied && mutation["op"] as? String == "checkout" {
                        #expect(appliedCheckouts.insert("\(devices[d].id)#\(result.seq)").inserted)
                    }
                    #expect(results.allSatisfy { $0.repeated != true })
                    if !sent.isEmpty { (lastPush[d], lastResults[d]) = (sent, results) }
                case 7:  // the same push again (the answer was lost): answered, not applied
                    if let sent = lastPush[d], let first = lastResults[d] {
                        let again = try await devices[d].send(sent)
                        #expect(again.allSatisfy { $0.repeated == true })
                        #expect(again.map(\.status) == first.map(\.status))
                        #expect(again.map { $0.loan?.id } == first.map { $0.loan?.id })
                    }
                default:
                    try await devices[d].pullOnce(limit: 4)
                }
            }
            for i in devices.indices {
                let (sent, results) = try await devices[i].push()
                for (mutation, result) in zip(sent, results) where result.status == .applied && mutation["op"] as? String == "checkout" {
                    #expect(appliedCheckouts.insert("\(devices[i].id)#\(result.seq)").inserted)
                }
            }
            for i in devices.indices { try await devices[i].pull(limit: 6) }
            let server = try await Self.serverState(app, library: f.libraryID)
            for device in devices { Self.expectEqual(device.mirror, server, "\(device.id), seed \(seed)") }
            let sql = app.db.sql
            let doubled = try await sql.raw("SELECT copy_id FROM loans WHERE returned_at IS NULL GROUP BY copy_id HAVING COUNT(*) > 1").all()
            #expect(doubled.isEmpty, "a copy lent twice at once")
            let loans = try await sql.raw("SELECT COUNT(*) AS n FROM loans").first()?.decode(column: "n", as: Int.self)
            #expect(loans == serverLoans + appliedCheckouts.count, "loans \(loans ?? -1) vs \(serverLoans) + \(appliedCheckouts.count)")
            let mismatched = try await sql.raw("""
                SELECT c.id FROM copies c WHERE (c.status = 'on_loan') <> EXISTS (SELECT 1 FROM loans l WHERE l.copy_id = c.id AND l.returned_at IS NULL)
                """).all()
            #expect(mismatched.isEmpty, "a copy's status and its loans disagree")
        }
    }

    @Test func twoDevicesLendTheLastCopyTheSecondIsToldWhatHappened() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Das Sams", copies: 1)
            let ada = try await f.addMember("S001", "Ada")
            try await f.addMember("S002", "Ben")
            var hall = Device(f.owner, lib: f.lib, id: "hall"), door = Device(f.owner, lib: f.lib, id: "door")
            try await hall.pull()
            try await door.pull()
            let barcode = try #require(hall.mirror.values.compactMap(\.copy).first { $0.titleId.uuidString == title.uppercased() }?.barcode)
            hall.enqueue("checkout", ["cardId": "S001", "copyBarcode": barcode])
            door.enqueue("checkout", ["cardId": "S002", "copyBarcode": barcode])
            let first = try await hall.push().results
            #expect(first.first?.status == .applied)
            // German on the second device: the refusal in its language, with the copy and who has it.
            let reply = try await door.client.send(.POST, "\(f.lib)/sync/push", ["clientId": "door", "mutations": door.queue],
                                                   headers: ["Accept-Language": "de"])
            let second = try JSONDecoder.api.decode(SyncPushResult.self, from: Data(buffer: reply.body)).results
            let refused = try #require(second.first)
            #expect(refused.status == .rejected && refused.code == "copy_not_available", "\(refused)")
            #expect(refused.message?.contains("Das Sams") == true && refused.message?.contains("nicht") == true, "\(refused.message ?? "")")
            #expect(refused.copy?.status == "on_loan")
            #expect(refused.openLoan?.memberId?.uuidString == ada.uppercased())
            let loans = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM loans").first()?.decode(column: "n", as: Int.self)
            #expect(loans == 1)
        }
    }

    @Test func aPushSentTwiceAtOnceIsAppliedOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            for i in 1...5 { try await f.addTitle("Book \(i)", copies: 1) }
            try await f.addMember("S001", "Ada")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            for copy in device.mirror.values.compactMap(\.copy) { device.enqueue("checkout", ["cardId": "S001", "copyBarcode": copy.barcode]) }
            let body = try JSONSerialization.data(withJSONObject: ["clientId": "phone", "mutations": device.queue])
            let (client, path) = (f.owner, "\(f.lib)/sync/push")
            async let a = client.send(.POST, path, rawBody: body, contentType: "application/json")
            async let b = client.send(.POST, path, rawBody: body, contentType: "application/json")
            let (replyA, replyB) = try await (a, b)
            #expect(replyA.status == .ok && replyB.status == .ok)
            let first = try JSONDecoder.api.decode(SyncPushResult.self, from: Data(buffer: replyA.body)).results
            let second = try JSONDecoder.api.decode(SyncPushResult.self, from: Data(buffer: replyB.body)).results
            #expect(first.map(\.status) == second.map(\.status))
            #expect(first.allSatisfy { $0.status == .applied })
            #expect(first.map { $0.loan?.id } == second.map { $0.loan?.id })
            let loans = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM loans").first()?.decode(column: "n", as: Int.self)
            #expect(loans == 5)
            // A number repeated inside one push is the same mutation: answered twice, applied once.
            device.enqueue("return", ["copyBarcode": device.mirror.values.compactMap(\.copy).first!.barcode])
            let twice = try await device.send([device.queue[0], device.queue[0]])
            #expect(twice.map(\.status) == [.applied, .applied] && twice[1].repeated == true)
        }
    }

    /// A push reads its members, copies and holds once and writes its log and loan counts at its end
    /// (`PushBatch`): what one mutation changes is still seen by the next ones of the same push.
    @Test func aPushThatReadsOnceStillSeesWhatItsOwnMutationsChanged() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["fineMode": "suspension", "fineSuspensionDays": 2]).status == .ok)
            let momo = try await f.addTitle("Momo", copies: 3)
            let krabat = try await f.addTitle("Krabat", copies: 2)
            let held = try await f.addTitle("Held", copies: 1)
            try await f.addMember("S001", "Ada")
            try await f.addMember("S020", "Ben")
            try await f.addMember("S003", "Cy")
            var device = Device(f.owner, lib: f.lib, id: "hall")
            try await device.pull()
            func barcodes(_ title: String) -> [String] {
                device.mirror.values.compactMap(\.copy).filter { $0.titleId.uuidString == title.uppercased() }.map(\.barcode).sorted()
            }
            let (momos, krabats, helds) = (barcodes(momo), barcodes(krabat), barcodes(held))
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S020", "copyBarcode": momos[0]]).status == .created)
            clock.advance(days: 14 + 3)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "copyBarcode": helds[0]]).status == .created)
            #expect(try await f.owner.post("\(f.lib)/holds", ["titleId": held, "cardId": "S003"]).status == .created)
            clock.advance(days: 0.01)
            let pushed = clock.now
            device.enqueue("return", ["copyBarcode": momos[0]])                        // 3 days late: Ben is suspended
            device.enqueue("checkout", ["cardId": "S020", "copyBarcode": momos[1]])    // so this is refused
            device.enqueue("editTitle", ["titleId": krabat, "fields": ["title": "Krabat (Neu)"], "base": ["title": "Krabat"]])
            device.enqueue("checkout", ["cardId": "S001", "copyBarcode": krabats[0]])  // lent under its new title
            device.enqueue("checkout", ["cardId": "S001", "copyBarcode": krabats[1]])
            device.enqueue("checkout", ["cardId": "s001", "copyBarcode": momos[2]])    // a card in another case: read as always
            device.enqueue("return", ["copyBarcode": helds[0]])                        // on time; set aside for Cy
            device.enqueue("checkout", ["cardId": "S001", "copyBarcode": helds[0]])    // so not lent to Ada
            let results = try await device.push().results
            #expect(results.map(\.status) == [.applied, .rejected, .applied, .applied, .applied, .applied, .applied, .rejected], "\(results)")
            #expect(results[1].code == "member_suspended", "\(results[1])")
            #expect(results[3].loan?.title == "Krabat (Neu)" && results[5].loan?.memberCardId == "S001", "\(results[3]) \(results[5])")
            #expect(results[6].loan?.heldFor?.cardId == "S003", "\(results[6])")
            #expect(results[7].code == "held_for_other", "\(results[7])")
            let sql = app.db.sql
            let titleText = try await sql.raw("SELECT title_text FROM loans WHERE title_id = \(bind: UUID(uuidString: krabat)!)").all()
                .map { try $0.decode(column: "title_text", as: String.self) }
            #expect(titleText == ["Krabat (Neu)", "Krabat (Neu)"])
            // The counts and the log, written once at the push's end: as if each had been written on its own.
            func loanCount(_ title: String) async throws -> Int? {
                try await sql.raw("SELECT loan_count FROM titles WHERE id = \(bind: UUID(uuidString: title)!)").first()?.decode(column: "loan_count", as: Int.self)
            }
            let counts = [try await loanCount(krabat), try await loanCount(momo), try await loanCount(held)]
            #expect(counts == [2, 2, 1])
            struct Entry: Decodable { var type: String; var at: Date; var title_text: String?; var member_card_id: String? }
            let log = try await sql.raw("SELECT type, at, title_text, member_card_id FROM activities WHERE at >= \(bind: pushed)")
                .all(decoding: Entry.self)
            #expect(log.filter { $0.type == "checkout" }.map { "\($0.title_text ?? "") \($0.member_card_id ?? "")" }.sorted()
                    == ["Krabat (Neu) S001", "Krabat (Neu) S001", "Momo S001"])
            #expect(log.filter { $0.type == "return_book" }.count == 2)
            struct Started: Decodable { var checked_out_at: Date }
            let starts = try await sql.raw("SELECT checked_out_at FROM loans WHERE checked_out_at >= \(bind: pushed)").all(decoding: Started.self)
            #expect(Set(starts.map(\.checked_out_at)) == Set(log.filter { $0.type == "checkout" }.map(\.at)))
            // The day tallies, added once at the push's end for all its loans: as counted again from the loans.
            let libraryID = UUID(uuidString: f.libraryID)!
            func tallies() async throws -> [String] {
                struct Day: Decodable { var facet: String; var day: Int; var value: String; var lent: Int; var returned: Int; var late: Int }
                struct Month: Decodable { var month: Int; var card: String; var loans: Int }
                return try await sql.raw("""
                    SELECT facet, day, value, lent, returned, late FROM loan_days WHERE library_id = \(bind: libraryID) ORDER BY facet, day, value
                    """).all(decoding: Day.self).map { "\($0.facet) \($0.day) \($0.value) \($0.lent) \($0.returned) \($0.late)" }
                    + (try await sql.raw("SELECT month, card, loans FROM borrower_months WHERE library_id = \(bind: libraryID) ORDER BY month, card")
                        .all(decoding: Month.self).map { "\($0.month) \($0.card) \($0.loans)" })
            }
            let kept = try await tallies()
            #expect(kept.contains { $0.hasPrefix(" ") && $0.hasSuffix("  4 2 0") } && kept.contains { $0.hasSuffix(" S001 4") }, "\(kept)")
            try await LoanTallies.recount(library: libraryID, on: sql)
            let counted = try await tallies()
            #expect(counted == kept, "kept \(kept), counted \(counted)")
        }
    }

    /// A push looks once, at its end, at the holds of the titles that had none when it began: a hold
    /// placed while it ran gets the copy it returned to the shelf, and gives up the copy it lent.
    @Test func aHoldPlacedWhileAPushRanIsSettledAtItsEnd() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 1)
            let holes = try await f.addTitle("Holes", copies: 1)
            try await f.addMember("S001", "Ada")
            try await f.addMember("S002", "Ben")
            let lent = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            #expect(lent.status == .created)
            let momoCopy = lent.string("copyBarcode")
            struct Copy: Decodable { var barcode: String }
            let holesCopy = try #require(try await app.db.sql.raw("SELECT barcode FROM copies WHERE title_id = \(bind: UUID(uuidString: holes)!)")
                .first(decoding: Copy.self)).barcode
            let ctx = LibraryContext(libraryID: UUID(uuidString: f.libraryID)!, name: "Room 12", policy: LoanPolicy(), role: .owner,
                                     user: AuthenticatedUser(id: UUID(), username: "owner", displayName: "Owner"))
            let mutations = try JSONDecoder.api.decode([SyncMutation].self, from: Data("""
                [{"seq": 1, "op": "return", "copyBarcode": "\(momoCopy)"}, {"seq": 2, "op": "checkout", "cardId": "S001", "copyBarcode": "\(holesCopy)"}]
                """.utf8))
            let batch = try await PushBatch.read(mutations, library: ctx, on: app.db)
            #expect(batch.hasNoHolds(UUID(uuidString: momo)!) && batch.hasNoHolds(UUID(uuidString: holes)!))
            // Meanwhile Ben places two holds: Momo's only copy is out, so he waits; Holes' is on the shelf and set aside for him.
            let waiting = try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S002"])
            #expect(waiting.status == .created && waiting.string("state") == "waiting", "\(waiting.json)")
            let ready = try await f.owner.post("\(f.lib)/holds", ["titleId": holes, "cardId": "S002"])
            #expect(ready.status == .created && ready.string("state") == "ready", "\(ready.json)")
            let scope = Scope(library: ctx, app: app)
            try await scope.gate.transaction(on: scope.db) { db in
                let inner = scope.inside(db, batch: batch)
                let back = try await Circulation.giveBack(ReturnInput(loanId: nil, copyBarcode: momoCopy), in: inner)
                #expect(back.heldFor == nil)   // not looked at yet
                let out = try await Circulation.checkout(CheckoutInput(memberId: nil, cardId: "S001", titleId: nil, copyBarcode: holesCopy, lendHeld: nil),
                                                         in: inner)
                #expect(out.copyBarcode == holesCopy)   // the push began before the hold: first wins
                try await batch.write(in: inner)
            }
            struct Held: Decodable { var state: String; var barcode: String? }
            func hold(_ reply: Client.Reply) async throws -> Held? {
                try await app.db.sql.raw("""
                    SELECT h.state, c.barcode FROM holds h LEFT JOIN copies c ON c.id = h.copy_id WHERE h.id = \(bind: UUID(uuidString: reply.string("id"))!)
                    """).first(decoding: Held.self)
            }
            let given = try await hold(waiting), taken = try await hold(ready)
            #expect(given?.state == "ready" && given?.barcode == momoCopy, "\(String(describing: given))")
            #expect(taken?.state == "waiting" && taken?.barcode == nil, "\(String(describing: taken))")
        }
    }
}

/// A small seeded generator: the same interleaving on every run of a seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
