@testable import App
import Fluent
import Foundation
@testable import ShelfmarkImaging
import Testing
import Vapor

/// Backups compared field by field: ids differ after a restore, so both sides are renumbered by their
/// natural keys (title, barcode, card ID …) and every reference follows.
private func normalized(_ b: LibraryBackup) -> LibraryBackup {
    var map: [UUID: UUID] = [:]
    func assign<T>(_ rows: [T], table: Int, id: (T) -> UUID, key: (T) -> String) {
        for (i, row) in rows.sorted(by: { key($0) < key($1) }).enumerated() {
            map[id(row)] = UUID(uuidString: String(format: "00000000-0000-0000-%04X-%012X", table, i))!
        }
    }
    assign(b.titles, table: 1, id: \.id) { "\($0.title)|\($0.isbn13 ?? "")|\($0.wishlist)" }
    assign(b.categories, table: 2, id: \.id) { $0.name }
    assign(b.copies, table: 3, id: \.id) { $0.barcode }
    assign(b.members, table: 4, id: \.id) { $0.card_id }
    assign(b.loans, table: 5, id: \.id) { "\($0.checked_out_at.timeIntervalSince1970)|\($0.member_card_id)" }
    assign(b.activities, table: 6, id: \.id) { "\($0.at.timeIntervalSince1970)|\($0.type)|\($0.info ?? "")|\($0.title_text ?? "")" }
    assign(b.covers ?? [], table: 7, id: \.id) { $0.sha256 }
    assign(b.shelves ?? [], table: 8, id: \.id) { $0.name }
    assign(b.stocktakes ?? [], table: 9, id: \.id) { "\($0.shelf_name)|\($0.started_at.timeIntervalSince1970)" }
    assign(b.stocktakeScans ?? [], table: 10, id: \.id) { "\($0.code)|\($0.scanned_at.timeIntervalSince1970)" }
    assign(b.savedReports ?? [], table: 11, id: \.id) { $0.name_key }
    assign(b.auditLog ?? [], table: 12, id: \.id) { "\($0.at.timeIntervalSince1970)|\($0.action)|\($0.target ?? "")" }
    func m(_ id: UUID) -> UUID { map[id] ?? id }
    func m(_ id: UUID?) -> UUID? { id.map { m($0) } }
    var n = b
    n.createdAt = Date(timeIntervalSince1970: 0)
    n.library.name = "—"
    n.titles = b.titles.map { var r = $0; r.id = m(r.id); r.cover_url = r.cover_url.flatMap(Backup.coverID).map { CoverStore.localURL(m($0)) } ?? r.cover_url; return r }
        .sorted { $0.id.uuidString < $1.id.uuidString }
    n.categories = b.categories.map { var r = $0; r.id = m(r.id); r.created_at = nil; return r }.sorted { $0.id.uuidString < $1.id.uuidString }
    n.titleCategories = b.titleCategories.map { .init(title_id: m($0.title_id), category_id: m($0.category_id)) }
        .sorted { ($0.title_id.uuidString, $0.category_id.uuidString) < ($1.title_id.uuidString, $1.category_id.uuidString) }
    n.copies = b.copies.map { var r = $0; r.id = m(r.id); r.title_id = m(r.title_id); return r }.sorted { $0.id.uuidString < $1.id.uuidString }
    n.members = b.members.map { var r = $0; r.id = m(r.id); return r }.sorted { $0.id.uuidString < $1.id.uuidString }
    n.loans = b.loans.map { var r = $0; r.id = m(r.id); r.copy_id = m(r.copy_id); r.title_id = m(r.title_id); r.member_id = m(r.member_id); return r }
        .sorted { $0.id.uuidString < $1.id.uuidString }
    n.activities = b.activities.map { var r = $0; r.id = m(r.id); r.title_id = m(r.title_id); return r }.sorted { $0.id.uuidString < $1.id.uuidString }
    n.covers = b.covers.map { $0.map { var r = $0; r.id = m(r.id); r.created_at = nil; return r }.sorted { $0.id.uuidString < $1.id.uuidString } }
    n.shelves = b.shelves.map { $0.map { var r = $0; r.id = m(r.id); return r }.sorted { $0.id.uuidString < $1.id.uuidString } }
    n.stocktakes = b.stocktakes.map { $0.map { var r = $0; r.id = m(r.id); r.shelf_id = m(r.shelf_id); return r }.sorted { $0.id.uuidString < $1.id.uuidString } }
    n.stocktakeScans = b.stocktakeScans.map {
        $0.map { var r = $0; r.id = m(r.id); r.stocktake_id = m(r.stocktake_id); r.copy_id = m(r.copy_id); return r }.sorted { $0.id.uuidString < $1.id.uuidString }
    }
    n.auditLog = b.auditLog.map { $0.map { var r = $0; r.id = m(r.id); return r }.sorted { $0.id.uuidString < $1.id.uuidString } }
    // A saved report's category is the restored library's own.
    n.savedReports = b.savedReports.map {
        $0.map { s in
            var r = s
            r.id = m(r.id)
            if var options = try? ReportOptions.read(query: r.options) { options.category = m(options.category); r.options = options.queryString }
            return r
        }.sorted { $0.id.uuidString < $1.id.uuidString }
    }
    return n
}

private func send(_ f: Fixture, _ method: HTTPMethod, _ path: String, body: Data? = nil) async throws -> Client.Reply {
    var headers = HTTPHeaders()
    headers.bearerAuthorization = .init(token: f.owner.token!)
    headers.replaceOrAdd(name: .contentType, value: "application/json")
    let response = try await f.app.testing().sendRequest(method, path, headers: headers, body: body.map { ByteBuffer(data: $0) })
    return Client.Reply(status: response.status, body: response.body, headers: response.headers)
}

@Suite struct BackupTests {
    /// A backup keeps the reading life — the owner's reads with their progress, a member's
    /// log, goals, quotes and page photos — and a restore brings it back (as a new library too); another
    /// server's accounts' diaries are not restored; a photo that is not an image is left out.
    @Test func aBackupKeepsReadsProgressGoalsQuotesAndPhotos() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], extra: ["pageCount": 300])
            let memberID = try await f.addMember("S1", "Mia")
            _ = try await f.owner.post("\(f.lib)/titles/\(titleID)/progress", ["page": 40])
            _ = try await f.owner.post("\(f.lib)/titles/\(titleID)/progress", ["page": 90])
            _ = try await f.owner.post("\(f.lib)/reads", ["titleId": titleID, "memberId": memberID, "status": "finished"])
            _ = try await f.owner.send(.PUT, "\(f.lib)/reading/goal", ["year": 2026, "books": 20])
            _ = try await f.owner.send(.PUT, "\(f.lib)/reading/goal", ["year": 2026, "books": 5, "memberId": memberID])
            let png = try BarcodeRenderer.render(.isbn, "9780306406157", scale: 3).png
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            headers.replaceOrAdd(name: .contentType, value: "image/png")
            let photo = try await app.testing().sendRequest(.POST, "\(f.lib)/titles/\(titleID)/photos", headers: headers, body: ByteBuffer(data: png))
            #expect(photo.status == .created)
            let photoID = try #require(try JSONSerialization.jsonObject(with: Data(buffer: photo.body)) as? [String: Any])["id"] as! String
            _ = try await f.owner.post("\(f.lib)/quotes", ["titleId": titleID, "text": "Zeit ist Leben", "page": "157", "photoId": photoID])

            let backup = try await send(f, .GET, "\(f.lib)/backup")
            let decoded = try Backup.decode(Data(buffer: backup.body))
            #expect(decoded.reads?.count == 2 && decoded.progressEvents?.count == 2 && decoded.readingGoals?.count == 2)
            #expect(decoded.quotes?.count == 1 && decoded.pagePhotos?.count == 1)

            let accepted = try await send(f, .POST, "/api/v1/libraries/restore?name=Copy", body: Data(buffer: backup.body))
            let restored = try await f.owner.finished(accepted)
            #expect(restored.status == .ok, "\(restored.json)")
            let nothingLeftOut = restored["leftOut"] as? [String: Any]
            #expect(nothingLeftOut?["reads"] as? Int == 0 && nothingLeftOut?["photos"] as? Int == 0)
            let copy = "/api/v1/libraries/\(try #require((restored["library"] as? [String: Any])?["id"] as? String))"
            let reads = try await f.owner.get("\(copy)/reads").array
            #expect(reads.count == 1 && reads.first?["page"] as? Int == 90 && reads.first?["title"] as? String == "Momo")
            let newMember = try #require(try await f.owner.get("\(copy)/members").array.first?["id"] as? String)
            #expect(newMember != memberID)
            #expect(try await f.owner.get("\(copy)/reads?memberId=\(newMember)").array.first?["status"] as? String == "finished")
            let stats = try await f.owner.get("\(copy)/reading/stats?year=2026&memberId=\(newMember)")
            #expect((stats["goal"] as? [String: Any])?["books"] as? Int == 5)
            try await ReadingTests.expectDaysMatchEvents(app)
            let copyStats = try await f.owner.get("\(copy)/reading/stats?year=2026")
            #expect(copyStats["pages"] as? Int == (try await f.owner.get("\(f.lib)/reading/stats?year=2026"))["pages"] as? Int)
            let quotes = try await f.owner.get("\(copy)/quotes")
            let quote = try #require((quotes["items"] as? [[String: Any]])?.first)
            #expect(quote["text"] as? String == "Zeit ist Leben")
            let newPhoto = try #require(quote["photoId"] as? String)
            #expect(newPhoto != photoID)
            #expect(try await f.owner.get("\(copy)/photos/\(newPhoto)/original").body.readableBytes == png.count)

            // Restored over that copy (written beside it, swapped in): the same reading life, once.
            let over = try await f.owner.finished(try await send(f, .POST, "\(copy)/restore?confirm=true", body: Data(buffer: backup.body)))
            #expect(over.status == .ok, "\(over.json)")
            let readsAfter = try await f.owner.get("\(copy)/reads").array
            #expect(readsAfter.count == 1 && readsAfter.first?["page"] as? Int == 90, "\(readsAfter)")
            let memberAfter = try #require(try await f.owner.get("\(copy)/members").array.first?["id"] as? String)
            #expect(try await f.owner.get("\(copy)/reads?memberId=\(memberAfter)").array.count == 1)
            let memberStats = try await f.owner.get("\(copy)/reading/stats?year=2026&memberId=\(memberAfter)")
            #expect((memberStats["goal"] as? [String: Any])?["books"] as? Int == 5)
            #expect(try await f.owner.get("\(copy)/reading/stats?year=2026")["pages"] as? Int == copyStats["pages"] as? Int)
            let quoteAfter = try #require((try await f.owner.get("\(copy)/quotes")["items"] as? [[String: Any]])?.first)
            let photoAfter = try #require(quoteAfter["photoId"] as? String)
            #expect(try await f.owner.get("\(copy)/photos/\(photoAfter)/original").body.readableBytes == png.count)
            try await ReadingTests.expectDaysMatchEvents(app)

            // Another server's accounts and a "photo" that is not an image are left out.
            var tampered = decoded
            tampered.reads = tampered.reads?.map { var r = $0; if r.user_id != nil { r.user_id = UUID() }; return r }
            tampered.pagePhotos = tampered.pagePhotos?.map { var p = $0; p.image = Data("<svg onload=alert(1)>".utf8); return p }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601withFractions
            let second = try await f.owner.finished(try await send(f, .POST, "/api/v1/libraries/restore?name=Other", body: try encoder.encode(tampered)))
            let other = "/api/v1/libraries/\(try #require((second["library"] as? [String: Any])?["id"] as? String))"
            #expect(try await f.owner.get("\(other)/reads").array.isEmpty)
            let otherQuote = try #require((try await f.owner.get("\(other)/quotes")["items"] as? [[String: Any]])?.first)
            #expect(otherQuote["photoId"] == nil)
            // The report says what was left out, no longer silently.
            let leftOut = try #require(second["leftOut"] as? [String: Any])
            #expect(leftOut["reads"] as? Int == 1 && leftOut["readers"] as? Int == 1 && leftOut["photos"] as? Int == 1)
            #expect(leftOut["quotes"] as? Int == 0)
        }
    }

    /// A restore derives the search texts from the rows themselves, as a save does: a backup written by a
    /// version that kept a run of Chinese characters as one word is found by a word from inside it.
    @Test func aRestoreCutsSearchTextsAsThisVersionDoes() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("哈利波特与魔法石", authors: ["罗琳"])
            try await f.addMember("S1", "小明", "王")
            #expect(try await f.owner.post("\(f.lib)/quotes", ["titleId": titleID, "text": "时间就是生命"]).status == .created)
            var decoded = try Backup.decode(Data(buffer: try await send(f, .GET, "\(f.lib)/backup").body))
            // As the version before wrote them.
            decoded.titles = decoded.titles.map { var t = $0; t.search_text = "哈利波特与魔法石 罗琳"; return t }
            decoded.members = decoded.members.map { var m = $0; m.search_text = " s1 小明 王 "; return m }
            decoded.quotes = decoded.quotes?.map { var q = $0; q.search_text = " 时间就是生命 哈利波特与魔法石 罗琳 "; return q }
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601withFractions
            let restored = try await f.owner.finished(try await send(f, .POST, "/api/v1/libraries/restore?name=Copy", body: try encoder.encode(decoded)))
            #expect(restored.status == .ok, "\(restored.json)")
            let copy = "/api/v1/libraries/\(try #require((restored["library"] as? [String: Any])?["id"] as? String))"
            func q(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)! }
            let titles = try await f.owner.get("\(copy)/titles?q=\(q("魔法"))")
            #expect((titles["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["哈利波特与魔法石"])
            #expect(try await f.owner.get("\(copy)/members?q=\(q("小明"))").array.compactMap { $0["cardId"] as? String } == ["S1"])
            #expect(try await f.owner.get("\(copy)/quotes?q=\(q("生命"))")["total"] as? Int == 1)
        }
    }

    @Test func backupThenRestoreIsLosslessFieldByField() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            // setup: a library with everything a backup must carry
            let f = try await Fixture.make(app)
            _ = try await f.owner.patch(f.lib, ["loanPeriodDays": 21, "maxRenewals": 3, "publicCatalog": true, "catalogIndexable": true, "kioskAsksPin": true])
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 2,
                                            extra: ["notes": "Shelf B", "rating": 4.5, "favorite": true, "categories": ["Fantasy", "German"],
                                                    "subtitle": "oder Die seltsame Geschichte", "pageCount": 304, "series": "—", "readingLevel": "8+"])
            _ = try await f.addTitle("Handwritten", copies: 1)
            _ = try await f.owner.post("\(f.lib)/wishlist", ["title": "Children of Time", "authors": ["Adrian Tchaikovsky"]])
            let png = try BarcodeRenderer.render(.qr, "a cover").png
            let coverID = try await CoverStore.store(png, sourceURL: "https://covers.example/1.png", now: clock.now, gate: app.writeGate, on: app.db)
            _ = try await f.owner.patch("\(f.lib)/titles/\(momo)", ["coverUrl": CoverStore.localURL(coverID)])
            let copy = try #require((try await f.owner.get("\(f.lib)/titles/\(momo)")["copies"] as? [[String: Any]])?.last)
            _ = try await f.owner.patch("\(f.lib)/copies/\(copy["id"] as! String)", ["status": "lost", "location": "Attic", "condition": "worn"])
            try await f.addMember("S1", "Ada", "Lovelace")
            try await f.addMember("S2", "Alan", "Turing")
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": momo])
            clock.advance(days: 3)
            _ = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": "C000001"])
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S2", "titleId": momo, "days": 7])
            // A finished stocktake at the attic: the lost copy found there, and a long code the catalog does not know.
            let attic = try #require(try await f.owner.get("\(f.lib)/shelves").array.first { $0["name"] as? String == "Attic" }?["id"] as? String)
            let stocktake = try await f.owner.post("\(f.lib)/shelves/\(attic)/stocktakes").string("id")
            for code in [copy["barcode"] as! String, "X-" + String(repeating: "7", count: 120)] { #expect(try await f.owner.post("\(f.lib)/stocktakes/\(stocktake)/scans", ["code": code]).status == .ok) }
            #expect(try await f.owner.post("\(f.lib)/stocktakes/\(stocktake)/finish").status == .ok)

            // A saved report narrowed to a category, mailed monthly to the head teacher.
            let german = try #require(try await f.owner.get("\(f.lib)/categories").array.first { $0["name"] as? String == "German" }?["id"] as? String)
            let saved = try await f.owner.post("\(f.lib)/saved-reports", ["name": "German books", "kind": "collection", "options": "category=\(german)",
                                                                         "schedule": "monthly", "recipients": ["head@school.example"]])
            #expect(saved.status == .created, "\(saved.json)")
            // A member of staff added: an entry of the audit log, which the backup carries.
            #expect(try await f.owner.post("\(f.lib)/staff", ["username": "helper", "role": "volunteer", "password": "password-helper"]).status == .created)

            // MUT: back up, restore as a new library
            let backup = try await send(f, .GET, "\(f.lib)/backup")
            #expect(backup.status == .ok)
            #expect(backup.headers.first(name: .contentDisposition)?.contains("shelfmark-backup-room-12-") == true)
            let original = try Backup.decode(Data(buffer: backup.body))
            #expect(original.covers?.count == 1)
            #expect(original.auditLog?.map(\.action) == ["staff_added"] && original.auditLog?.first?.target == "helper")
            // Written a row at a time, the file is byte for byte what encoding it whole writes.
            #expect(try Backup.encode(original) == Backup.encoder().encode(original))
            var withoutCovers = original
            withoutCovers.covers = nil
            #expect(try Backup.encode(withoutCovers) == Backup.encoder().encode(withoutCovers))
            #expect(original.loans.count == 2)
            #expect(original.library.catalog_indexable == true && original.library.kiosk_asks_pin == true)
            #expect(original.copies.filter { $0.seen_at != nil }.count == 1, "the copy the stocktake saw keeps when")
            #expect(original.savedReports?.map(\.name) == ["German books"] && original.savedReports?.first?.schedule == "monthly")
            #expect(original.stocktakes?.first?.found == 1 && original.stocktakes?.first?.unknown == 1 && original.stocktakeScans?.compactMap(\.copy_id).count == 1)
            // The catalog CSV counts what can circulate: Momo's lost copy is left out and its other
            // copy is on loan; the wishlist is not in it; A–Z by title.
            let csv = String(buffer: try await send(f, .GET, "\(f.lib)/export?format=csv").body)
            let lines = Array(csv.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty })
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.first?.hasPrefix(",Handwritten,,1,1,") == true, "\(lines)")
            #expect(lines.last?.hasPrefix("9783522202602,Momo,Michael Ende,1,0,") == true, "\(lines)")
            #expect(lines.last?.hasSuffix(",304,Shelf B") == true, "\(lines)")
            let accepted = try await send(f, .POST, "/api/v1/libraries/restore?name=Room%2012%20copy", body: Data(buffer: backup.body))
            #expect(accepted.status == .accepted, "\(accepted.json)")
            let restored = try await f.owner.finished(accepted)
            #expect(restored.status == .ok, "\(restored.json)")
            let made = try #require(restored["library"] as? [String: Any])
            #expect(made["name"] as? String == "Room 12 copy")
            let copyLib = Fixture(app: app, owner: f.owner, libraryID: try #require(made["id"] as? String))

            // validate: the copy's backup equals the original in every field
            let second = try Backup.decode(Data(buffer: try await send(f, .GET, "\(copyLib.lib)/backup").body))
            #expect(second.library.name == "Room 12 copy")
            #expect(normalized(second) == normalized(original))
            // The copy works: its loan is open and its cover is served.
            let loans = try await copyLib.owner.get("\(copyLib.lib)/loans")
            #expect(loans.array.map { $0["memberCardId"] as? String } == ["S2"])
            let list = try await copyLib.owner.get("\(copyLib.lib)/titles?q=momo")
            let cover = try #require((list["items"] as? [[String: Any]])?.first?["coverUrl"] as? String)
            #expect(try await Client(app: app).get(cover).status == .ok)

            // The cover ids written in upper case (a file edited by hand or by another tool): the
            // same covers, since a UUID is case-insensitive.
            var edited = String(buffer: backup.body)
            let written = #"\/api\/v1\/covers\/"# + coverID.uuidString.lowercased()
            #expect(edited.contains(written))
            edited = edited.replacingOccurrences(of: written, with: #"\/api\/v1\/covers\/"# + coverID.uuidString.uppercased())
            let lowered = try await f.owner.finished(try await send(f, .POST, "/api/v1/libraries/restore?name=Lowered", body: Data(edited.utf8)))
            let loweredLib = try #require((lowered["library"] as? [String: Any])?["id"] as? String)
            let loweredList = try await f.owner.get("/api/v1/libraries/\(loweredLib)/titles?q=momo")
            let loweredCover = try #require((loweredList["items"] as? [[String: Any]])?.first?["coverUrl"] as? String)
            #expect(CoverStore.isLocal(loweredCover), "\(loweredCover)")
            #expect(try await Client(app: app).get(loweredCover).status == .ok)

            // Restored over the original library after it changed (a title, a member, its settings),
            // written beside it and swapped in: its backup is the original again, field by field.
            _ = try await f.addTitle("Added later", copies: 2)
            try await f.addMember("S3", "Grace", "Hopper")
            _ = try await f.owner.patch(f.lib, ["loanPeriodDays": 7, "maxRenewals": 1, "publicCatalog": false])
            let over = try await f.owner.finished(try await send(f, .POST, "\(f.lib)/restore?confirm=true", body: Data(buffer: backup.body)))
            #expect(over.status == .ok, "\(over.json)")
            let again = try Backup.decode(Data(buffer: try await send(f, .GET, "\(f.lib)/backup").body))
            #expect(again.library.name == original.library.name)
            // The audit log is the library's own through a restore, which adds its entry.
            #expect(again.auditLog?.map(\.action).sorted() == ((original.auditLog ?? []).map(\.action) + ["restore"]).sorted())
            var (restoredOver, before) = (again, original)
            (restoredOver.auditLog, before.auditLog) = (nil, nil)
            #expect(normalized(restoredOver) == normalized(before))
            // The open loan restored (as a new library and over this one) is counted on its title again.
            try await CatalogListTests.expectKeptCountsTrue(app)
            let lent = try await f.owner.get("\(f.lib)/titles?onLoan=true")
            #expect(lent["total"] as? Int == 1 && (lent["items"] as? [[String: Any]])?.first?["title"] as? String == "Momo", "\(lent.json)")
        }
    }

    @Test func restoreOverAndEraseNeedConfirmation() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Keep me", copies: 1)
            let backup = try await send(f, .GET, "\(f.lib)/backup")
            try await f.addTitle("Added after the backup", copies: 1)
            let unconfirmed = try await send(f, .POST, "\(f.lib)/restore", body: Data(buffer: backup.body))
            #expect(unconfirmed.status == .conflict)
            #expect(unconfirmed.errorCode == "confirmation_required")
            let over = try await f.owner.finished(try await send(f, .POST, "\(f.lib)/restore?confirm=true", body: Data(buffer: backup.body)))
            #expect(over.status == .ok)
            #expect((over["library"] as? [String: Any])?["id"] as? String == f.libraryID)
            #expect((try await f.owner.get("\(f.lib)/titles")["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Keep me"])

            let garbage = try await send(f, .POST, "/api/v1/libraries/restore", body: Data("{\"format\":\"something else\"}".utf8))
            #expect(garbage.status == .unprocessableEntity)
            #expect(try await Library.query(on: app.db).count() == 1)

            #expect(try await send(f, .POST, "\(f.lib)/erase").status == .conflict)
            #expect(try await send(f, .POST, "\(f.lib)/erase?confirm=true").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/titles")["total"] as? Int == 0)
            #expect(try await f.owner.get("\(f.lib)").status == .ok)  // the library and its owner stay
        }
    }

    /// A restore as a new library whose process died half-way: the library it was writing is nobody's
    /// to see meanwhile (not listed, its pages 404, its public catalog neither), and once the job is
    /// found dead it is removed whole, so restoring again under the same name works.
    @Test func aRestoreAsNewThatDiesLeavesNothingAndFreesTheName() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 2)
            #expect(try await f.owner.patch(f.lib, ["publicCatalog": true]).status == .ok)
            let raw = Data(buffer: try await send(f, .GET, "\(f.lib)/backup").body)
            let backup = try Backup.decode(raw)
            let userID = try #require(try await User.query(on: app.db).filter(\.$username == "owner").first()?.requireID())
            let user = AuthenticatedUser(id: userID, username: "owner", displayName: "Owner")
            // The job's process writes the library, then is killed before it clears it.
            let job = try await Jobs.begin(.restore, library: nil, target: nil, user: userID, now: app.clock.now(), app: app)
            let half = try await Accounts.createLibrary(LibraryInput(name: "Half", loanPeriodDays: nil, maxRenewals: nil, publicCatalog: nil),
                                                        user: user, pendingJob: job, gate: app.writeGate, on: app.db)
            try await Backup.restore(backup, into: half.id, on: app.db, batches: app.writeGate)
            #expect(try await Title.query(on: app.db).inLibrary(half.id).count() == 1)
            let listed = try await f.owner.get("/api/v1/libraries").array.compactMap { $0["name"] as? String }
            #expect(!listed.contains("Half") && listed.count == 1, "\(listed)")
            #expect(try await f.owner.get("/api/v1/libraries/\(half.id)/titles").status == .notFound)
            #expect(try await f.owner.get("/api/v1/public/libraries/\(half.id)/titles").status == .notFound)
            // Its lease runs out: the job fails and the library goes with everything written into it.
            try await app.writeGate.transaction(on: app.db) { db in
                try await Jobs.expireLeases(now: app.clock.now().addingTimeInterval(3600), on: db)
            }
            #expect(try await Library.find(half.id, on: app.db) == nil)
            #expect(try await Title.query(on: app.db).inLibrary(half.id).count() == 0)
            #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM copies WHERE library_no NOT IN (SELECT no FROM libraries)").first()?
                .decode(column: "n", as: Int.self) == 0, "no copy is left of a library that is gone")
            // The name is free: the next try finishes and is seen.
            let again = try await f.owner.finished(try await send(f, .POST, "/api/v1/libraries/restore?name=Half",
                                                                 body: raw))
            #expect(again.status == .ok, "\(again.json)")
            let made = try #require((again["library"] as? [String: Any])?["id"] as? String)
            #expect(try await f.owner.get("/api/v1/libraries/\(made)/titles")["total"] as? Int == 1)
            #expect(try await Library.query(on: app.db).filter(\.$pendingJobID != nil).count() == 0)
        }
    }

    /// A restore over a library is written beside it and swapped in batch by batch (on SQLite
    /// one transaction of it held the only writer). Killed after it hid the library, or half-way through
    /// moving the rows in, the swap is finished by the next job that finds it dead: the library is then
    /// exactly the backup (its titles, copies, counts and search), nothing of the hidden library or of
    /// the old data is left in any table, and meanwhile the library was nobody's to see.
    @Test func aRestoreOverThatDiesHalfWayIsFinishedNotLeftHalfMade() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 2)
            try await f.addTitle("Krabat", copies: 1)
            let raw = Data(buffer: try await send(f, .GET, "\(f.lib)/backup").body)
            let backup = try Backup.decode(raw)
            let userID = try #require(try await User.query(on: app.db).filter(\.$username == "owner").first()?.requireID())
            let library = try #require(UUID(uuidString: f.libraryID))

            func expectTheBackup(_ context: String) async throws {
                let titles = try await f.owner.get("\(f.lib)/titles?sort=title")
                #expect(titles.status == .ok, "\(context)")
                #expect((titles["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Krabat", "Momo"], "\(context)")
                #expect(titles["total"] as? Int == 2, "\(context)")
                #expect(try await f.owner.get("\(f.lib)/titles?q=momo")["total"] as? Int == 1, "\(context): search")
                let no = try await LibraryNumber.read(library, on: app.db.sql)
                #expect(try await Copy.query(on: app.db).filter(\.$libraryNo == no).count() == 3, "\(context)")
                #expect(try await Library.query(on: app.db).count() == 1, "\(context): the hidden library is gone")
                let state = try await app.db.sql.raw("SELECT pending_job_id, restore_source_id FROM libraries").first()
                #expect(try state?.decodeNil(column: "pending_job_id") == true && state?.decodeNil(column: "restore_source_id") == true, "\(context)")
                // Not a row of any table names a library that is not there, by id or by number.
                struct Named: Decodable, Hashable { var name: String; var col: String }
                let tables: [Named]
                if Dialect(app.db) == .sqlite {
                    tables = try await app.db.sql.raw("""
                        SELECT m.name AS name, p.name AS col FROM sqlite_master m JOIN pragma_table_info(m.name) p
                        WHERE m.type = 'table' AND p.name IN ('library_id', 'library_no')
                        """).all(decoding: Named.self)
                } else {
                    tables = try await app.db.sql.raw("""
                        SELECT table_name::text AS name, column_name::text AS col FROM information_schema.columns
                        WHERE column_name IN ('library_id', 'library_no') AND table_schema = current_schema()
                        """).all(decoding: Named.self)
                }
                #expect(tables.contains(Named(name: "titles", col: "library_no")) && tables.contains(Named(name: "reads", col: "library_id")), "\(tables)")
                for table in tables {
                    // The sync log names a library by its number in its `library_id`.
                    let key = table.name == "sync_log" || table.col == "library_no" ? "no" : "id"
                    let stray = try await app.db.sql.raw("""
                        SELECT COUNT(*) AS n FROM \(ident: table.name) WHERE \(ident: table.col) IS NOT NULL AND \(ident: table.col) NOT IN (SELECT \(unsafeRaw: key) FROM libraries)
                        """).first()?.decode(column: "n", as: Int.self)
                    #expect(stray == 0, "\(context): \(table.name) has \(stray ?? -1) rows of no library")
                }
            }

            // The whole path, as the owner starts it.
            try await f.addTitle("Added after the backup", copies: 1)
            let over = try await f.owner.finished(try await send(f, .POST, "\(f.lib)/restore?confirm=true",
                                                                 body: raw))
            #expect(over.status == .ok, "\(over.json)")
            try await expectTheBackup("restored")

            // Killed right after hiding the library (step 2), then half-way through moving rows in (step 3).
            for stop in ["hidden", "moving"] {
                try await f.addTitle("Added after the backup", copies: 1)
                let job = try await Jobs.begin(.restore, library: library, target: library, user: userID, now: app.clock.now(), app: app)
                let (source, _) = try await Backup.beginSwap(backup, over: library, job: job, gate: app.writeGate, on: app.db)
                #expect(try await f.owner.get("\(f.lib)/titles").status == .notFound, "\(stop): hidden while it is swapped")
                if stop == "moving" {
                    try await Backup.eraseAll(libraryID: library, gate: app.writeGate, on: app.db)
                    try await app.db.sql.raw("UPDATE libraries SET restore_erased = \(bind: true) WHERE id = \(bind: library)").run()
                    try await app.db.sql.raw("""
                        UPDATE titles SET library_no = \(LibraryNumber.of(library)) WHERE id IN (SELECT id FROM titles WHERE library_no = \(LibraryNumber.of(source)) AND title = 'Momo')
                        """).run()
                }
                // Its job is found dead: neither library is removed, nothing else may write into it, and a new job finishes it.
                try await app.writeGate.transaction(on: app.db) { db in
                    try await Jobs.expireLeases(now: app.clock.now().addingTimeInterval(3600), on: db)
                }
                let (kept, keptSource) = (try await Library.find(library, on: app.db), try await Library.find(source, on: app.db))
                #expect(kept != nil && keptSource != nil, "\(stop)")
                await #expect(throws: JobError.self, "\(stop): an import waits for the swap") {
                    _ = try await Jobs.begin(.importFile, library: library, target: library, user: userID, now: app.clock.now(), app: app)
                }
                await Backup.resumeSwaps(app: app)
                let resumed = try #require(try await Library.find(library, on: app.db)?.pendingJobID, "\(stop)")
                #expect(resumed != job)
                await app.jobRunner.wait(resumed)
                let record = try await Jobs.find(resumed, user: userID, app: app)
                #expect(record.status == .done, "\(stop): \(record.failure ?? "")")
                try await expectTheBackup(stop)
            }
        }
    }

    @Test func theJSONExportIsTheWholeLibraryWithoutImages() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2)
            let json = try await send(f, .GET, "\(f.lib)/export?format=json")
            #expect(json.headers.first(name: .contentDisposition)?.contains("library.json") == true)
            let doc = try Backup.decode(Data(buffer: json.body))
            #expect(doc.titles.map(\.title) == ["Momo"])
            #expect(doc.copies.count == 2)
            #expect(doc.covers == nil)
        }
    }
}
