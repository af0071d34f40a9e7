@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import ShelfmarkPDF
import ShelfmarkReplay
import SQLKit
import Testing
import Vapor
import VaporTesting

/// Copy cataloguing from national libraries, call numbers in shelf order and on spine labels.
@Suite(.serialized) struct CataloguersDeskTests {
    static let tschick = "9783871347108"

    @Test func theAdministratorOrdersTheBookSourcesAndAChangeEmptiesTheCache() async throws {
        try await withReplayProviders { app, server in
            let f = try await Fixture.make(app)
            let standard = try await f.owner.get("/api/v1/server/book-sources")
            #expect(standard.status == .ok)
            let listed = (standard.json["sources"] as? [[String: Any]]) ?? []
            #expect(listed.map { $0["id"] as? String } == ["google_books", "open_library", "dnb", "loc", "k10plus"])
            #expect(listed.map { $0["position"] as? Int } == [1, 2, nil, nil, nil])

            // Google and Open Library do not know this German book.
            let before = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": Self.tschick])
            #expect(before["found"] as? Bool == false)
            #expect(await server.requests(.dnb) == 0)

            let librarian = try await f.staff("lib", role: "librarian")
            let refused = try await librarian.patch("/api/v1/server/book-sources", ["order": ["dnb"]])
            #expect(refused.status == .forbidden)
            let none = try await f.owner.patch("/api/v1/server/book-sources", ["order": [String]()])
            #expect(none.status == .unprocessableEntity)
            #expect(none.errorField == "order")
            let twice = try await f.owner.patch("/api/v1/server/book-sources", ["order": ["dnb", "dnb"]])
            #expect(twice.status == .unprocessableEntity)
            #expect(twice.errorMessage == "Deutsche Nationalbibliothek is in the order twice: name each source once.")
            let unknown = try await f.owner.patch("/api/v1/server/book-sources", ["order": ["worldcat"]])
            #expect(unknown.status == .badRequest)

            let saved = try await f.owner.patch("/api/v1/server/book-sources", ["order": ["dnb", "google_books", "k10plus"]])
            #expect(saved.status == .ok, "\(saved.json)")
            let order = ((saved.json["sources"] as? [[String: Any]]) ?? []).filter { $0["position"] != nil }.map { $0["id"] as? String }
            #expect(order == ["dnb", "google_books", "k10plus"])
            // The cached "not found" went with the change: the DNB is asked and knows it.
            let after = try await f.owner.post("/api/v1/lookup/isbn", ["isbn": Self.tschick])
            #expect(after["found"] as? Bool == true)
            let record = try #require(after["record"] as? [String: Any])
            #expect(record["title"] as? String == "Tschick")
            let sources = (record["fieldSources"] as? [[String: Any]]) ?? []
            #expect(sources.contains { $0["field"] as? String == "title" && $0["provider"] as? String == "dnb" })
            #expect(sources.contains { $0["field"] as? String == "description" && $0["provider"] as? String == "k10plus" })
            #expect(await server.requests(.dnb) == 1)
            #expect(await server.requests(.loc) == 0)   // not chosen, not asked
        }
    }

    @Test func aGermanBookIsCataloguedFromTheDNBAndItsCallNumberPrintedOnASpineLabel() async throws {
        try await withReplayProviders { app, _ in
            let f = try await Fixture.make(app)
            _ = try await f.owner.patch("/api/v1/server/book-sources", ["order": ["google_books", "open_library", "dnb"]])
            // By ISBN alone: the DNB's record fills the title and suggests the call number.
            let added = try await f.owner.post("\(f.lib)/titles", ["isbn": Self.tschick, "copies": 2])
            #expect(added.status == .created, "\(added.json)")
            #expect(added.string("title") == "Tschick")
            #expect(added.string("callNumber") == "833.92 HER")
            #expect(added["hasMarcRecord"] as? Bool == true)
            let id = added.string("id")

            // The MARC record as the DNB sent it.
            let (marcReply, marc) = try await PrintTests.download(f.owner, "\(f.lib)/titles/\(id)/marc")
            #expect(marcReply.status == .ok)
            #expect(marcReply.headers.contentType?.description.hasPrefix("application/marcxml+xml") == true)
            let text = String(decoding: marc, as: UTF8.self)
            #expect(text.contains(#"<controlfield tag="001">1000646386</controlfield>"#))
            #expect(text.contains(#"<subfield code="a">833.92</subfield>"#))
            let parsed = MARCXMLReader.read(marc)
            #expect(parsed.failure == nil && parsed.records.count == 1)
            // A title typed in keeps none.
            let typed = try await f.addTitle("Momo", authors: ["Michael Ende"])
            let noMARC = try await f.owner.get("\(f.lib)/titles/\(typed)/marc")
            #expect(noMARC.status == .notFound)
            #expect(noMARC.errorCode == "no_marc_record")

            // The spine label carries the call number broken across lines: "833.92" above "HER".
            let (reply, pdf) = try await PrintTests.download(f.owner, "\(f.lib)/print/labels.pdf?layout=spine-70x16.9&title=\(id)")
            #expect(reply.status == .ok)
            let words = try PrintTests.words(pdf)
            let classes = words.filter { $0.text == "833.92" }
            let cutters = words.filter { $0.text == "HER" }
            #expect(classes.count == 2 && cutters.count == 2, "\(words.map(\.text))")
            if let dewey = classes.first, let cutter = cutters.first {
                #expect(cutter.y > dewey.bottom - 0.2, "HER on the line under 833.92")
                #expect(abs((cutter.x + cutter.right) / 2 - (dewey.x + dewey.right) / 2) < 1, "both centred on the label")
            }

            // A copy of its own on the reference shelf: its label says so, the other keeps the title's.
            let copies = (added.json["copies"] as? [[String: Any]]) ?? []
            let reference = try #require(copies.last?["id"] as? String)
            let own = try await f.owner.patch("\(f.lib)/copies/\(reference)", ["callNumber": "REF 833.92 HER"])
            #expect(own.status == .ok, "\(own.json)")
            #expect(own.string("callNumber") == "REF 833.92 HER")
            let (_, both) = try await PrintTests.download(f.owner, "\(f.lib)/print/labels.pdf?layout=spine-70x16.9&title=\(id)")
            let texts = try PrintTests.words(both).map(\.text)
            #expect(texts.filter { $0 == "REF" }.count == 1 && texts.filter { $0 == "833.92" }.count == 2, "\(texts)")
            _ = try await f.owner.patch("\(f.lib)/copies/\(reference)", ["callNumber": ""])
            let detail = try await f.owner.get("\(f.lib)/titles/\(id)")
            #expect(((detail.json["copies"] as? [[String: Any]]) ?? []).allSatisfy { $0["callNumber"] == nil })

            // The call number can be changed and removed; bounded.
            let changed = try await f.owner.patch("\(f.lib)/titles/\(id)", ["callNumber": "  J   833.92  HER "])
            #expect(changed.string("callNumber") == "J 833.92 HER")
            let tooLong = try await f.owner.patch("\(f.lib)/titles/\(id)", ["callNumber": String(repeating: "8", count: 61)])
            #expect(tooLong.status == .unprocessableEntity)
            #expect(tooLong.errorField == "callNumber")
            let cleared = try await f.owner.patch("\(f.lib)/titles/\(id)", ["callNumber": ""])
            #expect(cleared.json["callNumber"] == nil)

            // The backup keeps both.
            _ = try await f.owner.patch("\(f.lib)/titles/\(id)", ["callNumber": "833.92 HER"])
            let (_, backup) = try await PrintTests.download(f.owner, "\(f.lib)/backup")
            let dump = String(decoding: backup, as: UTF8.self)
            #expect(dump.contains(#""call_number":"833.92 HER""#))
            #expect(dump.contains("1000646386"))

            // The MARC export gives the DNB's record as it came, with this library's copies and call number (852).
            let (_, exported) = try await PrintTests.download(f.owner, "\(f.lib)/export?format=marcxml")
            let records = MARCXMLReader.read(exported).records.compactMap { try? $0.result.get() }
            let dnb = try #require(records.first { $0.control("001") == "1000646386" })
            #expect(dnb.fields("082").count == 2)                       // both classifications, as sent
            #expect(dnb.fields("852").count == 2)
            #expect(dnb.fields("852").allSatisfy { $0["h"] == "833.92 HER" && $0["p"] != nil })
            let momo = try #require(records.first { $0.first("245", "a") == "Momo" })
            #expect(momo.fields("852").count == 1 && momo.fields("852")[0]["h"] == nil)
            // Imported into another library, the call number comes back from the holdings.
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Annex"])
            let annex = "/api/v1/libraries/\(other.string("id"))"
            let upload = try await f.owner.send(.POST, "\(annex)/import", rawBody: exported, contentType: "application/marcxml+xml")
            #expect(upload.status == .accepted, "\(upload.json)")
            #expect(try await f.owner.finished(upload).status == .ok)
            let shelf = try await f.owner.get("\(annex)/titles?sort=shelf")
            let items = (shelf.json["items"] as? [[String: Any]]) ?? []
            #expect(items.map { $0["title"] as? String } == ["Tschick", "Momo"])
            #expect(items.first?["callNumber"] as? String == "833.92 HER")
        }
    }

    @Test func theCatalogListsInShelfOrder() async throws {
        try await withReplayProviders { app, _ in
            let f = try await Fixture.make(app)
            let books: [(String, String?)] = [("Children of Time", "823.92 TCH"), ("Animals", "J 590 ANI"), ("Harry Potter", "823.914 ROW"),
                                              ("No Number", nil), ("Swift", "005.133 SWI"), ("Emma", "823.7 AUS"), ("Birds", "J 590.3 BEE"),
                                              ("Byron", "F BYR")]
            for (title, callNumber) in books {
                try await f.addTitle(title, extra: callNumber.map { ["callNumber": $0] } ?? [:])
            }
            let expected = ["Swift", "Emma", "Harry Potter", "Children of Time", "Byron", "Animals", "Birds", "No Number"]
            let all = try await f.owner.get("\(f.lib)/titles?sort=shelf")
            #expect(((all.json["items"] as? [[String: Any]]) ?? []).map { $0["title"] as? String } == expected)
            #expect(((all.json["items"] as? [[String: Any]]) ?? []).first?["callNumber"] as? String == "005.133 SWI")
            // Paged: the same order across pages.
            var paged: [String] = []
            for offset in stride(from: 0, to: 8, by: 3) {
                let page = try await f.owner.get("\(f.lib)/titles?sort=shelf&limit=3&offset=\(offset)")
                paged += ((page.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(paged == expected)

            // The printed catalog in shelf order, under the classes: 000, 800, F, J, then those without one.
            #expect(CatalogSheets.callNumberGroup("823.914 ROW") == "800")
            #expect(CatalogSheets.callNumberGroup("J 590 ANI") == "J")
            #expect(CatalogSheets.callNumberGroup("PR6120.C43 C45") == "PR")
            let (printed, pdf) = try await PrintTests.download(f.owner, "\(f.lib)/print/catalog.pdf?group=call-number")
            #expect(printed.status == .ok)
            let words = try PrintTests.words(pdf).map(\.text)
            func at(_ word: String) -> Int { words.firstIndex(of: word) ?? -1 }
            #expect(at("Swift") < at("Emma") && at("Emma") < at("Harry") && at("Harry") < at("Children")
                    && at("Children") < at("Byron") && at("Byron") < at("Animals") && at("Animals") < at("Birds") && at("Birds") < at("No"),
                    "\(words)")
            #expect(words.contains("800") && words.contains("005.133"))

            // The catalog page in shelf order, in German.
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let libraryID = f.libraryID
            let first = try await browser.get("/libraries/\(libraryID)/catalog?sort=shelf")
            #expect(first.status == .ok)
            #expect(first.html.contains("Regalordnung"))
            let order = expected.compactMap { title in first.html.range(of: ">\(title)<").map { (title, $0.lowerBound) } }
            #expect(order.map(\.0) == expected, "\(order.map(\.0))")
            #expect(first.html.contains("005.133 SWI"))
        }
    }

    @Test func theAddPageSaysWhereEachFieldCameFromAndKeepsTheRecord() async throws {
        try await withReplayProviders { app, _ in
            var browser = Browser(app: app)
            browser.language = "de"
            let home = try await browser.setUp()
            let libraryID = try #require(home.split(separator: "/").dropFirst().first.map(String.init))
            let base = "/libraries/\(libraryID)"
            // The administrator turns the national libraries on in Book sources.
            let sourcesPage = try await browser.get("\(base)/book-sources")
            #expect(sourcesPage.status == .ok)
            #expect(sourcesPage.html.contains("Buchquellen"))
            let clash = try await browser.post("\(base)/book-sources", ["position_dnb": "1", "position_google_books": "1"])
            #expect(clash.status == .unprocessableEntity)
            #expect(clash.html.contains("Zwei Quellen haben denselben Platz"))
            let saved = try await browser.post("\(base)/book-sources", ["position_dnb": "1", "position_google_books": "2", "position_k10plus": "3"])
            #expect(saved.status == .seeOther)

            let draft = try await browser.get("\(base)/add?isbn=\(Self.tschick)")
            #expect(draft.status == .ok)
            #expect(draft.html.contains("Woher dieser Datensatz stammt"))
            #expect(draft.html.contains("Deutsche Nationalbibliothek: Titel"), "\(draft.html)")
            #expect(draft.html.contains("K10plus (GBV/SWB): Beschreibung"))
            #expect(draft.html.contains(#"name="callNumber""#) && draft.html.contains(#"value="833.92 HER""#))
            let added = try await browser.post("\(base)/add", ["isbn": Self.tschick, "title": "Tschick", "subtitle": "Roman",
                                                                "authors": "Wolfgang Herrndorf", "copies": "1", "callNumber": "833.92 HER"])
            #expect(added.status == .seeOther)
            let page = try await browser.get(try #require(added.location))
            #expect(page.html.contains("Signatur"))
            #expect(page.html.contains("833.92 HER"))
            #expect(page.html.contains("Katalogdatensatz (MARC)"))
            #expect(page.html.contains("Herrndorf, Wolfgang"))
            #expect(page.html.contains("MARCXML herunterladen"))
        }
    }

    @Test func theCatalogAndCollectionsFilterByRatingAndByYourReading() async throws {
        try await withReplayProviders { app, _ in
            let f = try await Fixture.make(app)
            let alpha = try await f.addTitle("Alpha", extra: ["rating": 5])
            let beta = try await f.addTitle("Beta", extra: ["rating": 2])
            let gamma = try await f.addTitle("Gamma")
            try await f.addTitle("Delta")
            let ann = try await f.addMember("C1", "Ann")
            // Readers' ratings count with the library's own: Beta (2, 5) is 3.5, Gamma (4) is 4.
            for (title, rating) in [(beta, 5), (gamma, 4)] {
                let read = try await f.owner.post("\(f.lib)/reads", ["titleId": title, "memberId": ann, "status": "finished", "rating": rating])
                #expect(read.status == .created, "\(read.json)")
            }
            // The owner's own reading: Alpha finished, Gamma under way, Beta wanted.
            for (title, status) in [(alpha, "finished"), (gamma, "reading"), (beta, "want_to_read")] {
                #expect(try await f.owner.post("\(f.lib)/reads", ["titleId": title, "status": status]).status == .created)
            }
            func titles(_ query: String, as client: Client? = nil) async throws -> [String] {
                let reply = try await (client ?? f.owner).get("\(f.lib)/titles?\(query)")
                #expect(reply.status == .ok, "\(query): \(reply.json)")
                return ((reply.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await titles("minRating=4") == ["Alpha", "Gamma"])
            #expect(try await titles("minRating=3.5") == ["Alpha", "Beta", "Gamma"])
            #expect(try await titles("readStatus=finished") == ["Alpha"])
            #expect(try await titles("readStatus=reading") == ["Gamma"])
            #expect(try await titles("readStatus=want_to_read") == ["Beta"])
            #expect(try await titles("readStatus=unread") == ["Beta", "Delta", "Gamma"])
            #expect(try await titles("readStatus=unread&minRating=4") == ["Gamma"])
            // Counted past a page and by A–Z section: the catalog less what the reader finished (Alpha).
            let counted = try await f.owner.get("\(f.lib)/titles?readStatus=unread&limit=1&sections=true")
            #expect(counted.json["total"] as? Int == 3, "\(counted.json)")
            let sections = ((counted.json["sections"] as? [[String: Any]]) ?? []).map { "\($0["letter"] ?? "")\($0["count"] ?? "")" }
            #expect(sections == ["B1", "D1", "G1"], "\(counted.json)")
            let inG = try await f.owner.get("\(f.lib)/titles?readStatus=unread&limit=1&section=G")
            #expect(inG.json["total"] as? Int == 1 && (inG.json["items"] as? [[String: Any]])?.first?["title"] as? String == "Gamma")
            // Someone else's reading is their own.
            let librarian = try await f.staff("lib", role: "librarian")
            #expect(try await titles("readStatus=finished", as: librarian).isEmpty)
            let wrong = try await f.owner.get("\(f.lib)/titles?readStatus=maybe")
            #expect(wrong.status == .badRequest || wrong.status == .unprocessableEntity)
            #expect(wrong.errorField == "readStatus")

            // A smart collection keeps both; each person sees it with their own reading.
            let saved = try await f.owner.post("\(f.lib)/collections", ["name": "Good, not read yet",
                                                                     "filter": ["minRating": 4, "readStatus": "unread"]])
            #expect(saved.status == .created, "\(saved.json)")
            let collection = saved.string("id")
            let own = try await f.owner.get("\(f.lib)/collections/\(collection)/titles")
            #expect(((own.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Gamma"])
            let theirs = try await librarian.get("\(f.lib)/collections/\(collection)/titles")
            #expect(((theirs.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Alpha", "Gamma"])

            // The catalog page narrows the same way, in German.
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let page = try await browser.get("/libraries/\(f.libraryID)/catalog?rating=4&reading=unread")
            #expect(page.status == .ok)
            #expect(page.html.contains(">Gamma<") && !page.html.contains(">Alpha<") && !page.html.contains(">Delta<"))
            #expect(page.html.contains("Bewertung"))
            #expect(page.html.contains(#"<option value="unread" selected>"#))
        }
    }

    /// "Not finished by me" is counted as the kept counts less the reader's finished books: the total,
    /// the A–Z sections and where each letter starts equal counting the titles themselves.
    @Test func notFinishedByMeIsTheCatalogLessWhatIFinished() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var ids: [String: String] = [:]
            for name in ["Alpha", "Amos", "Beta", "Delta", "Dora", "Gamma", "1984", "Zorro"] { ids[name] = try await f.addTitle(name) }
            #expect(try await f.owner.post("\(f.lib)/wishlist", ["title": "Wish"]).status == .created)
            for name in ["Amos", "Delta", "Dora", "1984"] {
                #expect(try await f.owner.post("\(f.lib)/reads", ["titleId": ids[name]!, "status": "finished"]).status == .created)
            }
            #expect(try await f.owner.post("\(f.lib)/reads", ["titleId": ids["Beta"]!, "status": "reading"]).status == .created)
            let libraryID = try #require(UUID(uuidString: f.libraryID))
            let owner = try #require(try await User.query(on: app.db).filter(\.$username == "owner").first()?.id)
            func listed(_ filters: TitleQuery.Filters) async throws -> TitleList {
                try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db)
            }
            func start(of letter: String, _ filters: TitleQuery.Filters) async throws -> Int? {
                try await TitleQuery.position(ofSection: letter, filters, libraryID: libraryID, now: Date(), on: app.db)
            }
            var filters = TitleQuery.Filters()
            filters.readStatus = .unread
            filters.reader = owner
            filters.includeSections = true
            filters.limit = 2
            let notFinished = try await listed(filters)
            #expect(notFinished.total == 4 && notFinished.items.map(\.title) == ["Alpha", "Beta"])
            #expect(notFinished.sections?.map { "\($0.letter)\($0.count)" } == ["A1", "B1", "G1", "Z1"])
            let unread = ["Alpha", "Beta", "Gamma", "Zorro"]
            for (letter, expected) in [("A", 0), ("B", 1), ("G", 2), ("Z", 3)] {
                #expect(try await start(of: letter, filters) == expected, "letter \(letter) in \(unread)")
            }
            // A letter whose books are all finished, or that has none: no place to jump to.
            #expect(try await start(of: "D", filters) == nil)
            #expect(try await start(of: "#", filters) == nil)
            #expect(try await start(of: "Q", filters) == nil)
            // With the favourites chip too.
            #expect(try await f.owner.patch("\(f.lib)/titles/\(ids["Gamma"]!)", ["favorite": true]).status == .ok)
            filters.favorites = true
            #expect(try await listed(filters).items.map(\.title) == ["Gamma"])
            filters.limit = 1
            #expect(try await listed(filters).total == 1)

            // The on-loan chip and "finished", sets of ids found first: counted and by section past a page.
            try await f.addMember("S1", "Ada")
            for name in ["Zorro", "Amos", "Beta"] {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[name]!]).status == .created)
            }
            var onLoan = TitleQuery.Filters()
            onLoan.onLoan = true
            onLoan.includeSections = true
            onLoan.limit = 1
            let lent = try await listed(onLoan)
            #expect(lent.total == 3 && lent.items.map(\.title) == ["Amos"])
            #expect(lent.sections?.map { "\($0.letter)\($0.count)" } == ["A1", "B1", "Z1"])
            onLoan.section = "Z"
            #expect(try await listed(onLoan).total == 1)
            var finished = TitleQuery.Filters()
            finished.readStatus = .finished
            finished.reader = owner
            finished.includeSections = true
            finished.limit = 2
            let done = try await listed(finished)
            #expect(done.total == 4 && done.items.map(\.title) == ["1984", "Amos"])
            #expect(done.sections?.map { "\($0.letter)\($0.count)" } == ["A1", "D2", "#1"])
            finished.includeSections = false
            #expect(try await listed(finished).total == 4)
        }
    }

    /// The filter reads a kept average: every change of a vote moves it, as the book's page would show.
    @Test func theKeptRatingFollowsEveryVote() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let alpha = try await f.addTitle("Alpha", extra: ["rating": 3])
            let beta = try await f.addTitle("Beta")
            let ann = try await f.addMember("C1", "Ann")
            func rated(_ min: Double) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?minRating=\(min)")
                #expect(reply.status == .ok, "\(reply.json)")
                return ((reply.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            func score(_ id: String) async throws -> Double? {
                try await app.db.sql.raw("SELECT rating_score FROM titles WHERE id = \(bind: UUID(uuidString: id)!)").first()?
                    .decode(column: "rating_score", as: Double?.self)
            }
            #expect(try await score(alpha) == 3)
            #expect(try await score(beta) == nil)
            // A read rated 5 on Alpha: (3 + 5) / 2.
            let read = try await f.owner.post("\(f.lib)/reads", ["titleId": alpha, "memberId": ann, "status": "finished", "rating": 5])
            #expect(read.status == .created, "\(read.json)")
            let readID = read.string("id")
            #expect(try await score(alpha) == 4)
            #expect(try await rated(4) == ["Alpha"])
            // The reader changes their mind: (3 + 4) / 2 = 3.5.
            let changed = try await f.owner.patch("\(f.lib)/reads/\(readID)?memberId=\(ann)", ["rating": 4])
            #expect(changed.status == .ok, "\(changed.json)")
            #expect(try await score(alpha) == 3.5)
            #expect(try await rated(4).isEmpty)
            // The library's own rating goes up: (5 + 4) / 2.
            let edited = try await f.owner.patch("\(f.lib)/titles/\(alpha)", ["rating": 5])
            #expect(edited.status == .ok, "\(edited.json)")
            #expect(try await score(alpha) == 4.5)
            // A vote on Beta, then the read removed: nobody has voted on Beta any more.
            let other = try await f.owner.post("\(f.lib)/reads", ["titleId": beta, "memberId": ann, "status": "finished", "rating": 4.5])
            #expect(other.status == .created)
            #expect(try await rated(4) == ["Alpha", "Beta"])
            let removed = try await f.owner.delete("\(f.lib)/reads/\(other.string("id"))?memberId=\(ann)")
            #expect(removed.status == .noContent)
            #expect(try await score(beta) == nil)
            // The read removed from Alpha leaves the library's own rating.
            let removedToo = try await f.owner.delete("\(f.lib)/reads/\(readID)?memberId=\(ann)")
            #expect(removedToo.status == .noContent)
            #expect(try await score(alpha) == 5)
            #expect(try await rated(4) == ["Alpha"])
        }
    }

    @Test func aPhotoOfACoverWithoutABarcodeOffersTheBooksItsWordsFind() async throws {
        #expect(CoverText.query("CHILDREN\nOF TIME\n£8.99 | 9 ~\nAdrian Tchaikovsky\nWinner of the Arthur C. Clarke Award")
                == "CHILDREN OF TIME Adrian Tchaikovsky Winner of the")
        #expect(CoverText.query("|| ~~ 12\n%$").isEmpty)
        #expect(CoverText.queries("CHILDREN OF\nIME\nAdrian Tchaikovsky") == ["CHILDREN OF IME Adrian Tchaikovsky", "Adrian Tchaikovsky", "CHILDREN OF"])
        try await withReplayProviders { app, _ in
            var browser = Browser(app: app)
            let home = try await browser.setUp()
            let libraryID = try #require(home.split(separator: "/").dropFirst().first.map(String.init))
            // A cover as a phone photographs it: the title and the author in large type, the price small.
            let cover = try PDFDocument.preview(size: .a4, page: 0, dpi: 72) { pdf in
                pdf.newPage()
                pdf.text("CHILDREN OF TIME", x: 40, y: 120, width: 520, style: .init(size: 44, bold: true))
                pdf.text("Adrian Tchaikovsky", x: 40, y: 260, width: 520, style: .init(size: 32))
                pdf.text("£8.99", x: 40, y: 700, width: 200, style: .init(size: 10))
            }
            let page = try await browser.upload("/libraries/\(libraryID)/add/photo", file: (field: "image", name: "cover.png", data: Data(cover)))
            #expect(page.status == .ok, "\(page.html.split(separator: "<main").last?.prefix(1500) ?? "")")
            #expect(page.html.contains("Read from the cover"), "\(page.html)")
            #expect(page.html.contains("Children of Time"))
            #expect(page.html.contains("/add?isbn=9780316452502"))
            // A photo with no words to go on says so on the start page.
            let blank = try PDFDocument.preview(size: .a4, page: 0, dpi: 36) { pdf in pdf.newPage() }
            let nothing = try await browser.upload("/libraries/\(libraryID)/add/photo", file: (field: "image", name: "blank.png", data: Data(blank)))
            #expect(nothing.status == .unprocessableEntity || nothing.status == .badRequest)
        }
    }
}
