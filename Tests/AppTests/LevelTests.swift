import Foundation
import Testing
import Vapor
import VaporTesting
@testable import App

/// Reading levels: read into scheme and number, filtered by range on both databases,
/// set in bulk from a spreadsheet of ISBN → level.
@Suite(.serialized) struct LevelTests {
    /// "Every book at AR 3.0–4.5 on the shelves of room 12": a range of one scheme, with a shelf.
    @Test func aTeacherFindsEveryBookInALevelRangeOnAShelf() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let books: [(String, String, String)] = [("Holes", "AR 4.6 (7 pts)", "Room 12"), ("Momo", "ATOS 4.5", "Room 12"),
                                                      ("Matilda", "AR 5.0", "Room 12"), ("The Twits", "3.0 AR", "Room 12"),
                                                      ("Wonder", "AR 4.8", "Library"), ("Frindle", "AR 5.4", "Room 12"),
                                                      ("Charlotte's Web", "Lexile 680L", "Room 12"), ("Stig", "AR 3.9", "Library"),
                                                      ("Gruffalo", "GR M", "Room 12"), ("Emil", "Antolin 3", "Room 12"), ("Pippi", "blue band", "Room 12")]
            for (title, level, shelf) in books {
                _ = try await f.addTitle(title, extra: ["readingLevel": level, "location": shelf])
            }
            func titles(_ query: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?\(query)")
                #expect(reply.status == .ok, "\(query): \(reply.json)")
                return ((reply["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await titles("levelScheme=ar&levelMin=3.0&levelMax=4.5&location=Room%2012") == ["Momo", "The Twits"])
            #expect(try await titles("levelMin=3&levelMax=4.5") == ["Momo", "Stig", "The Twits"])
            #expect(try await titles("levelScheme=ar&levelMin=4.6") == ["Frindle", "Holes", "Matilda", "Wonder"])
            #expect(try await titles("levelScheme=lexile&levelMax=700") == ["Charlotte's Web"])
            #expect(try await titles("levelScheme=guided&levelMin=13&levelMax=13") == ["Gruffalo"])
            #expect(try await titles("levelScheme=antolin&levelMin=2&levelMax=3") == ["Emil"])
            #expect(try await titles("levelScheme=other") == ["Pippi"])
            // Bounds: a scheme that does not exist, a number that is not one.
            #expect(try await f.owner.get("\(f.lib)/titles?levelScheme=dra").errorField == "levelScheme")
            #expect(try await f.owner.get("\(f.lib)/titles?levelScheme=ar&levelMin=drei").errorField == "levelMin")
            #expect(try await f.owner.get("\(f.lib)/titles?levelMax=1e9").errorField == "levelMax")
            // A changed level moves the book into and out of the range.
            let holes = try await titlesID(f, "Holes")
            #expect(try await f.owner.patch("\(f.lib)/titles/\(holes)", ["readingLevel": "AR 4.2"]).status == .ok)
            #expect(try await titles("levelMin=3&levelMax=4.5&location=Room%2012") == ["Holes", "Momo", "The Twits"])
            // On the catalog page: the shelf and level form, open while they are chosen, the list narrowed to them.
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let page = try await browser.get("/libraries/\(f.libraryID)/catalog?shelf=Room+12&level=ar&levelMin=3&levelMax=4%2C5")
            #expect(page.status == .ok && page.html.contains("<details class=\"narrow card\" open>") && page.html.contains("Regal und Leseniveau"))
            #expect(page.html.contains(">Holes<") && page.html.contains(">Momo<") && page.html.contains(">The Twits<"), "\(page.html)")
            #expect(!page.html.contains(">Stig<") && !page.html.contains(">Matilda<") && !page.html.contains(">Wonder<"))
            // The chips keep the narrowing.
            #expect(page.html.contains("show=favorites&amp;shelf=Room%2012&amp;level=ar&amp;levelMin=3&amp;levelMax=4.5"), "\(page.html)")
        }
    }

    func titlesID(_ f: Fixture, _ title: String) async throws -> String {
        let items = (try await f.owner.get("\(f.lib)/titles?q=\(title)")["items"] as? [[String: Any]]) ?? []
        return try #require(items.first { $0["title"] as? String == title }?["id"] as? String)
    }

    /// A publisher's list of ISBNs and levels: every title with the ISBN gets its level; lines that are
    /// not an ISBN, have no level or name a book the catalog lacks are reported by line, in German too.
    @Test func levelsComeInFromASpreadsheet() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", isbn: "9783522202602")
            _ = try await f.addTitle("Holes", isbn: "9780747532699")
            let csv = """
                ISBN;Lexile
                978-3-522-20260-2;820L
                0747532699;AR 4.6 (7 pts)
                9780306406157;AR 3.0
                12345;AR 2.0
                9780747532699;

                """
            let reply = try await f.owner.send(.POST, "\(f.lib)/levels/import", rawBody: Data(csv.utf8), contentType: "text/csv")
            #expect(reply.status == .ok, "\(reply.json)")
            #expect(reply["rowsRead"] as? Int == 5 && reply["titlesUpdated"] as? Int == 2)
            let skipped = (reply["skipped"] as? [[String: Any]]) ?? [], failed = (reply["failed"] as? [[String: Any]]) ?? []
            #expect(skipped.map { $0["line"] as? Int } == [4] && failed.compactMap { $0["line"] as? Int } == [5, 6], "\(reply.json)")
            let momo = try await f.owner.get("\(f.lib)/titles?levelScheme=lexile&levelMin=800&levelMax=850")
            #expect(((momo["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Momo"])
            let holes = try await f.owner.get("\(f.lib)/titles?levelScheme=ar&levelMin=4.6&levelMax=4.6")
            #expect(((holes["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Holes"])
            // A file without the columns is refused, saying which are missing; volunteers may not set levels.
            let wrong = try await f.owner.send(.POST, "\(f.lib)/levels/import", rawBody: Data("Title,Author\nMomo,Ende\n".utf8), contentType: "text/csv")
            #expect(wrong.status == .unprocessableEntity && wrong.errorMessage?.contains("ISBN") == true)
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.send(.POST, "\(f.lib)/levels/import", rawBody: Data(csv.utf8), contentType: "text/csv").status == .forbidden)

            // The same on the Import & Export page, in German.
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let page = try await browser.upload("/libraries/\(f.libraryID)/exchange/levels", file: (field: "file", name: "levels.csv", data: Data(csv.utf8)))
            #expect(page.status == .ok && page.html.contains("Niveaus gesetzt: 2 Bücher · gelesene Zeilen: 5."), "\(page.html)")
            #expect(page.html.contains("Der Katalog hat kein Buch mit der ISBN 9780306406157."))
        }
    }
}
