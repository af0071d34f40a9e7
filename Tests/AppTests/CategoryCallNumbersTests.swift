@testable import App
import Foundation
import Testing
import VaporTesting

/// A school's own call numbers by category: "F BYR" for fiction, "J 590 ANI" for junior non-fiction.
@Suite struct CategoryCallNumbersTests {
    @Test func aCategorysSchemeGivesItsBooksWithoutACallNumberTheirs() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let kept = try await f.addTitle("Ozymandias", authors: ["Percy Shelley"], extra: ["categories": ["Fiction"], "callNumber": "821.7 SHE"])
            let before = try await f.addTitle("Don Juan", authors: ["Lord Byron"], extra: ["categories": ["Fiction"]])
            let other = try await f.addTitle("Atlas of Birds", authors: ["Ann Ornis"], extra: ["categories": ["Nature"]])
            func callNumber(_ id: String) async throws -> String? {
                try await f.owner.get("\(f.lib)/titles/\(id)").json["callNumber"] as? String
            }
            #expect(try await callNumber(before) == nil)
            let categories = try await f.owner.get("\(f.lib)/categories")
            let fiction = try #require(categories.array.first { $0["name"] as? String == "Fiction" }?["id"] as? String)
            #expect(categories.array.first { $0["name"] as? String == "Fiction" }?["callNumberPrefix"] == nil)

            // Bounds: one to five letters, nothing else.
            for bad in ["F B", "TOOLONG", "F1", "Ä"] {
                let refused = try await f.owner.put("\(f.lib)/categories/\(fiction)/call-numbers", ["prefix": bad])
                #expect(refused.status == .unprocessableEntity, "\(bad): \(refused.json)")
                #expect(refused.errorField == "prefix")
                #expect(refused.errorMessage == "A call-number prefix is one to five letters (F, J, REF).")
            }
            let volunteer = try await f.staff("vol", role: "volunteer")
            #expect(try await volunteer.put("\(f.lib)/categories/\(fiction)/call-numbers", ["prefix": "F"]).status == .forbidden)

            // Set: the book without one is given "F BYR"; a typed one and another category's book stay.
            let set = try await f.owner.put("\(f.lib)/categories/\(fiction)/call-numbers", ["prefix": "f"])
            #expect(set.status == .ok, "\(set.json)")
            #expect(set["prefix"] as? String == "F" && set["withDewey"] as? Bool == false && set["given"] as? Int == 1)
            #expect(try await callNumber(before) == "F BYR")
            #expect(try await callNumber(kept) == "821.7 SHE")
            #expect(try await callNumber(other) == nil)
            #expect(try await f.owner.get("\(f.lib)/categories").array.first { $0["name"] as? String == "Fiction" }?["callNumberPrefix"] as? String == "F")

            // A new book of the category, by the API and by an edit, is given its own.
            let added = try await f.addTitle("Emma", authors: ["Jane Austen"], extra: ["categories": ["fiction"]])
            #expect(try await callNumber(added) == "F AUS")
            #expect(try await f.owner.patch("\(f.lib)/titles/\(other)", ["categories": ["Nature", "Fiction"]]).status == .ok)
            #expect(try await callNumber(other) == "F ORN")

            // Many at once: put into the category, given one; the undo takes both back.
            let many = try await f.addTitle("Middlemarch", authors: ["George Eliot"])
            let bulk = try await f.owner.post("\(f.lib)/titles/bulk", ["titleIds": [many], "action": "add_category", "value": "Fiction"])
            #expect(bulk.status == .ok, "\(bulk.json)")
            #expect(try await callNumber(many) == "F ELI")
            #expect(try await f.owner.post("\(f.lib)/titles/bulk/undo", [:]).status == .ok)
            #expect(try await callNumber(many) == nil)

            // Taking the scheme away gives nothing and takes nothing.
            let cleared = try await f.owner.put("\(f.lib)/categories/\(fiction)/call-numbers", ["prefix": ""])
            #expect(cleared["prefix"] == nil && cleared["given"] as? Int == 0)
            #expect(try await callNumber(before) == "F BYR")
            let another = try await f.addTitle("Persuasion", authors: ["Jane Austen"], extra: ["categories": ["Fiction"]])
            #expect(try await callNumber(another) == nil)

            // The activity says it in the reader's language.
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let activity = try await browser.get("/libraries/\(f.libraryID)/activity")
            #expect(activity.html.contains("Fiction: Signaturen F; Bücher, die eine bekamen: 1"), "\(activity.html)")
            #expect(activity.html.contains("Fiction: Signaturen keine; Bücher, die eine bekamen: 0"))
        }
    }

    /// With the Dewey class: "J HER" until a record says the class, then "J 833.92 HER".
    @Test func aSchemeWithTheDeweyClassTakesItFromTheRecordWhenItComes() async throws {
        try await withReplayProviders { app, _ in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch("/api/v1/server/book-sources", ["order": ["dnb", "google_books"]]).status == .ok)
            let made = try await f.owner.post("\(f.lib)/categories", ["name": "Jugendbuch"])
            let set = try await f.owner.put("\(f.lib)/categories/\(made.string("id"))/call-numbers", ["prefix": "J", "withDewey": true])
            #expect(set["withDewey"] as? Bool == true)
            let tschick = try await f.addTitle("Tschick", authors: ["Wolfgang Herrndorf"], isbn: CataloguersDeskTests.tschick,
                                               extra: ["categories": ["Jugendbuch"]])
            #expect(try await f.owner.get("\(f.lib)/titles/\(tschick)").json["callNumber"] as? String == "J HER")
            #expect(try await Enrichment.drain(app: app, owner: "test") == 1)
            #expect(try await f.owner.get("\(f.lib)/titles/\(tschick)").json["callNumber"] as? String == "J 833.92 HER")
        }
    }

    /// The Categories page, in German: the scheme's form, a refusal by its field, the change said.
    @Test func theCategoriesPageSetsAScheme() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let book = try await f.addTitle("Don Juan", authors: ["Lord Byron"], extra: ["categories": ["Fiction"]])
            let fiction = try await f.owner.get("\(f.lib)/categories").array.first?["id"] as? String ?? ""
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let page = try await browser.get("/libraries/\(f.libraryID)/categories")
            #expect(page.html.contains("Signaturpräfix"))
            #expect(page.html.contains("Mit der Dewey-Klasse"))
            let path = "/libraries/\(f.libraryID)/categories/\(fiction)/call-numbers"
            let refused = try await browser.post(path, ["prefix": "F B"])
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.html.contains("Ein Signaturpräfix besteht aus ein bis fünf Buchstaben (F, J, REF)."))
            #expect(refused.html.contains(#"value="F B""#))
            let saved = try await browser.post(path, ["prefix": "F"])
            #expect(saved.status == .seeOther)
            let after = try await browser.get(try #require(saved.location))
            #expect(after.html.contains("Signaturen von „Fiction“ gespeichert; Bücher, die eine bekamen: 1."), "\(after.html)")
            #expect(after.html.contains(#"value="F""#))
            #expect(try await f.owner.get("\(f.lib)/titles/\(book)").json["callNumber"] as? String == "F BYR")
        }
    }
}
