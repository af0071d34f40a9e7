@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// A school library's day at real size.
@Suite struct SchoolDayTests {
    /// `count` titles straight into the library, named so their A–Z order is known: "Aello 00001" …,
    /// the letters in turn ("Aello …" for the first 26th, then "Bello …").
    static func seedTitles(_ count: Int, library: UUID, app: Application) async throws -> [TitleRow] {
        let now = Date()
        var rows: [TitleRow] = []
        rows.reserveCapacity(count)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for i in 0..<count {
            let letter = letters[i * letters.count / count]
            var record = ImportRecord(line: i + 2)
            record.title = "\(letter)ello \(String(format: "%05d", i + 1))"
            record.authors = ["Author \(i % 97)"]
            rows.append(try TitleRow(importing: record, id: UUID(), now: now.addingTimeInterval(Double(i))))
        }
        let all = rows
        try await app.writeGate.transaction(on: app.db) { db in
            let no = try await LibraryNumber.read(library, on: db.sql)
            for chunk in stride(from: 0, to: all.count, by: 2_000) {
                try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: Array(all[chunk..<min(chunk + 2_000, all.count)]),
                                         values: { $0.values(library: no) }, on: db)
            }
        }
        return rows
    }

    @Test func theCatalogPagesToItsLastTitleAndEveryLetterAt20000Titles() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let library = try #require(UUID(uuidString: catalog.split(separator: "/")[1].description))
            let rows = try await Self.seedTitles(20_000, library: library, app: app)

            let first = try await browser.get(catalog)
            #expect(first.status == .ok)
            #expect(first.html.contains("Aello 00001") && !first.html.contains("Aello 00051"))
            #expect(first.html.contains("Page 1 of 400"), "\(first.html.suffix(800))")
            #expect(first.html.contains("rel=\"next\""))

            // The last page holds the last title; its pager leads back, not on.
            let last = try await browser.get(catalog + "?page=400")
            #expect(last.html.contains("Zello 20000"))
            #expect(last.html.contains("rel=\"prev\"") && !last.html.contains("rel=\"next\""))

            // W from the index: to the page where W starts, at its heading, whatever comes before it.
            #expect(first.html.contains(WebRoute.catalog(library: library).path(query: [("letter", "W")])))
            let jump = try await browser.get(catalog + "?letter=W")
            #expect(jump.status == .seeOther || jump.status == .found)
            let firstW = try #require(rows.firstIndex { $0.title.hasPrefix("W") })
            let target = try #require(jump.location)
            // Found by seeking from the page's first title (`from=`), the same page as by its number.
            #expect(target.contains("page=\(firstW / 50 + 1)&from=") && target.hasSuffix("#sec-W"), "\(target)")
            let wPage = try await browser.get(String(target.split(separator: "#")[0]))
            #expect(wPage.html.contains(rows[firstW].title))
            #expect(wPage.html.contains(rows[(firstW / 50) * 50].title) && !wPage.html.contains(rows[(firstW / 50) * 50 - 1].title))
            #expect(wPage.html.contains("Page \(firstW / 50 + 1) of 400"))
            #expect(wPage.html.contains("id=\"sec-W\""))

            // Sorted newest first, the last one added leads.
            let newest = try await browser.get(catalog + "?sort=newest")
            #expect(newest.html.contains("Zello 20000") && !newest.html.contains("Aello 00001"))
            // A page past the end is empty, not an error.
            #expect(try await browser.get(catalog + "?page=999999").status == .ok)
        }
    }

    /// Card IDs and copy barcodes are matched without regard to case; members are found by class;
    /// the members list pages and sorts (name, card, class).
    @Test func cardsAndBarcodesIgnoreCaseAndMembersAreFoundByClass() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 2)
            let ada = try await f.owner.post("\(f.lib)/members", ["cardId": "S001", "firstName": "Ada", "lastName": "Lovelace", "grade": "4B"])
            #expect(ada.status == .created)
            let twin = try await f.owner.post("\(f.lib)/members", ["cardId": "s001", "firstName": "Eve"])
            #expect(twin.status == .conflict && twin.errorCode == "duplicate_card_id", "\(twin.status)")

            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "s001", "titleId": titleID])
            #expect(loan.status == .created, "\(loan.errorMessage ?? "")")
            #expect(loan.string("memberName") == "Ada Lovelace")
            let barcode = loan.string("copyBarcode")
            let back = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": barcode.lowercased()])
            #expect(back.status == .ok, "\(back.errorMessage ?? "")")
            #expect(back.string("returnedAt") != "")
            // The same copy scanned in lower case is lent again, and given back as scanned; once back, a
            // second return says it is not on loan, and a barcode or card nobody has is named.
            let byCopy = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "s001", "copyBarcode": barcode.lowercased()])
            #expect(byCopy.status == .created && byCopy.string("copyBarcode") == barcode, "\(byCopy.errorMessage ?? "")")
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": barcode]).status == .ok)
            let twice = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": barcode.lowercased()])
            #expect(twice.status == .conflict && twice.errorCode == "not_on_loan", "\(twice.status)")
            let nobody = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": "NO-SUCH-COPY"])
            #expect(nobody.status == .notFound && nobody.errorMessage?.contains("NO-SUCH-COPY") == true, "\(nobody.status)")
            let noCard = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "s999", "titleId": titleID])
            #expect(noCard.status == .notFound && noCard.errorMessage?.contains("s999") == true, "\(noCard.status) \(noCard.errorMessage ?? "")")

            for i in 0..<120 {
                let grade = i % 2 == 0 ? "3A" : "5C"
                _ = try await f.owner.post("\(f.lib)/members", ["cardId": String(format: "C%03d", i), "firstName": "Kid\(i)", "grade": grade])
            }
            let byClass = try await f.owner.get("\(f.lib)/members?q=4b&limit=200").array
            #expect(byClass.map { $0["cardId"] as? String } == ["S001"])
            let third = try await f.owner.get("\(f.lib)/members?q=3a&limit=200").array
            #expect(third.count == 60)
            let byCard = try await f.owner.get("\(f.lib)/members?sort=card&limit=3").array
            #expect(byCard.map { $0["cardId"] as? String } == ["C000", "C001", "C002"])
            #expect(try await f.owner.get("\(f.lib)/members?sort=shoe").status == .badRequest)

            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let page1 = try await browser.get("/libraries/\(f.libraryID)/members")
            #expect(page1.html.contains("Page 1 of 3"), "\(page1.html.suffix(600))")
            let page3 = try await browser.get("/libraries/\(f.libraryID)/members?page=3")
            #expect(page3.html.contains("101–121 of 121"))
        }
    }

    /// Offline, the wishlist says the providers could not be reached (not "no match") and takes a
    /// wish by hand with who asked for it and its priority; a refused one keeps what was typed.
    @Test func aWishByHandWhenTheProvidersCannotBeReached() async throws {
        try await withTestApp { app in
            app.metadataConfig = MetadataConfig(endpoints: .replay("http://127.0.0.1:9"), timeout: .seconds(3))
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let wishlist = catalog.replacingOccurrences(of: "/catalog", with: "/wishlist")
            let searched = try await browser.get(wishlist + "?q=Momo")
            #expect(searched.html.contains("could not be reached"), "\(searched.html.suffix(1500))")
            #expect(!searched.html.contains("No books match"))

            let refused = try await browser.post(wishlist, ["byHand": "1", "title": "", "requestedBy": "Mia K.", "priority": "3"])
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.html.contains("value=\"Mia K.\"") && refused.html.contains("aria-invalid"))

            let added = try await browser.post(wishlist, ["byHand": "1", "title": "Krabat", "authors": "Otfried Preußler", "requestedBy": "Mia K.",
                                                          "priority": "3"])
            #expect(added.status == .seeOther)
            let shown = try await browser.get(wishlist)
            #expect(shown.html.contains("Krabat") && shown.html.contains("Requested by Mia K.") && shown.html.contains("Priority: High"))
            // Shared from a library that has not published its catalog: the book at the store, which a friend can open.
            #expect(shown.html.contains("data-share-url=\"https://www.amazon.com/s?k=Krabat"))
        }
    }

    /// Each loan on the book and member pages has its own Return and Renew; Renew stops at the
    /// library's limit and says why; a member page returns all at once; a volunteer sees only the
    /// tabs it can use.
    @Test func eachLoanHasItsOwnReturnAndRenew() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.owner.patch(f.lib, ["maxRenewals": 1])
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], copies: 3)
            let memberID = try await f.addMember("S1", "Ada", "Lovelace")
            var loans: [String] = []
            for _ in 0..<3 { loans.append(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": titleID]).string("id")) }
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let book = "/libraries/\(f.libraryID)/titles/\(titleID)"
            let page = try await browser.get(book)
            for loan in loans {
                #expect(page.html.contains("/loans/\(loan.uppercased())/return") || page.html.contains("/loans/\(loan)/return"))
                #expect(page.html.contains("/loans/\(loan.uppercased())/renew") || page.html.contains("/loans/\(loan)/renew"))
            }
            let loanID = try #require(UUID(uuidString: loans[0]))
            let renewed = try await browser.post(WebRoute.loanRenew(library: UUID(uuidString: f.libraryID)!, loan: loanID).path, ["back": book])
            #expect(renewed.status == .seeOther && renewed.location == book)
            #expect(try await browser.get(book).html.contains("is renewed"))
            // The limit (1) is reached: the button gives way to the count, and a second renewal is refused with the reason.
            let after = try await browser.get(book)
            #expect(after.html.contains("Renewed 1 of 1 times"))
            let refused = try await browser.post(WebRoute.loanRenew(library: UUID(uuidString: f.libraryID)!, loan: loanID).path, ["back": book])
            #expect(refused.status == .seeOther)
            let said = try await browser.get(book)
            #expect(said.html.contains("renewed the maximum of 1 times") && said.html.contains("flash error"), "\(said.html.prefix(3000))")

            // Return asks first, as the Return page does; confirmed, the book is back.
            let asked = try await browser.post(WebRoute.loanReturn(library: UUID(uuidString: f.libraryID)!, loan: loanID).path, ["back": book])
            #expect(asked.status == .ok && asked.html.contains("name=\"confirmed\""))
            let back = try await browser.post(WebRoute.loanReturn(library: UUID(uuidString: f.libraryID)!, loan: loanID).path,
                                              ["back": book, "confirmed": "true"])
            #expect(back.location == book)
            #expect(try await browser.get(book).html.contains("is back"))
            // A "back" that leaves the site is not followed.
            let outside = try await browser.post(WebRoute.loanReturn(library: UUID(uuidString: f.libraryID)!, loan: UUID(uuidString: loans[1])!).path,
                                                 ["back": "https://evil.example/", "confirmed": "true"])
            #expect(outside.location?.hasPrefix("/libraries/") == true)

            let member = "/libraries/\(f.libraryID)/members/\(memberID)"
            let all = try await browser.post(member + "/return-all", [:])
            #expect(all.location == member)
            let open = try await f.owner.get("\(f.lib)/loans").array
            #expect(open.isEmpty)
            // The title's "Print labels": its three copies on one sheet, previewed.
            let labels = try await browser.get("/libraries/\(f.libraryID)/labels?title=\(titleID)")
            #expect(labels.html.contains("Labels: 3 · sheets: 1") && labels.html.components(separatedBy: "/print/labels.png?").count - 1 == 1, "\(labels.html)")

            // A volunteer's tab bar has no Add; a viewer's has no Lend, Return, Members or Loans.
            let volunteer = try await f.staff("vol", role: "volunteer")
            var volunteerBrowser = Browser(app: app)
            volunteerBrowser.cookies[Credential.cookieName] = try #require(volunteer.token)
            let tabs = try await volunteerBrowser.get("/libraries/\(f.libraryID)/catalog").html
            #expect(!tabs.contains("/libraries/\(f.libraryID)/add\"") && tabs.contains("/checkout\""))
            let viewer = try await f.staff("view", role: "viewer")
            var viewerBrowser = Browser(app: app)
            viewerBrowser.cookies[Credential.cookieName] = try #require(viewer.token)
            let viewerTabs = try await viewerBrowser.get("/libraries/\(f.libraryID)/catalog").html
            #expect(!viewerTabs.contains("/checkout\"") && !viewerTabs.contains("/loans\""))
            #expect(!(try await viewerBrowser.get(book).html.contains("/renew")))
        }
    }

    /// A class of thirty comes in from a CSV on the members page; a card ID the library has (in any
    /// case) is skipped and named, a bad line is named by its number; the export reads back.
    @Test func aClassListComesInAtOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addMember("S001", "Ada", "Lovelace")
            var csv = "Card ID,First Name,Last Name,Class,Email\n"
            for i in 1...30 { csv += String(format: "s%03d", i) + ",Kid\(i),Family\(i),3A,\n" }
            csv += "S 999,Spacey,Card,3A,\n,No,Card,3A,\nS040,Bad,Mail,3A,not-an-email\n"
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let page = try await browser.upload("/libraries/\(f.libraryID)/members/import", file: ("file", "class-3a.csv", Data(csv.utf8)))
            #expect(page.status == .ok, "\(page.html.prefix(400))")
            #expect(page.html.contains("29 added, 1 already here, 3 not taken."), "\(page.html)")
            #expect(page.html.contains("Line 2: Card ID s001 already belongs to Ada Lovelace"))
            #expect(page.html.contains("Line 32:") && page.html.contains("Line 33:") && page.html.contains("Line 34:"))
            let members = try await f.owner.get("\(f.lib)/members?q=3a&limit=100").array
            #expect(members.count == 29)
            // The class's cards to print: 29 cards on three sheets, each previewed, and the PDF.
            let cards = try await browser.get("/libraries/\(f.libraryID)/members/cards?q=3a")
            #expect(cards.html.contains("Cards: 29 · sheets: 3") && cards.html.components(separatedBy: "/print/cards.png?").count - 1 == 3)
            #expect(cards.html.contains("/print/cards.pdf?paper=a4&amp;q=3a"))

            let export = try await f.owner.get("\(f.lib)/members/export")
            #expect(export.status == .ok)
            let text = String(buffer: export.body)
            #expect(text.hasPrefix("Card ID,First Name,Last Name,Class,Email"))
            #expect(text.split(whereSeparator: \.isNewline).count == 31)  // header + 30 members
            // The export reads back: every card is already there.
            let again = try await f.owner.send(.POST, "\(f.lib)/members/import", rawBody: Data(text.utf8), contentType: "text/csv")
            #expect(again["membersCreated"] as? Int == 0)
            #expect((again["skipped"] as? [Any])?.count == 30)
            // Not a member list: refused as a whole, in the reader's language.
            browser.language = "de"
            let wrong = try await browser.upload("/libraries/\(f.libraryID)/members/import", file: ("file", "books.csv", Data("Title,Author\nMomo,Ende\n".utf8)))
            #expect(wrong.status == .unprocessableEntity)
            #expect(wrong.html.contains("Zeile 1"))
        }
    }

    /// Categories are one whatever their case; the categories page renames, merges and deletes.
    @Test func categoriesAreRenamedMergedAndDeletedAndIgnoreCase() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let one = try await f.addTitle("Songs of the Sea", extra: ["categories": ["Music"]])
            let two = try await f.addTitle("Rhythm", extra: ["categories": ["music", "Dance"]])
            let three = try await f.addTitle("Steps", extra: ["categories": ["Dance", "DANCE"]])
            var categories = try await f.owner.get("\(f.lib)/categories").array
            #expect(categories.compactMap { $0["name"] as? String } == ["Dance", "Music"])
            #expect(categories.first { $0["name"] as? String == "Music" }?["titleCount"] as? Int == 2)
            let twice = try await f.owner.post("\(f.lib)/categories", ["name": "DANCE"])
            #expect(twice.status == .conflict && twice.errorCode == "duplicate_category")

            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let lib = try #require(UUID(uuidString: f.libraryID))
            let music = try #require(UUID(uuidString: categories.first { $0["name"] as? String == "Music" }?["id"] as? String ?? ""))
            let dance = try #require(UUID(uuidString: categories.first { $0["name"] as? String == "Dance" }?["id"] as? String ?? ""))
            let page = try await browser.get(WebRoute.categories(library: lib).path)
            #expect(page.html.contains("Music") && page.html.contains("Merge into"))
            // Renaming Music to "dance" is refused next to its field, as typed.
            let clash = try await browser.post(WebRoute.categoryRename(library: lib, category: music).path, ["name": "dance"])
            #expect(clash.status == .unprocessableEntity && clash.html.contains("value=\"dance\"") && clash.html.contains("aria-invalid"))
            let renamed = try await browser.post(WebRoute.categoryRename(library: lib, category: music).path, ["name": "Music & Dance"])
            #expect(renamed.status == .seeOther)
            // Dance merges into it: every book once, Dance gone.
            let merged = try await browser.post(WebRoute.categoryMerge(library: lib, category: dance).path, ["into": music.uuidString])
            #expect(merged.status == .seeOther)
            categories = try await f.owner.get("\(f.lib)/categories").array
            #expect(categories.compactMap { $0["name"] as? String } == ["Music & Dance"])
            #expect(categories.first?["titleCount"] as? Int == 3)
            for id in [one, two, three] {
                #expect((try await f.owner.get("\(f.lib)/titles/\(id)")["categories"] as? [Any])?.count == 1)
            }
            #expect(try await browser.post(WebRoute.categoryMerge(library: lib, category: music).path, ["into": music.uuidString]).status
                    == .unprocessableEntity)
            let deleted = try await browser.post(WebRoute.categoryDelete(library: lib, category: music).path, [:])
            #expect(deleted.status == .seeOther)
            #expect(try await f.owner.get("\(f.lib)/categories").array.isEmpty)
            #expect(try await f.owner.get("\(f.lib)/titles")["total"] as? Int == 3)  // the books stay
        }
    }

    /// Owners change roles, remove staff and set a forgotten password, never beyond their own libraries.
    @Test func ownersManageTheirStaff() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let volunteer = try await f.staff("vol", role: "volunteer")
            let staff = try await f.owner.get("\(f.lib)/staff").array
            let volID = try #require(UUID(uuidString: staff.first { $0["username"] as? String == "vol" }?["userId"] as? String ?? ""))
            let ownerID = try #require(UUID(uuidString: staff.first { $0["username"] as? String == "owner" }?["userId"] as? String ?? ""))
            let lib = try #require(UUID(uuidString: f.libraryID))
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let settings = WebRoute.settings(library: lib).path
            #expect(try await browser.get(settings).html.contains(WebRoute.staffPassword(library: lib, user: volID).path))

            // A new password: the old session ends, the new password signs in.
            let reset = try await browser.post(WebRoute.staffPassword(library: lib, user: volID).path, ["password": "a brand new secret"])
            #expect(reset.status == .seeOther)
            #expect(try await volunteer.get("\(f.lib)/titles").status == .unauthorized)
            #expect(try await Client(app: app).post("/api/v1/auth/login", ["username": "vol", "password": "a brand new secret"]).status == .ok)
            let short = try await f.owner.post("\(f.lib)/staff/\(volID.uuidString)/password", ["password": "short"])
            #expect(short.status == .unprocessableEntity || short.status == .badRequest)

            // Someone who owns another library is out of this owner's reach.
            let other = try await Client(app: app).post("/api/v1/auth/login", ["username": "vol", "password": "a brand new secret"])
            let volClient = Client(app: app, token: other.string("token"))
            _ = try await f.owner.patch(f.lib, ["name": "Room 12"])
            _ = try await f.owner.send(.PATCH, "/api/v1/server/settings", ["libraryCreation": "staff"])
            _ = try await f.owner.send(.PATCH, "\(f.lib)/staff/\(volID.uuidString)", ["role": "librarian"])
            let own = try await volClient.post("/api/v1/libraries", ["name": "Vol's own"])
            #expect(own.status == .created, "\(own.json)")
            let refused = try await f.owner.post("\(f.lib)/staff/\(volID.uuidString)/password", ["password": "taken over!!"])
            #expect(refused.status == .forbidden, "\(refused.status)")

            // Role and removal from the settings page; the last owner stays, said as an error.
            let role = try await browser.post(WebRoute.staffRole(library: lib, user: volID).path, ["role": "viewer"])
            #expect(role.status == .seeOther)
            #expect(try await f.owner.get("\(f.lib)/staff").array.first { $0["username"] as? String == "vol" }?["role"] as? String == "viewer")
            let removed = try await browser.post(WebRoute.staffRemove(library: lib, user: volID).path, [:])
            #expect(removed.status == .seeOther)
            #expect(try await f.owner.get("\(f.lib)/staff").array.count == 1)
            _ = try await f.owner.send(.PATCH, "\(f.lib)/staff/\(ownerID.uuidString)", ["role": "viewer"])
            #expect(try await f.owner.get("\(f.lib)/staff").array.first?["role"] as? String == "owner")
        }
    }

    /// A copy is marked lost, damaged or withdrawn with a note and the date, a chosen copy is removed,
    /// and staff see who borrowed the book and when.
    @Test func copiesAreMarkedAndRemovedOneByOneAndTheBookShowsItsBorrowers() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", copies: 3)
            try await f.addMember("S1", "Ada", "Lovelace")
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": titleID])
            _ = try await f.owner.post("\(f.lib)/returns", ["loanId": loan.string("id")])
            let detail = try await f.owner.get("\(f.lib)/titles/\(titleID)")
            let copies = try #require(detail["copies"] as? [[String: Any]])
            let second = try #require(UUID(uuidString: copies[1]["id"] as? String ?? ""))
            let third = try #require(UUID(uuidString: copies[2]["id"] as? String ?? ""))
            let lib = try #require(UUID(uuidString: f.libraryID))
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            let book = WebRoute.title(library: lib, title: UUID(uuidString: titleID)!).path

            let marked = try await browser.post(WebRoute.copyStatus(library: lib, copy: second).path, ["status": "damaged", "statusNote": "Water on pages 3–40"])
            #expect(marked.status == .seeOther && marked.location == book)
            let page = try await browser.get(book)
            #expect(page.html.contains("Damaged · ") && page.html.contains("Water on pages 3–40"))
            let after = try await f.owner.get("\(f.lib)/titles/\(titleID)")
            #expect((after["availability"] as? [String: Any])?["available"] as? Int == 2)
            #expect((after["copies"] as? [[String: Any]])?[1]["statusNote"] as? String == "Water on pages 3–40")

            let removed = try await browser.post(WebRoute.copyRemove(library: lib, copy: third).path, [:])
            #expect(removed.status == .seeOther)
            let left = try await f.owner.get("\(f.lib)/titles/\(titleID)")["copies"] as? [[String: Any]]
            #expect(left?.compactMap { $0["id"] as? String }.contains(third.uuidString) == false)
            #expect(left?.count == 2)

            // The borrowing history, for those who lend: who, when.
            #expect(page.html.contains("Borrowing history") && page.html.contains("Ada Lovelace (S1)"))
            let viewer = try await f.staff("view", role: "viewer")
            var viewerBrowser = Browser(app: app)
            viewerBrowser.cookies[Credential.cookieName] = try #require(viewer.token)
            #expect(!(try await viewerBrowser.get(book).html.contains("Borrowing history")))
        }
    }
}
