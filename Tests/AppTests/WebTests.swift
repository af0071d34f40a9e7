@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

@Suite struct WebTests {
    /// A refused form comes back as it was typed, with the reason next to the field it is about
    ///: settings, a title's edit form, adding a member.
    @Test func aRefusedFormKeepsWhatWasTypedWithTheReasonNextToItsField() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = String(catalog.dropLast("/catalog".count))
            let settings = try await browser.post(base + "/settings", ["name": "Raum 7", "loanPeriodDays": "4000", "maxRenewals": "3"])
            #expect(settings.status == .unprocessableEntity)
            #expect(settings.html.contains("value=\"Raum 7\""), "the typed name is kept")
            #expect(settings.html.contains("value=\"4000\""))
            #expect(settings.html.contains("id=\"f-loanPeriodDays-error\""), "the reason is under the loan period field")
            #expect(settings.html.contains("aria-invalid=\"true\""))
            #expect(settings.html.contains("<nav class=\"tabs\""), "the page keeps its tab bar")

            _ = try await browser.post(base + "/members", ["cardId": "S1", "firstName": "Ada"])
            let duplicate = try await browser.post(base + "/members", ["cardId": "S1", "firstName": "Grace", "lastName": "Hopper"])
            #expect(duplicate.status == .unprocessableEntity)
            #expect(duplicate.html.contains("id=\"f-cardId-error\""))
            #expect(duplicate.html.contains("value=\"Grace\"") && duplicate.html.contains("value=\"Hopper\""))
            #expect(duplicate.html.contains("<details class=\"card\" open"), "the add form is open")
        }
    }

    /// Typed routes: every page and form action is registered under its `WebRoute` pattern, and the
    /// links the route builds fill that pattern in (ids and query values encoded).
    @Test func everyAPILinkIsRegisteredAndFollowsItsRoute() async throws {
        try await withTestApp { app in
            let (l, x) = (UUID(), UUID())
            func key(_ method: HTTPMethod, _ path: [PathComponent]) -> String { method.rawValue + " /" + path.map(\.description).joined(separator: "/") }
            let registered = Set(app.routes.all.map { key($0.method, $0.path) })
            for (link, method) in APILink.all(library: l, id: x) {
                let pattern: [PathComponent] = ["api", "v1"] + link.pattern
                #expect(registered.contains(key(method, pattern)), "\(link) is not registered as \(key(method, pattern))")
                let segments = String(link.path.split(separator: "?")[0]).split(separator: "/").map(String.init)
                #expect(segments.count == pattern.count, "\(link.path)")
                for (component, segment) in zip(pattern, segments) {
                    switch component {
                    case .constant(let text): #expect(text == segment, "\(link.path)")
                    case .parameter: #expect(UUID(uuidString: segment) != nil, "\(link.path)")
                    default: Issue.record("\(link) has an unexpected component")
                    }
                }
            }
            #expect(APILink.export(library: l, format: "wishlist-csv").path.hasSuffix("/export?format=wishlist-csv"))
        }
    }

    /// Generated from `WebRoute.all`: every route is registered with exactly the methods its entry
    /// declares, every web route Vapor knows is in the list (nothing registered beside it), and the
    /// links a route builds fill its pattern in with the sample values.
    @Test func everyWebRouteIsRegisteredAndItsLinksFollowIt() async throws {
        try await withTestApp { app in
            let samples = WebRoute.Samples.random()
            let l = samples.library
            let values: [String: String] = [
                "libraryID": l.uuidString, "titleID": samples.title.uuidString, "memberID": samples.member.uuidString,
                "copyID": samples.copy.uuidString, "categoryID": samples.category.uuidString, "jobID": samples.job.uuidString,
                "loanID": samples.loan.uuidString, "userID": samples.user.uuidString, "readID": samples.read.uuidString,
                "photoID": samples.photo.uuidString, "quoteID": samples.quote.uuidString, "token": samples.token,
                "holdID": samples.hold.uuidString, "messageID": samples.message.uuidString, "collectionID": samples.collection.uuidString,
                "shelfID": samples.shelf.uuidString, "stocktakeID": samples.stocktake.uuidString, "kind": ReportKind.circulation.rawValue,
                "savedID": samples.savedReport.uuidString, "runID": samples.rosterRun.uuidString, "rolloverID": samples.rollover.uuidString,
            ]
            func key(_ method: HTTPMethod, _ path: [PathComponent]) -> String { method.rawValue + " /" + path.map(\.description).joined(separator: "/") }
            let registered = Set(app.routes.all.map { key($0.method, $0.path) })
            let entries = WebRoute.all(samples)
            #expect(entries.count == WebRoute.Name.allCases.count)
            #expect(Set(entries.map(\.route.name)) == Set(WebRoute.Name.allCases), "an entry's route is not of its own name")
            var listed = Set<String>()
            for entry in entries {
                let route = entry.route
                let pattern = route.pattern
                #expect(!entry.use.methods.isEmpty, "\(entry.name) is neither a page nor an action")
                for method in [HTTPMethod.GET, .POST] {
                    let k = key(method, pattern)
                    listed.insert(k)
                    #expect(registered.contains(k) == entry.use.methods.contains(method),
                            "\(entry.name): \(k) is \(registered.contains(k) ? "" : "not ")registered")
                }
                let segments = route.path.split(separator: "/").map(String.init)
                #expect(segments.count == pattern.count, "\(route.path)")
                for (component, segment) in zip(pattern, segments) {
                    switch component {
                    case .constant(let text): #expect(text == segment, "\(route.path)")
                    case .parameter(let name): #expect(segment == values[name], "\(route.path): \(name)")
                    default: Issue.record("\(route) has an unexpected component")
                    }
                }
            }
            // Every web route Vapor knows (outside the API) is in the list.
            let web = registered.filter { !$0.contains(" /api/") && ($0.hasPrefix("GET ") || $0.hasPrefix("POST ")) }
                .subtracting(AppShell.resources.map { "GET " + $0 })
            #expect(web.subtracting(listed).isEmpty, "registered but not in WebRoute.all: \(web.subtracting(listed).sorted())")
            #expect(WebRoute.checkout(library: l).path(query: [("card", "S 1&2"), ("title", nil), ("days", "")]) ==
                    "/libraries/\(l.uuidString)/checkout?card=S%201%262")
        }
    }

    /// An import through the page answers at once with the job's page; the page shows
    /// rows landing while the job runs (and reloads itself without JavaScript), then the report in the
    /// reader's language; a second import into the library meanwhile is refused on the form, in it too.
    @Test func aWebImportIsAJobWhosePageShowsProgressThenTheReport() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = String(catalog.dropLast("/catalog".count))
            let libraryID = try #require(UUID(uuidString: String(base.split(separator: "/").last ?? "")))
            browser.language = "de"
            let csv = "title,author,isbn,copies\nMomo,Michael Ende,,2\nDer kleine Prinz,Antoine de Saint-Exupéry,9780000000000,1\n"
            let started = try await browser.upload(base + "/exchange", file: ("file", "books.csv", Data(csv.utf8)))
            #expect(started.status == .seeOther, "\(started.html.prefix(400))")
            let location = try #require(started.location)
            #expect(location.hasPrefix(base + "/exchange/jobs/"))
            await app.jobRunner.wait(try #require(UUID(uuidString: String(location.split(separator: "/").last ?? ""))))
            let done = try await browser.get(location)
            #expect(done.status == .ok)
            #expect(done.html.contains("Import abgeschlossen"), "\(done.html)")
            #expect(done.html.contains("Zeile 3"))
            #expect(!done.html.contains("http-equiv=\"refresh\""))
            #expect(!done.html.contains("Import finished"))

            // A job still running (another instance's, say): its page shows how far it got and
            // reloads itself; an import into the same library is refused on the form, in German.
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let running = try await Jobs.begin(.importFile, library: libraryID, target: libraryID, user: user, now: Date(), app: app)
            try await Jobs.progress(running, rows: 1_234, titles: 1_200, copies: 1_300, app: app)
            let progress = try await browser.get(WebRoute.job(library: libraryID, job: running).path)
            #expect(progress.html.contains("1.234 Zeilen gelesen"), "\(progress.html)")
            #expect(progress.html.contains("<noscript><meta http-equiv=\"refresh\" content=\"3\""))
            #expect(progress.html.contains("data-refresh=\"\(WebRoute.job(library: libraryID, job: running).path)\""))
            let refused = try await browser.upload(base + "/exchange", file: ("file", "more.csv", Data(csv.utf8)))
            #expect(refused.status == .unprocessableEntity)
            #expect(refused.html.contains("In diese Bibliothek wird gerade schon importiert"), "\(refused.html)")
            #expect(refused.html.contains("<nav class=\"tabs\""))
            // Another user's job is not found.
            var stranger = Browser(app: app)
            _ = try await stranger.get("/login")
            #expect(try await stranger.get(WebRoute.job(library: libraryID, job: running).path).status != .ok)
        }
    }

    @Test func countedPhrasesTakeTheLanguagesFormsAndNumbers() {
        #expect(Strings(lang: .en)(.daysOverdue, 1) == "1 day overdue")
        #expect(Strings(lang: .en)(.daysOverdue, 6) == "6 days overdue")
        #expect(Strings(lang: .de)(.daysOverdue, 6) == "6 Tage überfällig")
        #expect(Strings(lang: .zh)(.daysOverdue, 6) == "逾期 6 天")
        #expect(Strings(lang: .de).number(12345) == "12.345")
    }

    @Test func theLanguageComesFromTheChoiceElseTheBrowser() {
        #expect(Lang.negotiate(cookie: nil, acceptLanguage: "de-DE,de;q=0.9,en;q=0.8") == .de)
        #expect(Lang.negotiate(cookie: nil, acceptLanguage: "fr-FR, zh-CN;q=0.8, en;q=0.5") == .zh)
        #expect(Lang.negotiate(cookie: nil, acceptLanguage: "en;q=0.2, ga;q=0.9") == .ga)
        #expect(Lang.negotiate(cookie: nil, acceptLanguage: "fr") == .en)
        #expect(Lang.negotiate(cookie: "zh-Hans", acceptLanguage: "de") == .zh)
        #expect(Lang.negotiate(cookie: "xx", acceptLanguage: nil) == .en)
    }

    @Test func pagesAreInTheUsersLanguageWithHtmlLang() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app, language: "ga-IE,ga;q=0.9")
            let setup = try await browser.get("/setup")
            #expect(setup.html.contains("<html lang=\"ga\">"))
            #expect(setup.html.contains("Fáilte go Shelfmark"))
            let catalog = try await browser.setUp()
            _ = try await browser.post("/language", ["lang": "de", "back": catalog])
            let german = try await browser.get(catalog)
            #expect(german.html.contains("<html lang=\"de\">"))
            #expect(german.html.contains("Noch keine Bücher"))
        }
    }

    @Test func formsWithoutTheCSRFTokenAreRefused() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            _ = try await browser.get("/setup")
            let forged = try await browser.post("/setup", ["libraryName": "X", "username": "evil", "password": "a long password"], csrf: false)
            #expect(forged.status == .forbidden)
            #expect(forged.html.contains("The form was out of date"))
            let wrong = try await browser.post("/setup", ["libraryName": "X", "username": "evil", "password": "a long password", "_csrf": "guess"])
            #expect(wrong.status == .forbidden)
            #expect(try await Accounts.needsSetup(on: app.db))
            let catalog = try await browser.setUp()
            #expect(catalog.hasSuffix("/catalog"))
            var other = Browser(app: app)
            let forgedLogin = try await other.post("/login", ["username": "teacher", "password": "a long password", "_csrf": "x"])
            #expect(forgedLogin.status == .forbidden)
            // The session cookie is HttpOnly and SameSite.
            _ = try await other.get("/login")
            let login = try await other.post("/login", ["username": "teacher", "password": "a long password"])
            let session = try #require(login.setCookies.first { $0.hasPrefix("shelfmark_session=") })
            #expect(session.contains("HttpOnly"))
            #expect(session.lowercased().contains("samesite=lax"))
        }
    }

    @Test func titlesAreEscapedNeverExecuted() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = catalog.replacingOccurrences(of: "/catalog", with: "")
            let added = try await browser.post(base + "/add", ["title": "<script>alert(1)</script>", "authors": "A & B", "copies": "1"])
            #expect(added.status == .seeOther)
            let page = try await browser.get(try #require(added.location))
            #expect(page.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
            #expect(!page.html.contains("<script>alert(1)"))
            // Attribute values are escaped too: a quote cannot end an attribute early.
            let quoted = try await browser.post(base + "/add", ["title": "Say \"hi\" onmouseover=\"alert(1)", "copies": "1"])
            let quotedPage = try await browser.get(try #require(quoted.location))
            #expect(quotedPage.html.contains("data-share=\"Say &quot;hi&quot; onmouseover=&quot;alert(1)\""))
            #expect(!quotedPage.html.contains("data-share=\"Say \"hi"))
            let list = try await browser.get(catalog)
            #expect(list.html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    /// Above the A–Z limit a search answers newest first; the page says so rather than giving a
    /// false count.
    @Test func aSearchWithVeryManyMatchesSaysMoreThanAndNewestFirst() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            // setup: 1,005 titles with "lantern" in them, 3 with "harbor"
            var csv = "isbn,title,author,category,genre\n"
            for i in 0..<1_005 { csv += ",Lantern \(i),Ann Lee,,\n" }
            for i in 0..<3 { csv += ",Harbor \(i),Bo Day,,\n" }
            let ctx = try await CommandLibrary.context(named: "Room 12", create: false, app: app)
            let report = try await Importer.run(Data(csv.utf8), format: nil, existing: .skip, library: ctx, app: app, now: Date())
            #expect(report.titlesCreated == 1_008)
            // MUT + validate
            let many = try await browser.get(catalog + "?q=lantern")
            #expect(many.html.contains("More than 1,000 books, newest first"), "\(many.html.prefix(3000))")
            let few = try await browser.get(catalog + "?q=harbor")
            #expect(few.html.contains(">3 books<"))
            #expect(!few.html.contains("More than"))
        }
    }

    @Test func signedOutVisitorsAreSentToSignInAndBack() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            var stranger = Browser(app: app)
            let page = try await stranger.get(catalog)
            #expect(page.status == .seeOther)
            #expect(page.location?.hasPrefix("/login?next=") == true)
            _ = try await stranger.get("/login")
            let wrong = try await stranger.post("/login?next=" + catalog, ["username": "teacher", "password": "wrong password"])
            #expect(wrong.status == .unauthorized)
            let right = try await stranger.post("/login?next=" + catalog, ["username": "teacher", "password": "a long password"])
            #expect(right.location == catalog)
            let missing = try await stranger.get(catalog.replacingOccurrences(of: "/catalog", with: "/titles/\(UUID().uuidString)"))
            #expect(missing.status == .notFound)
            #expect(missing.html.contains("This page does not exist"))
        }
    }

    @Test func lendByTitleWordsEditABookAndDeleteAMemberWithLoans() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = catalog.replacingOccurrences(of: "/catalog", with: "")
            _ = try await browser.post(base + "/add", ["title": "Momo", "authors": "Michael Ende", "copies": "1"])
            _ = try await browser.post(base + "/add", ["title": "Momo and the Grey Men", "copies": "1"])
            _ = try await browser.post(base + "/members", ["cardId": "S1", "firstName": "Ada"])
            // Two books match "momo": the librarian chooses.
            let choose = try await browser.post(base + "/checkout", ["card": "S1", "book": "momo", "days": "14"])
            #expect(choose.html.contains("Which book?"))
            let review = try await browser.post(base + "/checkout", ["card": "S1", "book": "grey men", "days": "14"])
            #expect(review.html.contains("Momo and the Grey Men"))
            let memberID = try #require(review.html.range(of: #"name="memberId" value="([0-9A-F-]+)""#, options: .regularExpression)
                .map { String(review.html[$0]).components(separatedBy: "value=\"")[1].dropLast() }.map(String.init))
            let titleID = try #require(review.html.range(of: #"name="titleId" value="([0-9A-F-]+)""#, options: .regularExpression)
                .map { String(review.html[$0]).components(separatedBy: "value=\"")[1].dropLast() }.map(String.init))
            let lent = try await browser.post(base + "/checkout/confirm", ["memberId": memberID, "titleId": titleID, "days": "14"])
            #expect(lent.status == .seeOther)
            // Fewer copies than are on loan: refused with the reason, on the form.
            let edit = try await browser.post(base + "/titles/\(titleID)/edit", ["title": "Momo and the Grey Men", "totalCopies": "0"])
            #expect(edit.status == .unprocessableEntity)
            #expect(edit.html.contains("on loan"))
            let renamed = try await browser.post(base + "/titles/\(titleID)/edit", ["title": "Momo (2nd ed.)", "authors": "Michael Ende", "totalCopies": "2"])
            #expect(renamed.status == .seeOther)
            #expect(try await browser.get(base + "/titles/\(titleID)").html.contains("Momo (2nd ed.)"))
            // Deleting a member with a loan out needs the confirmation; then the book is back.
            let refused = try await browser.post(base + "/members/\(memberID)/delete", [:])
            #expect(refused.status == .conflict)
            let deleted = try await browser.post(base + "/members/\(memberID)/delete", ["confirm": "true"])
            #expect(deleted.status == .seeOther)
            #expect(try await browser.get(base + "/titles/\(titleID)").html.contains("2/2"))
            // Deleting a book needs its confirmation box too.
            let unconfirmed = try await browser.post(base + "/titles/\(titleID)/delete", [:])
            #expect(unconfirmed.status == .conflict)
            #expect(try await browser.get(base + "/titles/\(titleID)").status == .ok)
            let titlePage = "\(base)/titles/\(titleID)"
            let gone = try await browser.post(titlePage + "/delete", ["confirm": "true"])
            #expect(gone.status == .seeOther)
            let afterDelete = try await browser.get(titlePage)
            #expect(afterDelete.status == .notFound)
        }
    }

    @Test func theAdministratorDecidesWhoMayCreateLibrariesOnTheSettingsPage() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = String(catalog.dropLast("/catalog".count))
            let page = try await browser.get(base + "/settings")
            #expect(page.html.contains("Who may create libraries"))
            let saved = try await browser.post(base + "/server", ["libraryCreation": "admin"])
            #expect(saved.status == .seeOther)
            #expect(try await ServerSettings.libraryCreation(on: app.db) == .admin)
            // A form without the session's token is refused.
            let forged = try await browser.post(base + "/server", ["libraryCreation": "staff", "_csrf": "forged"])
            #expect(forged.status == .forbidden)
            #expect(try await ServerSettings.libraryCreation(on: app.db) == .admin)
        }
    }

    /// Flash messages come from the server, once: a link cannot make a page show a text of its choosing.
    @Test func aFlashMessageIsShownOnceAndCannotBeForgedByALink() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let base = String(catalog.dropLast("/catalog".count))
            let saved = try await browser.post(base + "/settings", ["name": "Room 12", "loanPeriodDays": "14", "maxRenewals": "2"])
            #expect(saved.status == .seeOther)
            let location = try #require(saved.location)
            #expect(!location.contains("done="))
            let shown = try await browser.get(location)
            #expect(shown.html.contains("Settings saved."))
            let again = try await browser.get(location)
            #expect(!again.html.contains("Settings saved."))
            let forged = try await browser.get(base + "/catalog?done=Your%20account%20is%20suspended")
            #expect(!forged.html.contains("suspended"))
            // Another session's flash cookie is ignored.
            browser.cookies[Flash.cookie] = Flash.value("Pay here", session: "sms_someone-else")
            #expect(!(try await browser.get(base + "/catalog")).html.contains("Pay here"))
        }
    }
}
