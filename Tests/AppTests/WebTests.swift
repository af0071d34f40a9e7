@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// A browser-like client for the web pages: keeps cookies, sends forms with the CSRF token.
struct Browser {
    let app: Application
    var cookies: [String: String] = [:]
    var language: String?

    struct Page {
        var status: HTTPStatus
        var html: String
        var location: String?
        var setCookies: [String] = []
    }

    /// The token a page of this browser carries: bound to the session once signed in, else the cookie's.
    var csrfToken: String {
        if let session = cookies[Credential.cookieName], !session.isEmpty { return CSRF.token(forSession: session) }
        return cookies["shelfmark_csrf"] ?? ""
    }

    mutating func get(_ path: String) async throws -> Page {
        try await send(.GET, path, form: nil)
    }

    mutating func post(_ path: String, _ form: [String: String], csrf: Bool = true) async throws -> Page {
        var fields = form
        if csrf, fields["_csrf"] == nil { fields["_csrf"] = csrfToken }
        return try await send(.POST, path, form: fields)
    }

    private mutating func send(_ method: HTTPMethod, _ path: String, form: [String: String]?) async throws -> Page {
        var headers = HTTPHeaders()
        if !cookies.isEmpty { headers.add(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        if let language { headers.add(name: .acceptLanguage, value: language) }
        var body: ByteBuffer?
        if let form {
            headers.contentType = .urlEncodedForm
            let encoded = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            body = ByteBuffer(string: encoded)
        }
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: body)
        for cookie in response.headers[.setCookie] {
            let pair = cookie.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { cookies[parts[0]] = parts[1] } else if parts.count == 1 { cookies.removeValue(forKey: parts[0]) }
        }
        return Page(status: response.status, html: String(buffer: response.body), location: response.headers.first(name: .location),
                    setCookies: response.headers[.setCookie])
    }

    /// A multipart form with one file field, as a browser sends an upload.
    mutating func upload(_ path: String, file: (field: String, name: String, data: Data), fields: [String: String] = [:]) async throws -> Page {
        let boundary = "shelfmark-test-boundary"
        var body = Data()
        for (name, value) in fields.merging(["_csrf": csrfToken], uniquingKeysWith: { a, _ in a }) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: text/csv\r\n\r\n".utf8)
        body += file.data + Data("\r\n--\(boundary)--\r\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        if let language { headers.add(name: .acceptLanguage, value: language) }
        headers.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
        let response = try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(data: body))
        return Page(status: response.status, html: String(buffer: response.body), location: response.headers.first(name: .location))
    }

    /// First run: setup through the form, signed in afterwards.
    mutating func setUp() async throws -> String {
        _ = try await get("/setup")
        let done = try await post("/setup", ["libraryName": "Room 12", "username": "teacher", "password": "a long password"])
        #expect(done.status == .seeOther, "\(done.html.prefix(500))")
        return try #require(done.location)
    }
}

@Suite struct WebTests {
    /// A refused form comes back as it was typed, with the reason next to the field it is about
    /// (issue 15): settings, a title's edit form, adding a member.
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
    @Test func everyAPILinkLeadsToARegisteredRoute() async throws {
        try await withTestApp { app in
            let (l, x) = (UUID(), UUID())
            let links: [APILink] = [.export(library: l, format: "marc"), .backup(library: l), .copyBarcode(library: l, copy: x),
                                    .memberBarcode(library: l, member: x), .titleCopies(library: l, title: x), .job(x), .cover(x),
                                    .membersExport(library: l)]
            let routes = app.routes.all.map { $0.path }
            for link in links {
                let segments = String(link.path.split(separator: "?")[0]).split(separator: "/").map(String.init)
                let matches = routes.contains { path in
                    path.count == segments.count && zip(path, segments).allSatisfy { component, segment in
                        switch component {
                        case .constant(let text): text == segment
                        case .parameter: UUID(uuidString: segment) != nil
                        default: false
                        }
                    }
                }
                #expect(matches, "\(link.path) leads to no route")
            }
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
            #expect(web.subtracting(listed).isEmpty, "registered but not in WebRoute.all: \(web.subtracting(listed).sorted())")
            #expect(WebRoute.checkout(library: l).path(query: [("card", "S 1&2"), ("title", nil), ("days", "")]) ==
                    "/libraries/\(l.uuidString)/checkout?card=S%201%262")
        }
    }

    /// An import through the page answers at once with the job's page (F1, issue 15); the page shows
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
            let gone = try await browser.post(base + "/titles/\(titleID)/delete", ["confirm": "true"])
            #expect(gone.status == .seeOther)
            #expect(try await browser.get(base + "/titles/\(titleID)").status == .notFound)
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

    /// What the activity log says about an entry is said in the reader's language, numbers and dates
    /// localised; the English text (the API's `info`) is the one the log stored before.
    @Test func activityDetailsAreInTheReadersLanguage() {
        let due = Date(timeIntervalSince1970: 1_796_000_000)
        let details: [ActivityDetail] = [
            .copies(2), .copiesAdded(1), .copiesChanged(from: 2, to: 3), .lent(barcode: "B0001", due: due), .overdue(days: 4),
            .renewed(due: due), .returnedOnMemberDeletion, .staffAdded(username: "ada", role: .volunteer),
            .roleChanged(username: "ada", role: .librarian), .settings(loanDays: 21, renewals: 2), .renamed(from: "Musik", to: "Lieder"),
            .imported(titles: 1200, copies: 1500, format: .goodreads), .favorite(true), .favorite(false),
        ]
        #expect(ActivityDetail.copies(2).english == "2 copies")
        #expect(ActivityDetail.lent(barcode: "B0001", due: due).english.hasPrefix("copy B0001, due 2026-"))
        let englishWords = ["copy", "copies", "due", "days", "overdue", "renewals", "loan", "period", "titles", "returned", "deleted", "now", "as"]
        for detail in details {
            #expect(ActivityDetail(json: detail.json) == detail)
            for lang in [Lang.de, .ga, .zh] {
                let text = Strings(lang: lang).message(detail)
                let words = Set(text.lowercased().split { !$0.isLetter }.map(String.init))
                #expect(!text.isEmpty && !text.contains("%") && words.isDisjoint(with: englishWords), "\(detail) in \(lang): \(text)")
            }
        }
        #expect(Strings(lang: .de).message(ActivityDetail.imported(titles: 1200, copies: 1500, format: .goodreads)).contains("1.200"))
    }

    /// Refusals reach a German, Irish or Chinese reader in their language, with the values in place.
    @Test func refusalsAreInTheReadersLanguage() async throws {
        let id = UUID()
        // One of every domain error's cases: none of them may reach a reader in English.
        let errors: [any DomainError] = [
            CirculationError.noCopyAvailable(title: "Momo"), CirculationError.memberNotFound("S9"), CirculationError.titleIsWishlistItem,
            CirculationError.loanAlreadyReturned, CirculationError.dueDateInPast, CirculationError.loanPeriodOutOfRange(400),
            CirculationError.copiesBelowOnLoan(requested: 1, onLoan: 2), CirculationError.titleHasCopiesOnLoan(3), CirculationError.copyOnLoan,
            CirculationError.renewalLimitReached(2),
            CatalogError.titleNotFound, CatalogError.copyNotFound, CatalogError.categoryNotFound, CatalogError.coverNotFound,
            CatalogError.ratingOutOfRange(7.5), CatalogError.wishlistHasNoCopies, CatalogError.wishlistItem(title: "Momo"),
            CatalogError.notWishlist(title: "Momo"), CatalogError.duplicateBarcode("B1"), CatalogError.loanedByEditing,
            CatalogError.duplicateCategory("Musik"), CatalogError.duplicateISBN(title: "Momo", titleID: id, library: id),
            CatalogError.tooManyCategories(max: 50), CatalogError.tooManyAuthors(max: 50),
            CatalogError.tooManyCopiesAtOnce(max: 500, from: 1, to: 900), CatalogError.noISBNToDraw(title: "Momo"),
            CatalogError.cover(.tooLarge(maxMB: 5)), CatalogError.cover(.notAnImage),
            MemberError.notFound, MemberError.duplicateCard(card: "S1", holder: "Ada"), MemberError.cardHasSpaces("S 1"),
            MemberError.hasLoans(name: "Ada", count: 2),
            AccountError.alreadySetUp, AccountError.duplicateUsername("ada"), AccountError.tooManyAttempts(waitSeconds: 30),
            AccountError.badCredentials, AccountError.tokenNotFound, AccountError.libraryNotFound, AccountError.staffNotFound,
            AccountError.staffPasswordNeeded(min: 8), AccountError.cannotAddStaff, AccountError.alreadyStaff("ada"), AccountError.lastOwner,
            AccountError.badUsername("a b"), AccountError.passwordTooShort(min: 8), AccountError.passwordTooLong(max: 72),
            AccountError.roleTooLow(.volunteer, needs: .librarian), AccountError.creationRestricted(adminOnly: true),
            AccountError.creationRestricted(adminOnly: false), AccountError.serverSettingsAdminOnly,
            LoanError.loanNotFound, LoanError.noCopyWithBarcode("B1"), LoanError.notOnLoan(barcode: "B1"), LoanError.sayWhichLoan,
            LoanError.memberIDNotFound, LoanError.sayWhoBorrows, LoanError.noTitleWithISBN("9783522202602"), LoanError.sayWhichBook,
            LoanError.copyNotAvailable(title: "Momo"),
            CatalogError.publishedDateWithoutYear("yesterday"),
            ReadingError.readNotFound, ReadingError.quoteNotFound, ReadingError.shareNotFound, ReadingError.photoNotFound,
            ReadingError.photo(.notAnImage), ReadingError.photo(.tooLarge(maxMB: 20)), ReadingError.photo(.damaged), ReadingError.photo(.empty),
            ReadingError.cornersInvalid, ReadingError.pageBeyondEnd(page: 400, pages: 320), ReadingError.noPageHeard(phrase: "hello"),
            ReadingError.heardOutOfRange(12_000), ReadingError.sayOneProgress, ReadingError.momentInFuture, ReadingError.unknownStatus("x"),
            ExchangeError.emptyFile, ExchangeError.noMARCRecords, ExchangeError.marcXMLUnreadable(detail: "line 3"), ExchangeError.notJSON,
            ExchangeError.notLibraryThingJSON, ExchangeError.csv(.unterminatedQuote(line: 4, column: 2)),
            ExchangeError.csv(.strayQuote(line: 4, column: 2)), ExchangeError.unknownFormat, ExchangeError.missingColumns(["Title"]),
            ExchangeError.cannotOpen(path: "/x.csv"), ExchangeError.notABackup, ExchangeError.newerBackup(version: 9),
            ExchangeError.backupTooLarge(rows: 9_000_000, max: 2_000_000), ExchangeError.unreadableBackup(at: "titles › 3"),
            ExchangeError.unreadableBackup(at: nil), ExchangeError.backupSettingOutOfRange(field: "maxRenewals", value: 1_000_000),
            ExchangeError.backupLibraryName, ExchangeError.backupCover(number: 2, .notAnImage),
            JobError.notFound, JobError.busy, JobError.interrupted,
            InputProblem.empty(field: "title"), InputProblem.tooLong(field: "title", max: 500),
            InputProblem.outOfRange(field: "totalCopies", min: 0, max: 2000, got: -2), InputProblem.notEmail(field: "email", value: "x"),
            InputProblem.notCoverURL(field: "coverUrl"), InputProblem.notANumber(field: "pageCount"),
            ISBN.Invalid.badChecksum, ISBN.Invalid.wrongLength(7),
            CatalogError.mergeIntoItself, AccountError.cannotResetPassword, AccountError.duplicateLibraryName("Room 12"),
            LibraryError.unknownTimeZone("Mars/Olympus"), ExchangeError.backupChosenAsImport, ExchangeError.memberListTooLarge(maxMB: 2),
        ]
        for error in errors {
            // The status is the refusal's; the API's English message is the strings table's English row.
            #expect(error.answered.status == error.refusal.status && error.answered.code == error.code, "\(error)")
            #expect(error.answered.message == Strings(lang: .en).message(error), "\(error)")
            let english = Strings(lang: .en).message(error)
            #expect(!english.contains("%") && !english.isEmpty, "\(error)")
            for lang in [Lang.de, .ga, .zh] {
                let text = Strings(lang: lang).message(error)
                #expect(text != english && !text.isEmpty && !text.contains("%"), "\(error) in \(lang)")
            }
        }
        #expect(Strings(lang: .de).message(CirculationError.noCopyAvailable(title: "Momo")).contains("„Momo“"))
        #expect(Strings(lang: .de).message(ISBN.Invalid.badChecksum).contains("Prüfziffer"))
        try await withTestApp { app in
            var browser = Browser(app: app)
            _ = try await browser.setUp()
            _ = try await browser.post("/logout", [:])
            browser.language = "de"
            _ = try await browser.get("/login")
            let wrong = try await browser.post("/login", ["username": "teacher", "password": "not the password"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.html.contains("Falscher Benutzername oder falsches Passwort."))
            #expect(!wrong.html.contains("Wrong username"))
            // A value out of range, named by the field's German label with the numbers in place.
            _ = try await browser.post("/login", ["username": "teacher", "password": "a long password"])
            let home = try await browser.get("/")
            let base = String(try #require(home.location).dropLast("/catalog".count))
            let member = try await browser.post(base + "/members", ["cardId": "S1", "firstName": "  "])
            #expect(member.html.contains("Vorname: bitte ausfüllen."), "\(member.html.prefix(3000))")
            let settings = try await browser.post(base + "/settings", ["name": "Room 12", "loanPeriodDays": "400", "maxRenewals": "2"])
            #expect(settings.html.contains("Leihfrist (Tage) muss zwischen 1 und 365 liegen (eingegeben: 400)."), "\(settings.status)")
        }
    }
}
