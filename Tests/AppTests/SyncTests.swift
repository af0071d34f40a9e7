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
                   cover_url, updated_at FROM titles WHERE library_id = \(bind: id) AND NOT wishlist
            """).all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["title:\(key)"] = SyncChange(kind: .title, id: key, title: try Sync.syncTitle(row))
        }
        for row in try await sql.raw("SELECT id, title_id, barcode, copy_number, status, location FROM copies WHERE library_id = \(bind: id)").all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["copy:\(key)"] = SyncChange(kind: .copy, id: key, copy: try Sync.syncCopy(row))
        }
        for row in try await sql.raw("SELECT id, card_id, first_name, last_name, grade, suspended_until FROM members WHERE library_id = \(bind: id)").all() {
            let key = try row.decode(column: "id", as: UUID.self)
            state["member:\(key)"] = SyncChange(kind: .member, id: key, member: SyncMember(
                cardId: try row.decode(column: "card_id", as: String.self), firstName: try row.decode(column: "first_name", as: String.self),
                lastName: try row.decode(column: "last_name", as: String.self), grade: try row.decode(column: "grade", as: String?.self),
                suspendedUntil: try row.decode(column: "suspended_until", as: Date?.self)))
        }
        for row in try await sql.raw("""
            SELECT id, copy_id, title_id, member_id, due_at, renewals FROM loans WHERE library_id = \(bind: id) AND returned_at IS NULL
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
        }
    }

    @Test func titleEditsMergeByFieldAndTheNewerChangeWinsAField() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Krabat", authors: ["Otfried Preußler"], copies: 1, extra: ["series": "Classics"])
            var device = Device(f.owner, lib: f.lib, id: "tablet")
            try await device.pull()
            let seen = try #require(device.mirror["title:\(title)"]?.title)
            let editedOffline = clock.now
            clock.advance(days: 0.01)
            // Meanwhile on the server: another field, and the same field later than the device's edit.
            #expect(try await f.owner.patch("\(f.lib)/titles/\(title)", ["publisher": "Thienemann", "series": "Favourites"]).status == .ok)
            clock.advance(days: 0.01)
            device.enqueue("editTitle", ["titleId": title, "fields": ["subtitle": "Roman", "series": "Schule"],
                                         "base": ["subtitle": "", "series": seen.series ?? ""],
                                         "editedAt": ISO8601DateFormatter().string(from: editedOffline)])
            let result = try #require(try await device.push().results.first)
            #expect(result.status == .applied, "\(result)")
            #expect(result.kept == ["series"])
            #expect(result.title?.subtitle == "Roman" && result.title?.series == "Favourites" && result.title?.publisher == "Thienemann")
            // An edit made after the server's: the device's value wins; a tie also goes to the device.
            try await device.pull()
            let now = clock.now
            device.enqueue("editTitle", ["titleId": title, "fields": ["series": "Schule"], "base": ["series": "Classics"],
                                         "editedAt": ISO8601DateFormatter().string(from: now.addingTimeInterval(60))])
            let later = try #require(try await device.push().results.first)
            #expect(later.status == .applied && later.kept == nil && later.title?.series == "Schule", "\(later)")
            // An edit naming no field, and one by a volunteer, are refused with the reason.
            device.enqueue("editTitle", ["titleId": title, "fields": [:] as [String: Any]])
            #expect(try await device.push().results.first?.code == "invalid")
            let volunteer = Device(try await f.staff("vera", role: "volunteer"), lib: f.lib, id: "v")
            let refused = try await volunteer.send([["seq": 1, "op": "editTitle", "titleId": title, "fields": ["series": "X"]]])
            #expect(refused.first?.status == .rejected && refused.first?.code == "forbidden", "\(refused)")
        }
    }

    @Test func aCursorTakenWhileALongWriteIsOpenDoesNotSkipIt() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            let library = try #require(UUID(uuidString: f.libraryID))
            let (opened, openedSignal) = AsyncStream<Void>.makeStream()
            let (release, releaseSignal) = AsyncStream<Void>.makeStream()
            @Sendable func insert(_ card: String, on db: any Database) async throws {
                try await db.sql.raw("""
                    INSERT INTO members (id, library_id, card_id, first_name, last_name, search_text)
                    VALUES (\(bind: UUID()), \(bind: library), \(bind: card), \(bind: card), '', \(bind: card.lowercased()))
                    """).run()
            }
            let long = Task {
                try await app.writeGate.transaction(on: app.db) { db in
                    try await insert("LONG", on: db)
                    openedSignal.yield()
                    for await _ in release { break }
                }
            }
            for await _ in opened { break }
            // Another write commits while the long one is open (on SQLite it waits for it).
            let short = Task { try await app.writeGate.transaction(on: app.db) { db in try await insert("SHORT", on: db) } }
            try await Task.sleep(for: .milliseconds(100))
            // On PostgreSQL the short write has committed, after the long one took its version: the pull
            // may not move past the long one. (SQLite writes one at a time, and the open write holds its
            // event loop's one connection, so a read there would wait for it.)
            if Dialect(app.db) != .sqlite {
                let during = try await device.pullOnce()
                #expect(!during.changes.contains { $0.member?.cardId == "LONG" })
                #expect(!during.changes.contains { $0.member?.cardId == "SHORT" } && during.behind)
            }
            releaseSignal.yield()
            try await long.value
            try await short.value
            try await device.pull()
            let cards = Set(device.mirror.values.compactMap(\.member?.cardId))
            #expect(cards == ["S001", "LONG", "SHORT"], "\(cards)")
        }
    }

    @Test func oldTombstonesArePurgedAndAnOlderCursorMustFetchAgain() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let ben = try await f.addMember("S002", "Ben")
            var device = Device(f.owner, lib: f.lib, id: "phone")
            try await device.pull()
            let old = try #require(device.cursor)
            #expect(try await f.owner.delete("\(f.lib)/members/\(ben)").status == .noContent)
            let library = try #require(UUID(uuidString: f.libraryID))
            // Not yet old enough: kept.
            #expect(try await Sync.purge(library: library, now: Date(), gate: app.writeGate, on: app.db) == 0)
            #expect(try await Sync.purge(library: library, now: Date().addingTimeInterval(31 * 86_400), gate: app.writeGate, on: app.db) == 1)
            let reply = try await f.owner.send(.GET, "\(f.lib)/sync/changes?cursor=\(old)", headers: ["Accept-Language": "ga"])
            #expect(reply.status == .gone && reply.errorCode == "sync_refetch", "\(reply.json)")
            #expect(reply.errorMessage?.contains("leabharlann") == true)
            // From the start, the device is whole again.
            var fresh = Device(f.owner, lib: f.lib, id: "phone")
            try await fresh.pull()
            Self.expectEqual(fresh.mirror, try await Self.serverState(app, library: f.libraryID), "after a refetch")
        }
    }

    @Test func theFeedIsTheLibrarysOwnAndBoundedAndCursorsAreChecked() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada")
            let viewer = try await f.staff("vic", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/sync/changes").status == .ok)
            // A viewer reads, but lending from a device is refused like the API's.
            let lent = try await Device(viewer, lib: f.lib, id: "v").send([["seq": 1, "op": "checkout", "cardId": "S001", "copyBarcode": "X"]])
            #expect(lent.first?.status == .rejected && lent.first?.code == "forbidden")
            // Someone else's library: not found.
            let other = try await Client(app: app, token: f.owner.token).post("/api/v1/libraries", ["name": "Other"])
            let stranger = try await f.staff("sam", role: "librarian")
            #expect(try await stranger.get("/api/v1/libraries/\(other.string("id"))/sync/changes").status == .notFound)
            #expect(try await stranger.post("/api/v1/libraries/\(other.string("id"))/sync/push",
                                             ["clientId": "x", "mutations": [["seq": 1, "op": "return", "copyBarcode": "X"]]]).status == .notFound)
            // Cursors and sizes are checked.
            for bad in ["x", "v-1", "v1.9.00000000-0000-0000-0000-000000000000", "v99999999999999999999"] {
                let reply = try await f.owner.get("\(f.lib)/sync/changes?cursor=\(bad)")
                #expect(reply.status == .unprocessableEntity && reply.errorField == "cursor", "\(bad)")
            }
            let tooLarge = try await f.owner.get("\(f.lib)/sync/changes?limit=5001")
            #expect(tooLarge.status == .badRequest && tooLarge.errorField == "limit", "\(tooLarge.status) \(String(buffer: tooLarge.body).prefix(200))")
            let many = (1...501).map { ["seq": $0, "op": "return", "copyBarcode": "X"] as [String: Any] }
            let tooMany = try await f.owner.post("\(f.lib)/sync/push", ["clientId": "x", "mutations": many])
            #expect(tooMany.status == .unprocessableEntity && tooMany.errorField == "mutations")
            let noClient = try await f.owner.post("\(f.lib)/sync/push", ["clientId": " ", "mutations": [["seq": 1, "op": "return"]]])
            #expect(noClient.status == .unprocessableEntity && noClient.errorField == "clientId")
            // An incomplete mutation is answered, not a failed push.
            let incomplete = try await Device(f.owner, lib: f.lib, id: "x").send([["seq": 1, "op": "renew"], ["seq": 2, "op": "progress", "page": 3]])
            #expect(incomplete.map(\.status) == [.rejected, .rejected] && incomplete.map(\.field) == ["loanId", "titleId"])
        }
    }

    @Test func progressAndQuotesFromADeviceAreAddedOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Momo", copies: 1, extra: ["pageCount": 300])
            var device = Device(f.owner, lib: f.lib, id: "reader")
            device.enqueue("progress", ["titleId": title, "page": 157])
            device.enqueue("quote", ["titleId": title, "text": "Zeit ist Leben.", "quotePage": "57"])
            let sent = device.queue
            let results = try await device.push().results
            #expect(results.map(\.status) == [.applied, .applied], "\(results)")
            #expect(results[0].read?.page == 157)
            _ = try await device.send(sent)
            let quotes = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM quotes").first()?.decode(column: "n", as: Int.self)
            let events = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM progress_events").first()?.decode(column: "n", as: Int.self)
            #expect(quotes == 1 && events == 1)
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
