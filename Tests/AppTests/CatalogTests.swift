@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor

@Suite struct CatalogTests {
    /// A title read is one statement with a row per copy and category: each copy and category comes
    /// once, copies by number, categories A–Z, the open loan with its copy.
    /// The favorite toggle is one write. Ten taps at once flip it ten times (none reads
    /// a mark another is changing), each logged with the mark it left; another library's title is not found.
    @Test func theFavoriteToggleIsOneWriteWhateverTheConcurrency() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try #require(UUID(uuidString: try await f.addTitle("Momo", copies: 1)))
            let ctx = LibraryContext(libraryID: UUID(uuidString: f.libraryID)!, name: "Room 12", policy: LoanPolicy(), role: .owner,
                                     user: AuthenticatedUser(id: UUID(), username: "owner", displayName: "Owner"))
            let marks = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<10 { group.addTask { try await Catalog.toggleFavorite(id, in: Scope(library: ctx, app: app)) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(marks.filter { $0 }.count == 5 && marks.filter { !$0 }.count == 5, "\(marks)")
            #expect(try await f.owner.get("\(f.lib)/titles/\(id)")["favorite"] as? Bool == false)
            #expect(try await Catalog.toggleFavorite(id, in: Scope(library: ctx, app: app)))
            #expect(try await f.owner.get("\(f.lib)/titles/\(id)")["favorite"] as? Bool == true)
            let other = LibraryContext(libraryID: UUID(), name: "Other", policy: LoanPolicy(), role: .owner, user: ctx.user)
            await #expect(throws: CatalogError.titleNotFound) { try await Catalog.toggleFavorite(id, in: Scope(library: other, app: app)) }
            #expect(try await f.owner.get("\(f.lib)/titles/\(id)")["favorite"] as? Bool == true)
        }
    }

    @Test func aTitleReadHasEachCopyAndCategoryOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Momo", copies: 3, extra: ["categories": ["Zauber", "Abenteuer"]])
            _ = try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": id]).status == .created)
            let detail = try await f.owner.get("\(f.lib)/titles/\(id)")
            let categories = (detail["categories"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(categories == ["Abenteuer", "Zauber"])
            let copies = (detail["copies"] as? [[String: Any]] ?? []).compactMap { $0["copyNumber"] as? Int }
            #expect(copies == [1, 2, 3])
            let loans = detail["loans"] as? [[String: Any]] ?? []
            #expect(loans.count == 1)
            #expect((detail["availability"] as? [String: Any])?["onLoan"] as? Int == 1)
            #expect((detail["availability"] as? [String: Any])?["total"] as? Int == 3)
        }
    }

    @Test func addByISBNNormalisesToISBN13AndCreatesCopies() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let reply = try await f.owner.post("\(f.lib)/titles", ["title": "Signals", "isbn": "ISBN 0-306-40615-2", "copies": 3])
            #expect(reply.status == .created)
            #expect(reply.string("isbn13") == "9780306406157")
            #expect(reply.string("isbn10") == "0306406152")
            let copies = try #require(reply["copies"] as? [[String: Any]])
            #expect(copies.map { $0["copyNumber"] as? Int } == [1, 2, 3])
            #expect(Set(copies.compactMap { $0["barcode"] as? String }).count == 3)
            let availability = try #require(reply["availability"] as? [String: Any])
            #expect(availability["available"] as? Int == 3)
            #expect(availability["total"] as? Int == 3)
        }
    }

    @Test func badISBNAndMissingTitleSayWhatIsWrong() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let checksum = try await f.owner.post("\(f.lib)/titles", ["title": "X", "isbn": "9780306406158"])
            #expect(checksum.status == .unprocessableEntity)
            #expect(checksum.errorField == "isbn")
            #expect(checksum.errorMessage?.contains("check digit") == true)
            let empty = try await f.owner.post("\(f.lib)/titles", ["title": "   "])
            #expect(empty.status == .unprocessableEntity)
            #expect(empty.errorField == "title")
            let missing = try await f.owner.post("\(f.lib)/titles", ["authors": ["A"]])
            #expect(missing.status == .unprocessableEntity)
            #expect(missing.errorCode == "invalid")
            #expect(missing.errorField == "title")
            #expect(try await Title.query(on: app.db).count() == 0)
        }
    }

    /// The same ISBN is refused with the existing title and the way to add copies instead.
    @Test func duplicateISBNOffersAddingCopies() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Signals", isbn: "9780306406157")
            let dup = try await f.owner.post("\(f.lib)/titles", ["title": "Signals again", "isbn": "0306406152"])
            #expect(dup.status == .conflict)
            #expect(dup.errorCode == "duplicate_isbn")
            let details = try #require((dup["error"] as? [String: Any])?["details"] as? [String: String])
            #expect(details["existingTitleId"] == id)
            let more = try await f.owner.post(details["addCopies"]!, ["count": 2])
            #expect(more.status == .created)
            #expect((more["availability"] as? [String: Any])?["total"] as? Int == 3)
            #expect(try await Title.query(on: app.db).count() == 1)
        }
    }

    /// As-you-type prefixes over title, author and ISBN; case and diacritics ignored.
    @Test func searchMatchesPrefixesIgnoringCaseAndDiacritics() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Éire: A History", authors: ["Seán Ó Faoláin"], isbn: "9780306406157")
            try await f.addTitle("Über das Meer", authors: ["Jürgen Groß"])
            try await f.addTitle("The Hobbit", authors: ["J. R. R. Tolkien"])
            // Words with marks (Devanagari's vowel signs and virama, Thai's tone marks) and a letter
            // newer than SQLite's Unicode tables: each typed word stays one word to the index.
            try await f.addTitle("हिंदी कहानियाँ", authors: ["प्रेमचंद"])
            try await f.addTitle("แมวน้อย")
            try await f.addTitle("\u{9FCD}山記")
            try await f.addTitle("哈利波特与魔法石", authors: ["J. K. 罗琳"])
            try await f.addTitle("となりのトトロ")
            func titles(_ q: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?q=\(q.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)")
                #expect(reply.status == .ok)
                return (reply["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await titles("eire") == ["Éire: A History"])
            #expect(try await titles("EI") == ["Éire: A History"])
            #expect(try await titles("faol") == ["Éire: A History"])
            #expect(try await titles("seán ó") == ["Éire: A History"])
            #expect(try await titles("uber") == ["Über das Meer"])
            #expect(try await titles("gross") == ["Über das Meer"])
            #expect(try await titles("hob tol") == ["The Hobbit"])
            #expect(try await titles("978030640") == ["Éire: A History"])
            #expect(try await titles("0306406152") == ["Éire: A History"])
            #expect(try await titles("hobbit meer") == [])
            // The index's scope token (the library and list) is the start of no typed word.
            for word in ["l", "w", "W0", "L0"] { #expect(try await titles(word) == [], "\(word)") }
            let hex = f.libraryID.replacingOccurrences(of: "-", with: "")
            #expect(try await titles("l" + hex.prefix(3)) == [])
            #expect(try await titles("हिंदी") == ["हिंदी कहानियाँ"])
            #expect(try await titles("कहा") == ["हिंदी कहानियाँ"])
            #expect(try await titles("प्रेम") == ["हिंदी कहानियाँ"])
            #expect(try await titles("प्रेमचंद हिं") == ["हिंदी कहानियाँ"])
            #expect(try await titles("แมวน") == ["แมวน้อย"])
            #expect(try await titles("\u{9FCD}") == ["\u{9FCD}山記"])
            // Chinese and Japanese write no spaces: a word from inside a title, or the author's name, finds it.
            #expect(try await titles("魔法石") == ["哈利波特与魔法石"])
            #expect(try await titles("波特 罗琳") == ["哈利波特与魔法石"])
            #expect(try await titles("トトロ") == ["となりのトトロ"])
            #expect(try await titles("魔法 トトロ") == [])
            #expect(try await titles("\"*)(' OR 1=1 --") == [])
            // Renaming updates the index.
            let hobbit = try await f.owner.get("\(f.lib)/titles?q=hobbit")
            let id = try #require((hobbit["items"] as? [[String: Any]])?.first?["id"] as? String)
            #expect(try await f.owner.patch("\(f.lib)/titles/\(id)", ["title": "Bilbo's Journey"]).status == .ok)
            #expect(try await titles("hobbit") == [])
            #expect(try await titles("bilbo") == ["Bilbo's Journey"])
        }
    }

    /// Search texts saved by the version that kept a run of Chinese characters as one word are cut
    /// into characters by the update, so a word from inside a title or a name finds it.
    @Test func theUpdateCutsSavedChineseSearchTextsIntoCharacters() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let harry = try await f.addTitle("哈利波特与魔法石", authors: ["罗琳"])
            try await f.addTitle("Plain English")
            try await f.addMember("S1", "小明", "王")
            #expect(try await f.owner.post("\(f.lib)/quotes", ["titleId": harry, "text": "时间就是生命"]).status == .created)
            func titles(_ q: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?q=\(q.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)")
                return (reply["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            func cards(_ q: String) async throws -> [String] {
                try await f.owner.get("\(f.lib)/members?q=\(q.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)").array
                    .compactMap { $0["cardId"] as? String }
            }
            // As the version before wrote them.
            try await app.db.sql.raw("UPDATE titles SET search_text = '哈利波特与魔法石 罗琳' WHERE title = '哈利波特与魔法石'").run()
            try await app.db.sql.raw("UPDATE members SET search_text = ' s1 小明 王 '").run()
            try await app.db.sql.raw("UPDATE quotes SET search_text = '时间就是生命 哈利波特与魔法石 罗琳'").run()
            func quotes(_ q: String) async throws -> Int? {
                try await f.owner.get("\(f.lib)/quotes?q=\(q.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)")["total"] as? Int
            }
            #expect(try await titles("魔法") == [])
            #expect(try await cards("明") == [])
            #expect(try await quotes("生命") == 0)

            try await TitleSearchWords().prepare(on: app.db)
            try await MemberSearchWords().prepare(on: app.db)
            try await QuoteSearchWords().prepare(on: app.db)
            #expect(try await quotes("生命") == 1)
            #expect(try await quotes("魔法") == 1)
            #expect(try await titles("魔法") == ["哈利波特与魔法石"])
            #expect(try await titles("哈利") == ["哈利波特与魔法石"])
            #expect(try await titles("plain") == ["Plain English"])
            #expect(try await cards("明") == ["S1"])
        }
    }

    @Test func listIsAToZWithSectionsAndFilters() async throws {
        try await withTestApp(clock: AppClock()) { app in
            let f = try await Fixture.make(app)
            let apple = try await f.addTitle("apple pie", extra: ["favorite": true, "categories": ["Cooking"]])
            try await f.addTitle("The Zebra")
            try await f.addTitle("1984", extra: ["favorite": true])
            let banana = try await f.addTitle("Banana", extra: ["categories": ["Cooking", "Fruit"], "rating": 4.5])
            try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": banana]).status == .created)

            let all = try await f.owner.get("\(f.lib)/titles?sections=true")
            #expect((all["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["1984", "apple pie", "Banana", "The Zebra"])
            #expect((all["sections"] as? [[String: Any]])?.compactMap { $0["letter"] as? String } == ["A", "B", "Z", "#"])
            #expect(all["favoritesCount"] as? Int == 2)

            func ids(_ query: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?\(query)")
                #expect(reply.status == .ok, "\(query): \(reply.json)")
                return (reply["items"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            }
            #expect(try await ids("favorites=true").count == 2)
            #expect(try await ids("onLoan=true") == [banana])
            #expect(try await ids("overdue=true") == [])
            #expect(try await ids("minRating=4") == [banana])
            #expect(try await ids("section=a") == [apple])
            let categories = try await f.owner.get("\(f.lib)/categories").array
            let cooking = try #require(categories.first { $0["name"] as? String == "Cooking" })
            #expect(cooking["titleCount"] as? Int == 2)
            #expect(Set(try await ids("category=\(cooking["id"] as! String)")) == [apple, banana])
            #expect(try await f.owner.get("\(f.lib)/titles?limit=0").status == .badRequest)
            #expect(try await f.owner.get("\(f.lib)/titles?favorites=maybe").errorField == "favorites")
        }
    }

    /// Copy counts never drop below the copies on loan; a title with loans out cannot be deleted.
    @Test func editingRespectsCopiesOnLoan() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Matilda", copies: 3)
            try await f.addMember("S1", "Ada")
            for _ in 0..<2 {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": id]).status == .created)
            }
            let tooFew = try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": 1])
            #expect(tooFew.status == .conflict)
            #expect(tooFew.errorField == "totalCopies")
            #expect(tooFew.errorMessage?.contains("2 copies are on loan") == true, "\(tooFew.errorMessage ?? "")")
            let two = try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": 2, "notes": "Donated"])
            #expect(two.status == .ok)
            #expect((two["availability"] as? [String: Any])?["total"] as? Int == 2)
            #expect(two.string("notes") == "Donated")
            let five = try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": 5])
            #expect((five["availability"] as? [String: Any])?["available"] as? Int == 3)

            let delete = try await f.owner.delete("\(f.lib)/titles/\(id)")
            #expect(delete.status == .conflict)
            #expect(delete.errorMessage?.contains("2 copies are on loan") == true)
            #expect(try await Title.query(on: app.db).count() == 1)
        }
    }

    @Test func deletingACategoryKeepsItsTitles() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Matilda", extra: ["categories": ["Funny"]])
            let category = try #require(try await f.owner.get("\(f.lib)/categories").array.first)
            let catID = category["id"] as! String
            #expect(try await f.owner.patch("\(f.lib)/categories/\(catID)", ["name": "Hilarious"]).status == .ok)
            #expect((try await f.owner.get("\(f.lib)/titles/\(id)")["categories"] as? [[String: Any]])?.first?["name"] as? String == "Hilarious")
            #expect(try await f.owner.delete("\(f.lib)/categories/\(catID)").status == .noContent)
            let title = try await f.owner.get("\(f.lib)/titles/\(id)")
            #expect(title.status == .ok)
            #expect((title["categories"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    /// Wishlist items have no copies until acquired.
    @Test func wishlistAddAcquireDelete() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Dune", "authors": ["Frank Herbert"]])
            #expect(wish.status == .created)
            #expect(wish["wishlist"] as? Bool == true)
            #expect((wish["links"] as? [String: String])?["amazon"]?.contains("Dune") == true)
            let id = wish.string("id")
            #expect((try await f.owner.get("\(f.lib)/titles")["items"] as? [Any])?.isEmpty == true)
            #expect((try await f.owner.get("\(f.lib)/wishlist")["items"] as? [Any])?.count == 1)
            try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": id]).errorCode == "wishlist_item")

            let acquired = try await f.owner.post("\(f.lib)/wishlist/\(id)/acquire", ["copies": 2])
            #expect(acquired.status == .ok)
            #expect(acquired["wishlist"] as? Bool == false)
            #expect((acquired["availability"] as? [String: Any])?["total"] as? Int == 2)
            #expect((try await f.owner.get("\(f.lib)/wishlist")["items"] as? [Any])?.isEmpty == true)

            let other = try await f.owner.post("\(f.lib)/wishlist", ["title": "Emma"]).string("id")
            #expect(try await f.owner.delete("\(f.lib)/wishlist/\(other)").status == .noContent)
            #expect(try await f.owner.delete("\(f.lib)/wishlist/\(id)").status == .notFound)
            let types = try await f.owner.get("\(f.lib)/activity").array.compactMap { $0["type"] as? String }
            #expect(types.prefix(3) == ["delete_wishlist", "add_wishlist", "fulfill_wishlist"])
        }
    }
}

/// A5 at scale: a broad search answers newest first with a lower-bound total; a narrow one A–Z.
@Suite struct BroadSearchTests {
    /// `count` titles "`name` 00000", … added to the fixture's library straight through the database, in
    /// batches of 500 (a row's values, bound one by one, stay under SQLite's limit of bound values).
    static func add(_ name: String, _ count: Int, to f: Fixture, _ app: Application) async throws {
        let libraryNo = try await LibraryNumber.read(UUID(uuidString: f.libraryID)!, on: app.db.sql)
        for start in stride(from: 0, to: count, by: 500) {
            let titles = (start..<min(start + 500, count)).map { i in
                let t = Title()
                t.libraryNo = libraryNo
                t.title = "\(name) \(String(format: "%05d", i))"
                t.authors = []
                t.favorite = false
                t.wishlist = false
                t.refreshDerived()
                return t
            }
            try await titles.create(on: app.db)
        }
    }

    @Test func moreThanAThousandMatchesComeNewestFirst() async throws {
        try await withTestApp { app in
            // setup
            let f = try await Fixture.make(app)
            try await Self.add("Common Tale", 1_050, to: f, app)
            try await f.addTitle("Common Rare Gem")
            // MUT
            let broad = try await f.owner.get("\(f.lib)/titles?q=comm&limit=5")
            let narrow = try await f.owner.get("\(f.lib)/titles?q=common%20ra")
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Elsewhere"])
            let elsewhere = try await f.owner.get("/api/v1/libraries/\(other.string("id"))/titles?q=comm")
            // validate
            #expect(broad["order"] as? String == "recent")
            #expect(broad["totalIsLowerBound"] as? Bool == true)
            #expect(broad["total"] as? Int == 1_000)
            #expect((broad["items"] as? [[String: Any]])?.first?["title"] as? String == "Common Rare Gem")
            #expect(narrow["order"] as? String == "title")
            #expect(narrow["total"] as? Int == 1)
            #expect(narrow["totalIsLowerBound"] as? Bool == false)
            #expect(elsewhere["total"] as? Int == 0)
        }
    }

    /// A newest-first page is first sought among the newest titles; one not found whole there is read
    /// from every match, in the same order.
    @Test func aPageNotAmongTheNewestTitlesIsReadFromEveryMatch() async throws {
        try await withTestApp { app in
            // setup
            let f = try await Fixture.make(app)
            try await Self.add("Common Tale", 1_050, to: f, app)
            try await Self.add("Other Book", TitleQuery.recentSearchWindow, to: f, app)
            for name in ["Common New A", "Common New B", "Common New C"] { _ = try await f.addTitle(name) }
            // MUT
            let inWindow = try await f.owner.get("\(f.lib)/titles?q=comm&limit=2")
            let pastWindow = try await f.owner.get("\(f.lib)/titles?q=comm&limit=5")
            let across = try await f.owner.get("\(f.lib)/titles?q=comm&limit=2&offset=2")
            // validate
            func names(_ page: Client.Reply) -> [String] {
                (page["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            }
            #expect(pastWindow["order"] as? String == "recent")
            #expect(names(inWindow) == ["Common New C", "Common New B"])
            let past = names(pastWindow)
            #expect(past.prefix(3) == ["Common New C", "Common New B", "Common New A"])
            #expect(past.count == 5 && past.dropFirst(3).allSatisfy { $0.hasPrefix("Common Tale ") })
            let acrossNames = names(across)
            #expect(acrossNames.first == "Common New A")
            #expect(acrossNames.count == 2 && acrossNames.last?.hasPrefix("Common Tale ") == true)
        }
    }
}
