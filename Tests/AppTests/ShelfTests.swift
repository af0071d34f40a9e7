import Fluent
import Foundation
import ShelfmarkImaging
import SQLKit
import Testing
import Vapor
import VaporTesting
@testable import App

/// Shelves as things and the stocktake: made from copies' locations, renamed with
/// their copies, books put on them by a scan, a stocktake that finds what is missing and misplaced,
/// the copies no stocktake has seen for a year, and the signs that open a shelf on a phone.
@Suite(.serialized) struct ShelfTests {
    static func copies(_ f: Fixture, _ title: String) async throws -> [[String: Any]] {
        (try await f.owner.get("\(f.lib)/titles/\(title)")["copies"] as? [[String: Any]]) ?? []
    }

    /// Every location text copies had becomes a shelf by the migration (none lost, each with a code),
    /// and a location given later makes its shelf too.
    @Test func locationsBecomeShelves() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", copies: 2, extra: ["location": "Room 12"])
            _ = try await f.addTitle("Holes", extra: ["location": "Bücherregal B3"])
            _ = try await f.addTitle("Stig", extra: ["location": "图画书"])
            _ = try await f.addTitle("Emil")
            // As before shelves (and before copies named their library by number): the copies' texts only.
            // The migration run again makes them shelves.
            try await onOneConnection(app) { try await CopiesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await CreateShelves().revert(on: $0) }
            try await (app.db as! any SQLDatabase).raw("UPDATE copies SET location = 'Room 12 ' WHERE location = 'Room 12' AND copy_number = 2").run()
            try await onOneConnection(app) { try await CreateShelves().prepare(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().prepare(on: $0) }
            let shelves = try await f.owner.get("\(f.lib)/shelves").array
            let byName = Dictionary(uniqueKeysWithValues: shelves.map { ($0["name"] as? String ?? "", $0) })
            #expect(Set(byName.keys) == ["Room 12", "Room 12 ", "Bücherregal B3", "图画书"], "\(shelves)")
            #expect(byName["Room 12"]?["code"] as? String == "ROOM12" && byName["Room 12 "]?["code"] as? String == "ROOM12-2")
            #expect(byName["Bücherregal B3"]?["code"] as? String == "BUCHERRE" && byName["图画书"]?["code"] as? String == "S")
            #expect(byName["Room 12"]?["copies"] as? Int == 1)
            // Natural order: B2 before B10.
            _ = try await f.addTitle("Frindle", extra: ["location": "B10"])
            _ = try await f.addTitle("Matilda", extra: ["location": "B2"])
            let names = try await f.owner.get("\(f.lib)/shelves").array.compactMap { $0["name"] as? String }
            #expect(names.firstIndex(of: "B2")! < names.firstIndex(of: "B10")!, "\(names)")
        }
    }

    @Test func shelvesAreMadeRenamedAndDeletedWithTheirBooks() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", isbn: "9783522202107", copies: 2, extra: ["location": "Room 12"])
            _ = try await f.addTitle("Holes", extra: ["location": "Room 12"])
            let made = try await f.owner.post("\(f.lib)/shelves", ["name": "Picture books", "room": "Room 4", "code": "b3"])
            #expect(made.status == .created && made.string("code") == "B3", "\(made.json)")
            let shelf = made.string("id")
            // Names are unique whatever their case; codes too; a code is letters and digits.
            #expect(try await f.owner.post("\(f.lib)/shelves", ["name": "picture BOOKS"]).errorCode == "shelf_name_taken")
            #expect(try await f.owner.post("\(f.lib)/shelves", ["name": "Other", "code": "B3"]).errorCode == "shelf_code_taken")
            #expect(try await f.owner.post("\(f.lib)/shelves", ["name": "Other", "code": "B 3!"]).errorField == "code")
            #expect(try await f.owner.post("\(f.lib)/shelves", ["name": " "]).errorField == "name")
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.post("\(f.lib)/shelves", ["name": "Mine"]).status == .forbidden)

            // A collection naming the shelf follows its rename, as do its copies.
            let room12 = try #require(try await f.owner.get("\(f.lib)/shelves").array.first { $0["name"] as? String == "Room 12" })
            #expect(try await f.owner.post("\(f.lib)/collections", ["name": "Room", "filter": ["shelf": "Room 12"]]).status == .created)
            let renamed = try await f.owner.patch("\(f.lib)/shelves/\(room12["id"] as! String)", ["name": "Room 12a", "room": "Upstairs"])
            #expect(renamed.string("name") == "Room 12a" && renamed.string("room") == "Upstairs" && renamed["copies"] as? Int == 3)
            #expect(try await Self.copies(f, momo).allSatisfy { $0["location"] as? String == "Room 12a" })
            #expect((try await f.owner.get("\(f.lib)/collections").array.first?["filter"] as? [String: Any])?["shelf"] as? String == "Room 12a")
            #expect(try await f.owner.get("\(f.lib)/titles?location=Room%2012a")["total"] as? Int == 2)

            // Books put on the new shelf by a scan: a barcode, then an ISBN (the copy not there yet).
            let barcodes = try await Self.copies(f, momo).compactMap { $0["barcode"] as? String }
            let first = try await volunteer.post("\(f.lib)/shelves/\(shelf)/copies", ["code": barcodes[0].lowercased()])
            #expect(first.status == .ok && first.string("from") == "Room 12a" && first.string("shelf") == "Picture books", "\(first.json)")
            let second = try await volunteer.post("\(f.lib)/shelves/\(shelf)/copies", ["code": "978-3-522-20210-7"])
            #expect(second.string("barcode") == barcodes[1], "\(second.json)")
            #expect(try await f.owner.get("\(f.lib)/shelves/\(shelf)")["copies"] as? Int == 2)
            #expect(try await volunteer.post("\(f.lib)/shelves/\(shelf)/copies", ["code": "NOPE-1"]).errorCode == "nothing_with_code")
            #expect(try await volunteer.post("\(f.lib)/shelves/\(shelf)/copies", ["code": "shelfmark:shelf:Room 12a"]).errorCode == "shelf_scanned")
            let viewer = try await f.staff("view", role: "viewer")
            #expect(try await viewer.post("\(f.lib)/shelves/\(shelf)/copies", ["code": barcodes[0]]).status == .forbidden)

            // Deleting a shelf with books is refused with their number; an empty one goes.
            let refused = try await f.owner.delete("\(f.lib)/shelves/\(shelf)")
            #expect(refused.status == .conflict && refused.errorCode == "shelf_not_empty")
            let empty = try await f.owner.post("\(f.lib)/shelves", ["name": "Empty"]).string("id")
            #expect(try await f.owner.delete("\(f.lib)/shelves/\(empty)").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/shelves/\(empty)").status == .notFound)
            // Another library's shelf is not found.
            #expect(try await f.owner.get("\(f.lib)/shelves/\(UUID())").errorCode == "shelf_not_found")
        }
    }

    /// A stocktake at a shelf: what is there, what belongs elsewhere (moved here), what the catalog
    /// says is lent, what it does not know; finished, the rest is kept as missing, with its date.
    @Test func aStocktakeFindsWhatIsMissingAndMisplaced() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            var titles: [String: String] = [:]
            for name in ["Momo", "Holes", "Stig", "Emil", "Frindle"] { titles[name] = try await f.addTitle(name, extra: ["location": "Room 12"]) }
            titles["Matilda"] = try await f.addTitle("Matilda", isbn: "9780142410370", extra: ["location": "Library"])
            func barcode(_ name: String) async throws -> String { try await Self.copies(f, titles[name]!).first!["barcode"] as! String }
            _ = try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": titles["Emil"]!]).status == .created)
            let shelf = try #require(try await f.owner.get("\(f.lib)/shelves").array.first { $0["name"] as? String == "Room 12" }?["id"] as? String)
            let volunteer = try await f.staff("vol", role: "volunteer")
            // The books came 400 days ago.
            try await (app.db as! any SQLDatabase).raw("UPDATE copies SET created_at = \(bind: clock.now.addingTimeInterval(-400 * 86_400))").run()
            let started = try await volunteer.post("\(f.lib)/shelves/\(shelf)/stocktakes")
            #expect(started.status == .created)
            let id = started.string("id")
            #expect(try await volunteer.post("\(f.lib)/shelves/\(shelf)/stocktakes").string("id") == id, "a second tap continues the same stocktake")

            func scan(_ code: String) async throws -> Client.Reply { try await volunteer.post("\(f.lib)/stocktakes/\(id)/scans", ["code": code]) }
            var answer = try await scan(try await barcode("Momo"))
            #expect(answer.string("outcome") == "here" && answer["found"] as? Int == 1 && answer["expected"] as? Int == 4, "\(answer.json)")
            answer = try await scan(try await barcode("Momo"))
            #expect(answer["again"] as? Bool == true && answer["found"] as? Int == 1)
            answer = try await scan(try await barcode("Holes"))
            #expect(answer.string("outcome") == "here")
            answer = try await scan("9780142410370")
            #expect(answer.string("outcome") == "elsewhere" && (answer["item"] as? [String: Any])?["location"] as? String == "Library", "\(answer.json)")
            answer = try await scan(try await barcode("Emil"))
            #expect(answer.string("outcome") == "on_loan")
            answer = try await scan("C999999")
            #expect(answer.string("outcome") == "unknown")
            #expect(try await scan("shelfmark:shelf:Library").errorCode == "shelf_scanned")

            var report = try await volunteer.get("\(f.lib)/stocktakes/\(id)")
            func titlesIn(_ group: String) -> [String] { ((report[group] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }.sorted() }
            #expect(titlesIn("here") == ["Holes", "Momo"] && titlesIn("misplaced") == ["Matilda"] && titlesIn("onLoan") == ["Emil"])
            #expect(titlesIn("notScanned") == ["Frindle", "Stig"] && (report["unknown"] as? [[String: Any]])?.first?["code"] as? String == "C999999")

            // Matilda is put on this shelf from the stocktake.
            #expect(try await volunteer.post("\(f.lib)/stocktakes/\(id)/move", [:]).json["moved"] as? Int == 1)
            #expect(try await Self.copies(f, titles["Matilda"]!).first?["location"] as? String == "Room 12")

            clock.advance(days: 1)
            let finished = try await volunteer.post("\(f.lib)/stocktakes/\(id)/finish")
            #expect(finished.status == .ok && finished["missing"] as? Int == 2 && finished["found"] as? Int == 3 && finished["misplaced"] as? Int == 0,
                    "\(finished.json)")
            #expect(try await volunteer.post("\(f.lib)/stocktakes/\(id)/finish")["missing"] as? Int == 2, "finishing twice changes nothing")
            #expect(try await scan(try await barcode("Stig")).errorCode == "stocktake_finished")
            report = try await volunteer.get("\(f.lib)/stocktakes/\(id)")
            #expect(titlesIn("notScanned") == ["Frindle", "Stig"] && report["expected"] as? Int == 5)
            let history = try await volunteer.get("\(f.lib)/shelves/\(shelf)/stocktakes").array
            #expect(history.count == 1 && history.first?["finishedAt"] != nil)
            #expect(try await f.owner.get("\(f.lib)/shelves/\(shelf)")["lastStocktake"] != nil)
            let viewer = try await f.staff("view", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/stocktakes/\(id)").status == .forbidden)

            // Not seen for a year: the two copies it did not find (the lent one is not on the shelf).
            let unseen = try await volunteer.get("\(f.lib)/stocktakes/unseen")
            #expect(((unseen["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Frindle", "Stig"] && unseen["total"] as? Int == 2,
                    "\(unseen.json)")
            #expect(try await volunteer.get("\(f.lib)/stocktakes/unseen?days=1000")["total"] as? Int == 0, "nothing is 1,000 days old")
            #expect(try await volunteer.get("\(f.lib)/stocktakes/unseen?days=0").errorField == "days")
        }
    }

    /// The signs: each shelf's name, room and code on the page, and its QR code — read back from
    /// the rendered page by our own reader — the address of the shelf's page.
    @Test func shelfSignsOpenTheShelf() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", extra: ["location": "Room 12"])
            let made = try await f.owner.post("\(f.lib)/shelves", ["name": "Leabhair Ghaeilge", "room": "Seomra 3", "code": "G1"])
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let (reply, pdf) = try await PrintTests.download(owner, "\(f.lib)/print/shelves.pdf")
            #expect(reply.status == .ok && reply.headers.first(name: "X-Item-Count") == "2")
            let words = try PrintTests.words(pdf)
            for word in ["Leabhair", "Ghaeilge", "Seomra", "G1", "Room", "ROOM12"] { #expect(words.contains { $0.text == word }, "\(word)") }
            // The first sign is the top left one (Leabhair Ghaeilge before Room 12).
            let sheet = ShelfCodeSheets.layout(.a4)
            let codes = try Self.qrCodes(pdf, x: sheet.left, y: sheet.top, width: 55, height: sheet.height)
            #expect(codes == ["http://127.0.0.1\(WebRoute.shelf(library: UUID(uuidString: f.libraryID)!, shelf: UUID(uuidString: made.string("id"))!).path)"]
                    || codes.first?.hasSuffix("/shelves/\(made.string("id"))") == true, "\(codes)")
            #expect(try PrintTests.pageCount(pdf) == 1)
            let (one, onePDF) = try await PrintTests.download(owner, "\(f.lib)/print/shelves.pdf?shelf=\(made.string("id"))&paper=letter")
            let oneWords = try PrintTests.words(onePDF)
            #expect(one.headers.first(name: "X-Item-Count") == "1" && !oneWords.contains { $0.text == "ROOM12" })
            let (preview, png) = try await PrintTests.download(owner, "\(f.lib)/print/shelves.png?page=1")
            #expect(preview.status == .ok && png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(try await PrintTests.download(owner, "\(f.lib)/print/shelves.png?page=2").0.status == .notFound)
            let (qr, svg) = try await PrintTests.download(owner, "\(f.lib)/shelves/\(made.string("id"))/qr.svg")
            #expect(qr.status == .ok && String(decoding: svg, as: UTF8.self).contains("/shelves/\(made.string("id"))"))
        }
    }

    static func qrCodes(_ pdf: Data, x: Double, y: Double, width: Double, height: Double) throws -> [String] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try pdf.write(to: dir.appendingPathComponent("sheet.pdf"))
        let px = { (mm: Double) in String(Int((mm / 25.4 * 200).rounded())) }
        _ = try PrintTests.run("/usr/bin/pdftoppm", ["-r", "200", "-f", "1", "-l", "1", "-x", px(x), "-y", px(y), "-W", px(width), "-H", px(height),
                                                     "-png", "-singlefile", dir.appendingPathComponent("sheet.pdf").path, dir.appendingPathComponent("sign").path])
        return try BarcodeReader(symbologies: [.qr]).read(try Data(contentsOf: dir.appendingPathComponent("sign.png"))).barcodes.map(\.text)
    }

    /// The shelves survive a backup and restore with their rooms and codes.
    @Test func shelvesComeBackFromABackup() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", extra: ["location": "Room 12"])
            #expect(try await f.owner.post("\(f.lib)/shelves", ["name": "Atlas", "room": "Hall", "code": "AT"]).status == .created)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            let backup = try await app.testing().sendRequest(.GET, "\(f.lib)/backup", headers: headers)
            #expect(try Backup.decode(Data(buffer: backup.body)).shelves?.map(\.name) == ["Atlas", "Room 12"])
            headers.replaceOrAdd(name: .contentType, value: "application/json")
            let accepted = try await app.testing().sendRequest(.POST, "/api/v1/libraries/restore?name=Copy", headers: headers, body: backup.body)
            let restored = try await f.owner.finished(Client.Reply(status: accepted.status, body: accepted.body, headers: accepted.headers))
            let copy = "/api/v1/libraries/\(try #require((restored["library"] as? [String: Any])?["id"] as? String))"
            let shelves = try await f.owner.get("\(copy)/shelves").array
            #expect(shelves.map { "\($0["name"] ?? "")|\($0["room"] ?? "-")|\($0["code"] ?? "")|\($0["copies"] ?? "")" } == ["Atlas|Hall|AT|0", "Room 12|-|ROOM12|1"],
                    "\(shelves)")
        }
    }

    /// A shelf's number of copies is kept as its copies change (`shelf_counts`, so the Shelves
    /// page reads a number instead of counting every copy on every shelf): added, lent, withdrawn, moved,
    /// renamed with their shelf, deleted with their book, restored over; each step compared with the
    /// copies counted one by one.
    @Test func aShelfsCountIsKeptAsItsCopiesChange() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let sql = app.db as! any SQLDatabase
            let library = try #require(UUID(uuidString: f.libraryID))
            func expectCounted(_ step: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
                struct Row: Decodable { var location: String; var n: Int }
                let counted = try await sql.raw("""
                    SELECT location, COUNT(*) AS n FROM copies
                    WHERE library_no = \(LibraryNumber.of(library)) AND location IS NOT NULL AND status <> 'withdrawn' GROUP BY location
                    """).all(decoding: Row.self)
                let truth = Dictionary(uniqueKeysWithValues: counted.map { ($0.location, $0.n) })
                let shelves = try await f.owner.get("\(f.lib)/shelves").array
                let shown = Dictionary(uniqueKeysWithValues: shelves.compactMap { s -> (String, Int)? in
                    guard let name = s["name"] as? String, let n = s["copies"] as? Int, n > 0 else { return nil }
                    return (name, n)
                })
                #expect(shown == truth, "\(step): the page shows \(shown), the copies are \(truth)", sourceLocation: sourceLocation)
                #expect(!truth.isEmpty || step == "deleted", "\(step)", sourceLocation: sourceLocation)
            }
            try await f.addMember("S1", "Ada")
            let momo = try await f.addTitle("Momo", copies: 3, extra: ["location": "Room 12"])
            let holes = try await f.addTitle("Holes", extra: ["location": "Room 12"])
            _ = try await f.addTitle("Emil", copies: 2, extra: ["location": "B2"])
            try await expectCounted("added")
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            let backup = try await app.testing().sendRequest(.GET, "\(f.lib)/backup", headers: headers)
            #expect(backup.status == .ok)

            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": momo]).status == .created)
            try await expectCounted("lent")
            let free = try await Self.copies(f, momo).filter { $0["status"] as? String == "available" }.compactMap { $0["id"] as? String }
            #expect(free.count == 2)
            #expect(try await f.owner.patch("\(f.lib)/copies/\(free[0])", ["status": "withdrawn"]).status == .ok)
            try await expectCounted("withdrawn")
            #expect(try await f.owner.patch("\(f.lib)/copies/\(free[1])", ["location": "B2"]).status == .ok)
            try await expectCounted("moved")
            #expect(try await f.owner.patch("\(f.lib)/copies/\(free[0])", ["status": "available", "location": "B2"]).status == .ok)
            try await expectCounted("back from withdrawal, on another shelf")
            let room12 = try #require(try await f.owner.get("\(f.lib)/shelves").array.first { $0["name"] as? String == "Room 12" }?["id"] as? String)
            #expect(try await f.owner.patch("\(f.lib)/shelves/\(room12)", ["name": "Room 12a"]).status == .ok)
            try await expectCounted("renamed")
            #expect(try await f.owner.delete("\(f.lib)/titles/\(holes)").status == .noContent)
            try await expectCounted("a book deleted")

            // Restored over: the backup's copies (3 on Room 12, 2 on B2) and nothing of what came after.
            headers.replaceOrAdd(name: .contentType, value: "application/json")
            let accepted = try await app.testing().sendRequest(.POST, "\(f.lib)/restore?confirm=true", headers: headers, body: backup.body)
            let over = try await f.owner.finished(Client.Reply(status: accepted.status, body: accepted.body, headers: accepted.headers))
            #expect(over.status == .ok, "\(over.json)")
            try await expectCounted("restored over")
            let shelves = try await f.owner.get("\(f.lib)/shelves").array
            #expect(shelves.first { $0["name"] as? String == "Room 12" }?["copies"] as? Int == 4, "\(shelves)")
            #expect(shelves.first { $0["name"] as? String == "B2" }?["copies"] as? Int == 2, "\(shelves)")
            // No count is left for a library that is gone (the restore's hidden one).
            let stray = try await sql.raw("SELECT COUNT(*) AS n FROM shelf_counts WHERE library_id NOT IN (SELECT id FROM libraries)").first()?
                .decode(column: "n", as: Int.self)
            #expect(stray == 0)
        }
    }

    /// On the web, as a volunteer with a keyboard-wedge scanner does it: the shelf's page, books put
    /// on it, a stocktake scanned and finished; another shelf's QR code scanned opens that shelf.
    @Test func shelvesAndStocktakeOnTheWeb() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", extra: ["location": "Room 12"])
            _ = try await f.addTitle("Holes", extra: ["location": "Room 12"])
            let stig = try await f.addTitle("Stig")
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            #expect(try await browser.post("\(web)/shelves", ["name": "Hall", "room": "Entrance", "code": ""]).status == .seeOther)
            let list = try await browser.get("\(web)/shelves")
            #expect(list.html.contains("Shelf “Hall” added.") && list.html.contains("Room 12") && list.html.contains("HALL"), "\(list.html)")
            let refused = try await browser.post("\(web)/shelves", ["name": "hall", "room": "", "code": ""])
            #expect(refused.status == .unprocessableEntity && refused.html.contains("A shelf is already called “Hall”."))
            let shelves = try await f.owner.get("\(f.lib)/shelves").array
            let hall = try #require(shelves.first { $0["name"] as? String == "Hall" }?["id"] as? String)
            let room = try #require(shelves.first { $0["name"] as? String == "Room 12" }?["id"] as? String)
            var page = try await browser.get("\(web)/shelves/\(hall)")
            #expect(page.html.contains("Shelf Hall") && page.html.contains("/shelves/\(hall)/qr.svg") && page.html.contains("Put books on this shelf"))
            // Stig has no place yet: it goes to Hall.
            let stigCode = try await Self.copies(f, stig).first!["barcode"] as! String
            var sent = try await browser.post("\(web)/shelves/\(hall)/books", ["code": stigCode])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("“Stig” (\(stigCode)) is now on Hall."), "\(page.html)")
            sent = try await browser.post("\(web)/shelves/\(hall)/books", ["code": "NOPE"])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("No copy or book of this library has the code “NOPE”."))
            // Where the books stand, in the results and on the book's page (linked to the shelf).
            page = try await browser.get("\(web)/catalog?q=stig")
            #expect(page.html.contains("<span class=\"shelf\">Shelf Hall</span>"), "\(page.html)")
            #expect((try await f.owner.get("\(f.lib)/titles?q=momo")["items"] as? [[String: Any]])?.first?["shelves"] as? [String] == ["Room 12"])
            page = try await browser.get("\(web)/titles/\(stig)")
            #expect(page.html.contains("href=\"\(web)/shelves/\(hall)\">Shelf Hall</a>"), "\(page.html)")
            // Room 12's QR code scanned at Hall opens Room 12.
            sent = try await browser.post("\(web)/shelves/\(hall)/books", ["code": "http://192.168.1.20:8080\(web)/shelves/\(room)"])
            #expect(sent.location?.hasPrefix("\(web)/shelves/\(room)") == true)

            // The stocktake of Room 12: Momo scanned, Stig (Hall's) found here and moved, Holes missing.
            sent = try await browser.post("\(web)/shelves/\(room)/stocktake", [:])
            let stocktake = try #require(sent.location)
            page = try await browser.get(stocktake)
            #expect(page.html.contains("Stocktake: Room 12") && page.html.contains("Scanned on this shelf: 0 of 2") && page.html.contains("autofocus"))
            let momoCode = try await Self.copies(f, momo).first!["barcode"] as! String
            sent = try await browser.post("\(stocktake)/scan", ["code": momoCode])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("✓ “Momo”: on its shelf.") && page.html.contains("Scanned on this shelf: 1 of 2"), "\(page.html)")
            sent = try await browser.post("\(stocktake)/scan", ["code": stigCode])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("“Stig” belongs on Hall.") && page.html.contains("Belongs elsewhere (1)") && page.html.contains("Not scanned yet (1)"))
            sent = try await browser.post("\(stocktake)/move", [:])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("Books moved to this shelf: 1") && !page.html.contains("Belongs elsewhere ("))
            sent = try await browser.post("\(stocktake)/finish", [:])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("Stocktake finished and kept.") && page.html.contains("Missing (1)") && page.html.contains("Holes")
                    && page.html.contains("Found 2 · missing 1 · elsewhere 0 · unknown 0"), "\(page.html)")
            // In German.
            browser.language = "de"
            page = try await browser.get(stocktake)
            #expect(page.html.contains("Inventur: Room 12") && page.html.contains("Fehlt (1)"))
            page = try await browser.get("\(web)/stocktakes/unseen")
            #expect(page.status == .ok && page.html.contains("Seit einem Jahr nicht gesehen"))
            page = try await browser.get("\(web)/shelf-signs")
            #expect(page.html.contains("/api/v1/libraries/\(f.libraryID)/print/shelves.pdf?paper=a4"))
            // Deleting a shelf with books is refused, said on its page.
            sent = try await browser.post("\(web)/shelves/\(room)/delete", [:])
            page = try await browser.get(sent.location!)
            #expect(page.html.contains("Bücher in diesem Regal: 3."), "\(page.html)")
        }
    }
}
