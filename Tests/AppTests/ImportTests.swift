@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkReplay
import Testing
import Vapor

private func upload(_ f: Fixture, _ body: String, query: String = "", encoding: String.Encoding = .utf8) async throws -> Client.Reply {
    try await uploadData(f, body.data(using: encoding)!, query: query, type: "text/csv")
}

/// Uploads a file to the import and waits for its job: the report (200) when it is done, the job's
/// error (422) when it failed, the refusal itself when no job started.
private func uploadData(_ f: Fixture, _ data: Data, query: String = "", type: String = "application/octet-stream") async throws -> Client.Reply {
    var headers = HTTPHeaders()
    headers.bearerAuthorization = .init(token: f.owner.token!)
    headers.replaceOrAdd(name: .contentType, value: type)
    let response = try await f.app.testing().sendRequest(.POST, "\(f.lib)/import\(query)", headers: headers, body: ByteBuffer(data: data))
    let reply = Client.Reply(status: response.status, body: response.body, headers: response.headers)
    guard reply.status == .accepted else { return reply }
    // The job as it stood when the upload was answered: running, or already ended when it was quick.
    #expect(["running", "done", "failed"].contains(reply["state"] as? String ?? ""), "\(reply.json)")
    let job = try await f.owner.finished(reply)
    guard job.status == .ok, let report = job["report"] else { return Client.Reply(status: job.status, body: job.body, headers: job.headers) }
    return Client.Reply(status: .ok, body: ByteBuffer(data: try JSONSerialization.data(withJSONObject: report)), headers: job.headers)
}

private func notes(_ reply: Client.Reply, _ key: String) -> [(Int, String)] {
    (reply[key] as? [[String: Any]] ?? []).map { ($0["line"] as? Int ?? 0, $0["reason"] as? String ?? "") }
}

@Suite struct ImportAPITests {
    static let catalog = #"""
        ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes
        9780306406157,Signals and Shelves,Maren Okafor,2,2,en,Plenum Press,2019,312,"Shelf B, top"
        ,No Author Here,,1,1,,,,,
        9780316030571,Use of Weapons,Iain M. Banks,1,1,en,Orbit,2008,480,
        978-0-306-40615-8,Bad ISBN,Someone,1,1,,,,,
        ,"Momo",Michael Ende,3,3,de,Thienemann,1973,304,"two
        lines"
        """#

    @Test func goodRowsLandBadRowsAreReportedByLine() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let reply = try await upload(f, Self.catalog)
            #expect(reply.status == .ok, "\(reply.json)")
            #expect(reply["titlesCreated"] as? Int == 4)
            #expect(reply["copiesAdded"] as? Int == 7)
            #expect(reply["rowsRead"] as? Int == 5)
            let failed = notes(reply, "failed")
            #expect(failed.map(\.0) == [3])
            #expect(failed[0].1.contains("Author"))
            // A bad ISBN does not drop the book: imported without it, and the report says so by line.
            let warned = notes(reply, "warnings")
            #expect(warned.map(\.0) == [5])
            #expect(warned.first?.1.contains("check digit") == true)
            let list = try await f.owner.get("\(f.lib)/titles?limit=50")
            #expect((list["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Bad ISBN", "Momo", "Signals and Shelves", "Use of Weapons"])
            let momo = try #require((list["items"] as? [[String: Any]])?.first { $0["title"] as? String == "Momo" })
            let detail = try await f.owner.get("\(f.lib)/titles/\(momo["id"] as! String)")
            #expect(detail.string("notes") == "two\nlines")
            #expect((detail["copies"] as? [Any])?.count == 3)
            let activity = try await f.owner.get("\(f.lib)/activity?type=import")
            #expect(activity.array.first?["info"] as? String == "4 titles, 7 copies from Shelfmark catalog CSV")

            // Again: existing ISBNs are skipped, or get their copies added.
            let again = try await upload(f, Self.catalog)
            #expect(notes(again, "skipped").map(\.0) == [2, 4])
            let copies = try await upload(f, Self.catalog, query: "?existing=copies")
            #expect(copies["copiesAdded"] as? Int == 3 + 3 + 1)  // 2 + 1 onto existing titles; a second Momo (no ISBN) with 3 and a second "Bad ISBN" (its ISBN left out) with 1
        }
    }

    /// The same ISBN on several lines of one file: under `existing=copies` each later line's copies join
    /// the title the first line made, also when that line brought none (its title is written first).
    @Test func anISBNTwiceInAFileGivesItsCopiesToTheTitleItsFirstLineMade() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let csv = """
                ISBN,Title,Author,Total Copies,Available Copies
                9780306406157,Signals and Shelves,Maren Okafor,0,0
                9780306406157,Signals and Shelves,Maren Okafor,2,2
                9780316030571,Use of Weapons,Iain M. Banks,1,1
                9780316030571,Use of Weapons,Iain M. Banks,1,1
                9780316030571,Use of Weapons,Iain M. Banks,3,3
                """
            func copies() async throws -> [String: Int] {
                let list = try await f.owner.get("\(f.lib)/titles?limit=50")
                var counts: [String: Int] = [:]
                for item in list["items"] as? [[String: Any]] ?? [] {
                    let detail = try await f.owner.get("\(f.lib)/titles/\(item["id"] as! String)")
                    counts[item["title"] as! String] = (detail["copies"] as? [Any])?.count
                }
                return counts
            }
            let first = try await upload(f, csv, query: "?existing=copies")
            #expect(first.status == .ok, "\(first.json)")
            #expect(first["titlesCreated"] as? Int == 2)
            #expect(first["copiesAdded"] as? Int == 7)
            #expect(notes(first, "failed").isEmpty)
            #expect(try await copies() == ["Signals and Shelves": 2, "Use of Weapons": 5])
            // Again: every line adds its copies to the title already there.
            let again = try await upload(f, csv, query: "?existing=copies")
            #expect(again["titlesCreated"] as? Int == 0)
            #expect(again["copiesAdded"] as? Int == 7)
            #expect(try await copies() == ["Signals and Shelves": 4, "Use of Weapons": 10])
        }
    }

    /// Real exports' identifiers (an ASIN, an ISBN-10 a spreadsheet cut short) never drop a
    /// book; a generic CSV's copies column is honoured; a backup chosen as an import says to restore it.
    @Test func identifiersFromRealExportsAreKeptOrRepaired() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let reply = try await upload(f, """
                Title,Author,ISBN,Copies
                Kindle Book,Ann Author,B07MNWKF2M,1
                Penguin Classic,Old Author,140143505,2
                """)
            #expect(reply.status == .ok, "\(reply.json)")
            #expect(reply["titlesCreated"] as? Int == 2)
            #expect(reply["copiesAdded"] as? Int == 3)
            #expect(notes(reply, "warnings").map(\.0) == [2, 3])
            let asin = try await app.db.sql.raw("SELECT asin FROM titles WHERE title = 'Kindle Book'").first()?.decode(column: "asin", as: String?.self)
            #expect(asin == "B07MNWKF2M")
            let penguin = try await f.owner.get("\(f.lib)/titles?q=penguin")
            #expect((penguin["items"] as? [[String: Any]])?.first?["isbn13"] as? String == "9780140143508")

            let backup = try await f.owner.get("\(f.lib)/backup")
            let asImport = try await uploadData(f, Data(buffer: backup.body), type: "application/json")
            #expect(asImport.status == .unprocessableEntity)
            #expect(asImport.errorMessage?.contains("use Restore") == true, "\(asImport.errorMessage ?? "")")
        }
    }

    @Test func aMalformedFileStopsAtTheLineAndKeepsExactlyTheRowsBefore() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let broken = "isbn,title,author\n9780306406157,Signals,Okafor\n,\"Unclosed,Nobody\n,Never,Read\n"
            let reply = try await upload(f, broken)
            #expect(reply.status == .ok)
            #expect(reply["titlesCreated"] as? Int == 1)
            #expect((reply["stoppedAt"] as? String)?.contains("Line 3, column 2") == true)
            #expect(try await Title.query(on: app.db).count() == 1)

            let garbage = try await upload(f, "\u{1}\u{2}binary\u{0}junk")
            #expect(garbage.status == .unprocessableEntity)
            #expect(garbage.errorField == "format")
            let unknown = try await upload(f, "isbn,title\n", query: "?format=exotic")
            #expect(unknown.status == .unprocessableEntity)
            #expect(unknown.errorMessage?.contains("goodreads") == true)
            let missingColumns = try await upload(f, "ISBN,Title,Author\n1,2,3\n", query: "?format=csv")
            #expect(missingColumns.status == .unprocessableEntity)
            #expect(missingColumns.errorMessage?.contains("Line 1") == true)
            #expect(try await Title.query(on: app.db).count() == 1)
        }
    }

    /// A Goodreads export brings the importer's reading history (shelves, Date Read, Read Count,
    /// My Rating; a custom "dnf" shelf), a StoryGraph export its date ranges; importing it again does not
    /// double it; the history goes out again in Goodreads' layout.
    /// Goodreads writes a series into the title: "A Desolation Called Peace (Teixcalaan, #2)". The import
    /// takes it out into series and number; the series page lists the volumes in order and the missing ones.
    @Test func goodreadsSeriesInTitlesBecomeSeries() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let goodreads = #"""
                Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
                1,"A Desolation Called Peace (Teixcalaan, #2)",Arkady Martine,"Martine, Arkady",,,,0,4.3,Tor,Hardcover,496,2021,2021,,2021/03/02,,,to-read,,,,0,1
                2,"A Memory Called Empire (Teixcalaan, #1)",Arkady Martine,"Martine, Arkady",,,,0,4.2,Tor,Paperback,462,2019,2019,,2020/01/10,,,to-read,,,,0,1
                3,"Mort (Discworld, #4; Death, #1)",Terry Pratchett,"Pratchett, Terry",,,,0,4.3,Corgi,Paperback,272,1987,1987,,2022/05/01,,,to-read,,,,0,1
                4,"Reaper Man (Discworld, #11; Death, #2)",Terry Pratchett,"Pratchett, Terry",,,,0,4.3,Corgi,Paperback,287,1991,1991,,2022/05/01,,,to-read,,,,0,1
                5,"The Colour of Magic (Discworld, #1; Rincewind #1)",Terry Pratchett,"Pratchett, Terry",,,,0,4.0,Corgi,Paperback,288,1983,1983,,2022/05/01,,,to-read,,,,0,1
                6,Catch-22 (#1),Joseph Heller,"Heller, Joseph",,,,0,4.0,Vintage,Paperback,544,1961,1961,,2022/05/01,,,to-read,,,,0,1
                """#
            let report = try await upload(f, goodreads)
            #expect(report.status == .ok, "\(report.json)")
            let titles = try await f.owner.get("\(f.lib)/titles?series=Teixcalaan")
            let items = (titles["items"] as? [[String: Any]]) ?? []
            #expect(Set(items.compactMap { $0["title"] as? String }) == ["A Desolation Called Peace", "A Memory Called Empire"])
            let catch22 = try await f.owner.get("\(f.lib)/titles?q=catch")
            #expect(((catch22["items"] as? [[String: Any]]) ?? []).first?["title"] as? String == "Catch-22 (#1)")

            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let page = try await browser.get("/libraries/\(f.libraryID)/series?name=Discworld")
            #expect(page.status == .ok && page.html.contains("Volumes in the library: 3"), "\(page.html)")
            // In order 1, 4, 11; missing 2, 3, 5–10.
            let colour = page.html.range(of: "The Colour of Magic")!.lowerBound, mort = page.html.range(of: ">Mort<")!.lowerBound
            let reaper = page.html.range(of: "Reaper Man")!.lowerBound
            #expect(colour < mort && mort < reaper)
            #expect(page.html.contains("Not in the library: volume 2, 3, 5, 6, 7, 8, 9, 10"), "\(page.html)")
            let index = try await browser.get("/libraries/\(f.libraryID)/series")
            #expect(index.html.contains("Discworld (3)") && index.html.contains("Teixcalaan (2)"))
            // The second series of each is kept too: Death lists Mort as 1 and Reaper Man as 2, Rincewind the Colour of Magic.
            #expect(index.html.contains("Death (2)") && index.html.contains("Rincewind (1)"), "\(index.html)")
            let death = try await browser.get("/libraries/\(f.libraryID)/series?name=Death")
            #expect(death.html.contains("Volumes in the library: 2") && death.html.contains("Volume 1") && death.html.contains("Volume 2"), "\(death.html)")
            #expect(death.html.range(of: ">Mort<")!.lowerBound < death.html.range(of: "Reaper Man")!.lowerBound)
            let mortID = try #require(((try await f.owner.get("\(f.lib)/titles?q=mort"))["items"] as? [[String: Any]])?.first?["id"] as? String)
            let mortDetail = try await f.owner.get("\(f.lib)/titles/\(mortID)")
            #expect(mortDetail["series"] as? String == "Discworld" && mortDetail["seriesNumber"] as? String == "4")
            #expect((mortDetail["moreSeries"] as? [[String: Any]])?.map { "\($0["name"] as? String ?? "") #\($0["number"] as? String ?? "")" } == ["Death #1"])
            let book = try await browser.get("/libraries/\(f.libraryID)/titles/\(mortID)")
            #expect(book.html.contains("Discworld · Volume 4") && book.html.contains("Death · Volume 1"), "\(book.html)")
        }
    }

    @Test func aTitleInTwoSeriesKeepsBothThroughEditsBackupAndMARC() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let mort = try await f.addTitle("Mort", authors: ["Terry Pratchett"], extra: ["series": "Discworld", "seriesNumber": "4",
                                                                                           "moreSeries": [["name": "Death", "number": "1"]]])
            #expect((try await f.owner.get("\(f.lib)/titles/\(mort)")["moreSeries"] as? [[String: Any]])?.first?["name"] as? String == "Death")
            #expect(((try await f.owner.get("\(f.lib)/titles?series=Death"))["items"] as? [Any])?.count == 1)
            // Bounds: five at most, names within theirs; the title's own series is not listed again.
            let six = try await f.owner.patch("\(f.lib)/titles/\(mort)", ["moreSeries": (1...6).map { ["name": "S\($0)"] }])
            #expect(six.status == .unprocessableEntity && six.errorField == "moreSeries")
            let long = try await f.owner.patch("\(f.lib)/titles/\(mort)", ["moreSeries": [["name": String(repeating: "x", count: 301)]]])
            #expect(long.status == .unprocessableEntity && long.errorField == "moreSeries.0.name")
            let same = try await f.owner.patch("\(f.lib)/titles/\(mort)", ["moreSeries": [["name": "discworld"], ["name": "Death", "number": "1"]]])
            #expect((same["moreSeries"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Death"])

            // The edit page shows and saves them as a list.
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let edit = try await browser.get("/libraries/\(f.libraryID)/titles/\(mort)/edit")
            #expect(edit.html.contains("value=\"Death #1\""), "\(edit.html)")

            // Backup and restore keep both; so does a MARC export read back into another library (two 490s).
            let backup = try await f.owner.get("\(f.lib)/backup")
            #expect(String(buffer: backup.body).contains(#""titleSeries":[{"name":"Death","number":"1","position":2"#))
            let accepted = try await f.owner.send(.POST, "/api/v1/libraries/restore?name=Copy", rawBody: Data(buffer: backup.body), contentType: "application/json")
            let restored = try await f.owner.finished(accepted)
            #expect(restored.status == .ok, "\(restored.json)")
            let copyID = try #require((restored["library"] as? [String: Any])?["id"] as? String)
            let inCopy = try #require(((try await f.owner.get("/api/v1/libraries/\(copyID)/titles?series=Death"))["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect((try await f.owner.get("/api/v1/libraries/\(copyID)/titles/\(inCopy)")["moreSeries"] as? [[String: Any]])?.first?["number"] as? String == "1")

            let (_, exported) = try await PrintTests.download(f.owner, "\(f.lib)/export?format=marcxml")
            let record = try #require(MARCXMLReader.read(exported).records.compactMap { try? $0.result.get() }.first)
            #expect(record.fields("490").map { $0["a"] ?? "" } == ["Discworld", "Death"])
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Annex"])
            let annex = "/api/v1/libraries/\(other.string("id"))"
            let upload = try await f.owner.send(.POST, "\(annex)/import", rawBody: exported, contentType: "application/marcxml+xml")
            #expect(try await f.owner.finished(upload).status == .ok)
            let imported = try #require(((try await f.owner.get("\(annex)/titles?series=Death"))["items"] as? [[String: Any]])?.first?["id"] as? String)
            let detail = try await f.owner.get("\(annex)/titles/\(imported)")
            #expect(detail["series"] as? String == "Discworld")
            #expect((detail["moreSeries"] as? [[String: Any]])?.first?["name"] as? String == "Death")

            // Without a series of its own, the first of a list becomes its own.
            let solo = try await f.addTitle("Small Gods", authors: ["Terry Pratchett"], extra: ["moreSeries": [["name": "Discworld", "number": "13"], ["name": "Gods"]]])
            let soloDetail = try await f.owner.get("\(f.lib)/titles/\(solo)")
            #expect(soloDetail["series"] as? String == "Discworld" && soloDetail["seriesNumber"] as? String == "13")
            #expect((soloDetail["moreSeries"] as? [[String: Any]])?.map { $0["name"] as? String } == ["Gods"])
        }
    }

    @Test func goodreadsAndStoryGraphBringTheReadingHistory() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let goodreads = #"""
                Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
                1,Matilda,Roald Dahl,"Dahl, Roald",,"=""0142410373""","=""9780142410370""",4,4.3,Puffin,Paperback,240,2007,1988,2021/03/02,2020/12/24,"read, favourites",,read,,,,2,1
                2,Momo,Michael Ende,"Ende, Michael",,,"=""9780306406157""",0,4.2,Thienemann,Hardcover,300,1973,1973,,2024/01/10,currently-reading,,currently-reading,,,,0,1
                3,Krabat,Otfried Preußler,"Preußler, Otfried",,,"=""9780140143508""",0,4.1,Thienemann,Hardcover,320,1971,1971,,2022/05/01,dnf,,dnf,,,,0,1
                """#
            let report = try await upload(f, goodreads)
            #expect(report.status == .ok, "\(report.json)")
            var reads = try await f.owner.get("\(f.lib)/reads?limit=100").array
            #expect(reads.count == 4, "\(reads)")
            let matilda = reads.filter { $0["title"] as? String == "Matilda" }
            #expect(matilda.count == 2 && matilda.allSatisfy { $0["status"] as? String == "finished" })
            #expect(matilda.contains { ($0["finishedAt"] as? String)?.hasPrefix("2021-03-02") == true && $0["rating"] as? Double == 4 })
            #expect(reads.contains { $0["title"] as? String == "Momo" && $0["status"] as? String == "reading" })
            #expect(reads.contains { $0["title"] as? String == "Krabat" && $0["status"] as? String == "did_not_finish" })
            let stats = try await f.owner.get("\(f.lib)/reading/stats?year=2021")
            #expect(stats["books"] as? Int == 1 && stats["pages"] as? Int == 240)
            // The same file again: the history is not doubled.
            _ = try await upload(f, goodreads)
            #expect(try await f.owner.get("\(f.lib)/reads?limit=100").array.count == 4)

            let storyGraph = """
                Title,Authors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Dates Read,Read Count,Star Rating,Review,Tags,Owned?
                Der Räuber Hotzenplotz,Otfried Preußler,,hardcover,read,2021/01/01,2021/01/20,"2020/06/01-2020/06/09, 2021/01/05-2021/01/20",2,4.5,,,Yes
                """
            #expect(try await upload(f, storyGraph).status == .ok)
            reads = try await f.owner.get("\(f.lib)/reads?limit=100").array
            let hotzenplotz = reads.filter { $0["title"] as? String == "Der Räuber Hotzenplotz" }
            #expect(hotzenplotz.count == 2)
            #expect(hotzenplotz.contains { ($0["startedAt"] as? String)?.hasPrefix("2021-01-05") == true && ($0["finishedAt"] as? String)?.hasPrefix("2021-01-20") == true })

            let export = try await f.owner.get("\(f.lib)/reading/export")
            #expect(export.status == .ok)
            let csv = String(buffer: export.body)
            #expect(csv.hasPrefix("Book Id,Title,Author,"))
            #expect(csv.contains("Matilda,Roald Dahl,,0142410373,9780142410370,4,Puffin,240,2007,2021/03/02"), "\(csv)")
            #expect(csv.contains("currently-reading") && csv.contains("did-not-finish"))
            // It imports back as a Goodreads export.
            let header = String(csv.prefix { $0 != "\r" && $0 != "\n" }).split(separator: ",").map { String($0) }
            #expect(ImportFormat.detect(header: header) == .goodreads)
        }
    }

    @Test func goodreadsAndLatin1LibraryThingKeepTheirData() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let goodreads = #"""
                Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
                2767052,"The Hunger Games (The Hunger Games, #1)",Suzanne Collins,"Collins, Suzanne",,"=""0439023483""","=""9780439023481""",5,4.33,Scholastic Press,Hardcover,374,2008,2008,2021/03/02,2020/12/24,"young-adult, dystopia","young-adult (#3), dystopia (#1)",read,,,,1,1
                """#
            let g = try await upload(f, goodreads)
            #expect(g.string("format") == "Goodreads export")
            let list = try await f.owner.get("\(f.lib)/titles?q=hunger")
            let item = try #require((list["items"] as? [[String: Any]])?.first)
            #expect(item["isbn13"] as? String == "9780439023481")
            #expect(item["rating"] as? Double == 5)
            let detail = try await f.owner.get("\(f.lib)/titles/\(item["id"] as! String)")
            #expect(Set((detail["categories"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []) == ["young-adult", "dystopia"])

            let tsv = "Book Id\tTitle\tPrimary Author\tISBN\tTags\tCopies\n1\tDie unendliche Geschichte\tEnde, Michael\t[3522128001]\tMärchen\t1\n"
            let lt = try await upload(f, tsv, encoding: .isoLatin1)
            #expect(lt.string("format") == "LibraryThing export")
            #expect(lt.string("encoding") == "Windows-1252")
            let ende = try await f.owner.get("\(f.lib)/titles?q=unendliche")
            let book = try #require((ende["items"] as? [[String: Any]])?.first)
            #expect(book["authors"] as? [String] == ["Michael Ende"])
            let categories = try await f.owner.get("\(f.lib)/categories")
            #expect(categories.array.contains { $0["name"] as? String == "Märchen" })
        }
    }

    @Test func exportThenImportIsTheSameCatalog() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await upload(f, Self.catalog)
            let exported = try await f.owner.get("\(f.lib)/export?format=csv")
            #expect(exported.headers.first(name: .contentDisposition)?.contains("library_catalog.csv") == true)
            let csv = String(buffer: exported.body)
            #expect(csv.hasPrefix("ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes\r\n"))
            // A–Z by title, each line whole, counts from the copies.
            let momo = try #require(csv.range(of: ",Momo,Michael Ende,3,3,de,Thienemann,1973,304,\"two"))
            let signals = try #require(csv.range(of: "\r\n9780306406157,Signals and Shelves,Maren Okafor,2,2,en,Plenum Press,2019,312,\"Shelf B, top\"\r\n"))
            let weapons = try #require(csv.range(of: "\r\n9780316030571,Use of Weapons,Iain M. Banks,1,1,en,Orbit,2008,480,\r\n"))
            #expect(momo.lowerBound < signals.lowerBound && signals.lowerBound < weapons.lowerBound)
            // The same export from inside a transaction already open (SQLite reads it under a savepoint).
            let libraryID = try #require(UUID(uuidString: f.libraryID))
            let inside = try await app.db.transaction { tx in try await Exporter.export(.csv, libraryID: libraryID, now: Date(), on: tx) }
            #expect(String(decoding: inside, as: UTF8.self) == csv)
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Annex"])
            let annex = Fixture(app: app, owner: f.owner, libraryID: other.string("id"))
            let reimport = try await upload(annex, csv)
            #expect(reimport["titlesCreated"] as? Int == 4)
            #expect(notes(reimport, "failed").isEmpty)
            let again = String(buffer: try await f.owner.get("\(annex.lib)/export?format=csv").body)
            #expect(again == csv)
        }
    }

    /// MARC 21 and MARCXML exports load back as the same catalog (record for record, apart from
    /// the control number and the copies' barcodes, which belong to the library that made them).
    @Test(arguments: ["marc", "marcxml"])
    func marcExportThenImportIsTheSameCatalog(format: String) async throws {
        try await withTestApp { app in
            // setup
            let f = try await Fixture.make(app)
            _ = try await upload(f, Self.catalog)
            try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 2,
                                 extra: ["subtitle": "oder Die seltsame Geschichte", "categories": ["Fantasy", "Kinderbuch"], "series": "Ende",
                                         "seriesNumber": "1", "description": "Zeit & <Diebe>", "language": "de", "publisher": "Thienemann",
                                         "publishedDate": "1973", "pageCount": 304, "notes": "Shelf B"])
            let homer = try await f.addTitle("Homer alone", authors: ["Homer"], copies: 1)
            // MUT
            let exported = try await f.owner.get("\(f.lib)/export?format=\(format)")
            #expect(exported.status == .ok)
            // Categories (650) and each countable copy's barcode (852) are in the file.
            let text = String(decoding: Data(buffer: exported.body), as: UTF8.self)
            #expect(text.contains("Fantasy") && text.contains("Kinderbuch"))
            #expect(text.contains("C000001") && text.contains("C000002"))
            // A record's control number is its title's id (lower case).
            #expect(text.contains(homer.lowercased()), "no control number \(homer.lowercased())")
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Annex"])
            let annex = Fixture(app: app, owner: f.owner, libraryID: other.string("id"))
            let reimport = try await uploadData(annex, Data(buffer: exported.body))
            // validate
            #expect(reimport.status == .ok, "\(reimport.json)")
            #expect(reimport["titlesCreated"] as? Int == 6, "\(reimport.json)")
            #expect(notes(reimport, "failed").isEmpty)
            #expect(reimport["unit"] as? String == (format == "marc" ? "record" : "line"))
            func records(_ body: ByteBuffer) -> [MARCRecord] {
                let data = Data(buffer: body)
                let all = format == "marc" ? MARC21Reader(data).compactMap { try? $0.result.get() }
                    : MARCXMLReader.read(data).records.compactMap { try? $0.result.get() }
                // Two titles named "Momo": equal sort keys, so their order is the ids' — compare as sets.
                return all.map { var r = $0; r.fields.removeAll { $0.tag == "001" || $0.tag == "852" }; return r }
                    .sorted { String(describing: $0) < String(describing: $1) }
            }
            let again = try await f.owner.get("\(annex.lib)/export?format=\(format)")
            #expect(records(again.body) == records(exported.body))
            #expect(records(exported.body).count == 6)
            func lines(_ lib: String) async throws -> [String] {
                String(buffer: try await f.owner.get("\(lib)/export?format=csv").body).components(separatedBy: "\r\n").sorted()
            }
            #expect(try await lines(annex.lib) == lines(f.lib))
        }
    }

    @Test func libraryThingJSONAndBrokenMARCAreReportedByRecord() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let json = """
                {"7": {"books_id": "7", "title": "Momo", "authors": [{"lf": "Ende, Michael", "fl": "Michael Ende"}],
                       "isbn": {"0": "3522128001", "2": "9783522128001"}, "tags": ["fantasy"], "rating": "4", "copies": "2"},
                 "8": {"books_id": "8", "title": "Bad", "isbn": ["12345"]}}
                """
            let lt = try await upload(f, json)
            #expect(lt["format"] as? String == "LibraryThing JSON export")
            #expect(lt["titlesCreated"] as? Int == 1)
            #expect(lt["copiesAdded"] as? Int == 2)
            #expect(notes(lt, "failed").map(\.0) == [2])
            let momo = try await f.owner.get("\(f.lib)/titles?q=momo")
            let item = try #require((momo["items"] as? [[String: Any]])?.first)
            #expect(item["isbn13"] as? String == "9783522128001")
            #expect(item["rating"] as? Double == 4)

            // Three records, the middle one broken: two land, the report names record 2.
            var good = MARCRecord(fields: [.data("245", "0", "0", [.init("a", "First")])])
            let one = MARC21Writer.data(good)
            good.fields = [.data("245", "0", "0", [.init("a", "Third")])]
            var broken = Array(MARC21Writer.data(good))
            broken.replaceSubrange(12..<17, with: Array("99999".utf8))
            let marc = try await uploadData(f, one + Data(broken) + MARC21Writer.data(good))
            #expect(marc["titlesCreated"] as? Int == 2)
            #expect(notes(marc, "failed").map(\.0) == [2])
            #expect(notes(marc, "failed").first?.1.contains("leader") == true)
        }
    }

    /// Text lands as it was written on both databases: PostgreSQL takes a batch's rows as the text of one
    /// `COPY`, where a tab, a line break, a backslash and `\N` mean something, and a list is an array literal.
    @Test func textWithCopysSeparatorsLandsAsWritten() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let csv = #"""
                ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes
                9780306406157,"C:\Temp \N {braces} ""quoted""","Fl\ann ""O"" {Brien}",2,2,en,Back\slash Press,2019,312,"tab\#there\nnot a line
                and \N, ""then"" {}"
                """#
            let reply = try await upload(f, csv)
            #expect(reply["titlesCreated"] as? Int == 1, "\(reply.json)")
            #expect(reply["copiesAdded"] as? Int == 2)
            let list = try await f.owner.get("\(f.lib)/titles?limit=5")
            let item = try #require((list["items"] as? [[String: Any]])?.first)
            let detail = try await f.owner.get("\(f.lib)/titles/\(item["id"] as! String)")
            #expect(detail.string("title") == #"C:\Temp \N {braces} "quoted""#)
            #expect(detail["authors"] as? [String] == [#"Fl\ann "O" {Brien}"#])
            #expect(detail.string("publisher") == #"Back\slash Press"#)
            #expect(detail.string("notes") == "tab\there\\nnot a line\nand \\N, \"then\" {}")
            let copies = try #require(detail["copies"] as? [[String: Any]])
            #expect(copies.count == 2)
            #expect(Set(copies.compactMap { $0["status"] as? String }) == ["available"])
            // The times written with the rows read back as the moment of the import.
            let added = try #require(ISO8601DateFormatter().date(from: detail.string("createdAt")))
            #expect(abs(added.timeIntervalSinceNow) < 120)
            // Found by a word of each field the search reads.
            #expect(try await f.owner.get("\(f.lib)/titles?q=braces")["total"] as? Int == 1)
        }
    }

    @Test func importAsANewLibrary() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            let made = try await app.testing().sendRequest(.POST, "/api/v1/libraries/import?name=Annex", headers: headers,
                                                            body: ByteBuffer(string: Self.catalog))
            #expect(made.status == .accepted)
            let reply = try await f.owner.finished(Client.Reply(status: made.status, body: made.body, headers: made.headers))
            #expect(reply.status == .ok)
            let library = try #require(reply["library"] as? [String: Any])
            #expect(library["name"] as? String == "Annex")
            #expect((reply["report"] as? [String: Any])?["titlesCreated"] as? Int == 4)
            let annex = Fixture(app: app, owner: f.owner, libraryID: library["id"] as! String)
            #expect(try await f.owner.get("\(annex.lib)/titles")["total"] as? Int == 4)
            // A file refused as a whole leaves no empty library behind.
            let refused = try await app.testing().sendRequest(.POST, "/api/v1/libraries/import?name=Nothing", headers: headers,
                                                               body: ByteBuffer(string: "\u{1}\u{2}binary\u{0}junk"))
            let refusedJob = try await f.owner.finished(Client.Reply(status: refused.status, body: refused.body, headers: refused.headers))
            #expect(refusedJob.status == .unprocessableEntity)
            #expect(refusedJob["state"] as? String == "failed")
            #expect(try await Library.query(on: app.db).filter(\.$name == "Nothing").count() == 0)
        }
    }

    @Test func aListOfISBNsIsLookedUp() async throws {
        let server = try await ReplayServer.start()
        do {
            try await withTestApp { app in
                app.metadataConfig = MetadataConfig(endpoints: .replay(server.baseURL), timeout: .seconds(30))
                let f = try await Fixture.make(app)
                let reply = try await upload(f, "9780306406157\n0-316-03057-0\n9781111111113\nnot an isbn\n")
                #expect(reply["titlesCreated"] as? Int == 2)
                #expect(notes(reply, "failed").map(\.0) == [3, 4])
                let list = try await f.owner.get("\(f.lib)/titles")
                #expect((list["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Signals and Shelves", "Use of Weapons"])
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}

