import Foundation
import SQLKit
import Testing
import Vapor
import VaporTesting
@testable import App

/// Smart collections: saved filters, as chips on the catalog, in the API and in printing.
@Suite(.serialized) struct CollectionTests {
    @Test func aCollectionKeepsItsFilterAndPrintsItsLabels() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            for (title, level, shelf) in [("Holes", "AR 4.6", "Room 12"), ("Momo", "AR 4.5", "Room 12"), ("The Twits", "AR 3.1", "Room 12"),
                                          ("Stig", "AR 3.9", "Library"), ("Frindle", "AR 5.4", "Room 12")] {
                _ = try await f.addTitle(title, extra: ["readingLevel": level, "location": shelf])
            }
            // Old Momo: added 40 days ago (the collection of "added in the last 31 days" leaves it out).
            let twits = try await f.owner.get("\(f.lib)/titles?q=twits")
            let twitsID = try #require(((twits["items"] as? [[String: Any]]) ?? []).first?["id"] as? String)
            try await (app.db as! any SQLDatabase).raw("UPDATE titles SET created_at = \(bind: Date().addingTimeInterval(-40 * 86_400)) WHERE id = \(bind: UUID(uuidString: twitsID)!)").run()

            let made = try await owner.post("\(f.lib)/collections", ["name": "Room 12 · AR 3–4.5",
                                                                     "filter": ["shelf": "Room 12", "levelScheme": "ar", "levelMin": 3, "levelMax": 4.5]])
            #expect(made.status == .created, "\(made.json)")
            let id = made.string("id")
            var titles = try await owner.get("\(f.lib)/collections/\(id)/titles")
            #expect(((titles["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Momo", "The Twits"])
            // Narrowed to the last 31 days: the Twits are older.
            #expect(try await owner.patch("\(f.lib)/collections/\(id)", ["filter": ["shelf": "Room 12", "levelMin": 3, "levelMax": 4.5, "addedWithinDays": 31]]).status == .ok)
            titles = try await owner.get("\(f.lib)/collections/\(id)/titles")
            #expect(((titles["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Momo"])
            // Its labels: Momo's one copy.
            let (labels, pdf) = try await PrintTests.download(owner, "\(f.lib)/print/labels.pdf?collection=\(id)")
            #expect(labels.status == .ok && labels.headers.first(name: "X-Item-Count") == "1")
            #expect(try PrintTests.words(pdf).contains { $0.text == "Momo" })
            // Names are unique whatever their case; bounds; who may.
            #expect(try await owner.post("\(f.lib)/collections", ["name": "room 12 · ar 3–4.5", "filter": [:] as [String: Any]]).status == .conflict)
            #expect(try await owner.post("\(f.lib)/collections", ["name": "x", "filter": ["addedWithinDays": 0]]).errorField == "addedWithinDays")
            #expect(try await owner.post("\(f.lib)/collections", ["name": " ", "filter": [:] as [String: Any]]).errorField == "name")
            // A number far out of range is refused, not a crash.
            #expect(try await owner.post("\(f.lib)/collections", ["name": "Huge", "filter": ["levelMin": -1.7976931348623157e308]]).errorField == "levelMin")
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.post("\(f.lib)/collections", ["name": "Mine", "filter": [:] as [String: Any]]).status == .forbidden)
            #expect(try await volunteer.get("\(f.lib)/collections").array.count == 1)
            #expect(try await owner.get("\(f.lib)/print/labels.pdf?collection=\(UUID())").status == .notFound)

            // On the web: saved from the narrowed catalog, a chip that shows the same books, deleted again.
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            let saved = try await browser.post("\(web)/collections", ["name": "Easy reads", "shelf": "Room 12", "level": "ar", "levelMin": "3", "levelMax": "4.5",
                                                                        "available": "true"])
            #expect(saved.status == .seeOther && saved.location?.contains("show=col-") == true, "\(saved.html)")
            let chip = try await browser.get(saved.location!)
            #expect(chip.html.contains("★ Easy reads") && chip.html.contains(">Momo<") && chip.html.contains(">The Twits<") && !chip.html.contains(">Holes<"),
                    "\(chip.html)")
            let list = try await browser.get("\(web)/collections")
            #expect(list.html.contains("Easy reads") && list.html.contains("/labels?collection="))
            let easy = try #require(try await owner.get("\(f.lib)/collections").array.first { $0["name"] as? String == "Easy reads" }?["id"] as? String)
            #expect(try await browser.post("\(web)/collections/\(easy)/delete", [:]).status == .seeOther)
            #expect(try await owner.get("\(f.lib)/collections").array.count == 1)
        }
    }

    /// A backup carries the collections; a restore as a new library brings them back with their
    /// category mapped to the restored one, so the chip shows the same books.
    @Test func collectionsComeBackFromABackup() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Emil", extra: ["categories": ["Krimi"]])
            _ = try await f.addTitle("Momo")
            let category = try #require(try await f.owner.get("\(f.lib)/categories").array.first?["id"] as? String)
            #expect(try await f.owner.post("\(f.lib)/collections", ["name": "Krimis", "filter": ["categoryId": category]]).status == .created)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            let backup = try await app.testing().sendRequest(.GET, "\(f.lib)/backup", headers: headers)
            let decoded = try Backup.decode(Data(buffer: backup.body))
            #expect(backup.status == .ok && decoded.collections?.map(\.name) == ["Krimis"])
            headers.replaceOrAdd(name: .contentType, value: "application/json")
            let accepted = try await app.testing().sendRequest(.POST, "/api/v1/libraries/restore?name=Copy", headers: headers, body: backup.body)
            let restored = try await f.owner.finished(Client.Reply(status: accepted.status, body: accepted.body, headers: accepted.headers))
            #expect(restored.status == .ok, "\(restored.json)")
            let copy = "/api/v1/libraries/\(try #require((restored["library"] as? [String: Any])?["id"] as? String))"
            let collections = try await f.owner.get("\(copy)/collections").array
            let restoredCategory = try await f.owner.get("\(copy)/categories").array.first?["id"] as? String
            #expect(collections.count == 1 && (collections.first?["filter"] as? [String: Any])?["categoryId"] as? String == restoredCategory)
            #expect(restoredCategory != category)
            let id = try #require(collections.first?["id"] as? String)
            let titles = try await f.owner.get("\(copy)/collections/\(id)/titles")
            #expect(((titles["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Emil"])
        }
    }
}
