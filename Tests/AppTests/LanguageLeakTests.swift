@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// No English on a German, Irish or Chinese page. Every page of the web app is walked in
/// each language, refusals included, and its visible text (text nodes and the attributes people
/// read: placeholders, labels, titles, alternative texts, button values) is searched for every
/// interface string in its English form; so are the marks of a developer's message that never went
/// through the strings table (backticks, "must be", "not found"). Proper names and numbers come from
/// the test data, which holds no English words.
@Suite struct LanguageLeakTests {
    /// The text a reader sees on a page.
    static func visibleText(_ html: String) -> String {
        var text = html
        for pattern in ["<script[\\s\\S]*?</script>", "<style[\\s\\S]*?</style>", "<head[\\s\\S]*?</head>"] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        // Proper names (services and formats) are the same in every language.
        for name in ["Google Books", "Open Library", "Amazon", "LibraryThing", "Goodreads", "StoryGraph", "Libib", "Calibre"] {
            text = text.replacingOccurrences(of: name, with: " ")
        }
        // Quoted text is data (a title, a value from a file, a column of its header), not interface.
        text = text.replacingOccurrences(of: "“[^”<]*”|„[^“<]*“", with: "“”", options: .regularExpression)
        var pieces: [String] = []
        let attributes = try! NSRegularExpression(pattern: "\\s(placeholder|aria-label|title|alt|data-busy)=\"([^\"]*)\"")
        for match in attributes.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let range = Range(match.range(at: 2), in: text) { pieces.append(String(text[range])) }
        }
        // Submit buttons written as inputs show their value.
        let buttons = try! NSRegularExpression(pattern: "<input[^>]*type=\"submit\"[^>]*value=\"([^\"]*)\"")
        for match in buttons.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let range = Range(match.range(at: 1), in: text) { pieces.append(String(text[range])) }
        }
        pieces.append(text.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression))
        return pieces.joined(separator: " \n ")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    /// English strings of the table that `lang` says differently, as whole words, with the
    /// placeholders (`{title}`) cut out: the longest fixed piece of each, when it is at least two words.
    static func englishPhrases(differentIn lang: Lang) -> [(key: L, phrase: String)] {
        L.allCases.compactMap { key in
            let english = Strings(lang: .en)(key)
            let own = Strings(lang: lang)(key)
            guard own != english else { return nil }
            let pieces = english.replacingOccurrences(of: "\\{[a-z0-9_]+\\}", with: "\u{1}", options: .regularExpression).split(separator: "\u{1}")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)) }
            guard let longest = pieces.max(by: { $0.count < $1.count }), longest.split(separator: " ").count >= 2 || (pieces.count == 1 && longest.count >= 4)
            else { return nil }
            // A single English word the language also uses inside its own text is not a leak.
            if !own.localizedCaseInsensitiveContains(longest) { return (key, longest) } else { return nil }
        }
    }

    static func leaks(in text: String, lang: Lang, phrases: [(key: L, phrase: String)]? = nil) -> [String] {
        var found: [String] = []
        // The whole-word match only where the phrase is there at all: a regular expression per phrase
        // per page is most of this suite's time otherwise.
        for (key, phrase) in phrases ?? englishPhrases(differentIn: lang) where text.contains(phrase) {
            let escaped = NSRegularExpression.escapedPattern(for: phrase)
            if text.range(of: "(^|[^\\p{L}])" + escaped + "($|[^\\p{L}])", options: .regularExpression) != nil {
                found.append("\(key): “\(phrase)”")
            }
        }
        for mark in ["`", " must be ", " not found", "Something went wrong", "DecodingError", "Debug description"] where text.contains(mark) {
            found.append("developer text: “\(mark)”")
        }
        return found
    }

    /// Shares the owner's year through the web form and answers the link's token (shown once, on the statistics page).
    static func shareYear(_ app: Application, library lib: String) async throws -> String {
        let session = try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"])
        let token = session.string("token")
        var headers = HTTPHeaders()
        headers.add(name: .cookie, value: "\(Credential.cookieName)=\(token)")
        var form = headers
        form.contentType = .urlEncodedForm
        let body = "year=2026&_csrf=" + (CSRF.token(forSession: token).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let made = try await app.testing().sendRequest(.POST, "\(lib)/reading/share", headers: form, body: ByteBuffer(string: body))
        #expect(made.status == .seeOther)
        // The link rides on the one-time flash cookie the answer sets.
        let flash = made.headers[.setCookie].compactMap { $0.split(separator: ";").first.map(String.init) }
        headers.replaceOrAdd(name: .cookie, value: (["\(Credential.cookieName)=\(token)"] + flash).joined(separator: "; "))
        let stats = String(buffer: try await app.testing().sendRequest(.GET, "\(lib)/reading/stats?year=2026", headers: headers).body)
        let range = try #require(stats.range(of: "/shared/year/[A-Za-z0-9_-]{43}", options: .regularExpression), "the link is shown once")
        return String(stats[range].dropFirst("/shared/year/".count))
    }

    @Test func theFinderFindsAnEnglishStringOnAGermanPage() {
        let english = Strings(lang: .en)(.importAnother)
        #expect(!Self.leaks(in: "Katalog · \(english) · Mitglieder", lang: .de).isEmpty)
        #expect(Self.leaks(in: "Katalog · \(Strings(lang: .de)(.importAnother)) · Mitglieder", lang: .de).isEmpty)
        #expect(!Self.leaks(in: "Fehler: `copies` must be between 0 and 500", lang: .de).isEmpty)
    }

    /// Every page in German, Irish, Chinese, and in a fifth language the application loads from one
    /// file (a pseudo-translation: every text accented, so any English left on a page is a leak).
    /// One language a test, so the four walk side by side.
    @Test(arguments: ["de", "ga", "zh-Hans", "fifth"])
    func everyPageInGermanIrishChineseAndAFifthLanguageHasNoEnglish(language: String) async throws {
        let fifth = try TranslationTests.fifthLanguage()
        let lang = try #require(language == "fifth" ? fifth : Lang(rawValue: language))
        try await withTestApp { app in
            app.languages = Lang.allCases + [fifth]
            let f = try await Fixture.make(app)
            let lib = "/libraries/\(f.libraryID)"
            let category = try await f.owner.post("\(f.lib)/categories", ["name": "Zauberei"])
            let categoryID = category.string("id")
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 2,
                                               extra: ["categories": ["Zauberei"], "publisher": "Thienemann"])
            let memberID = try await f.addMember("S1", "Ada", "Lovelace")
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": titleID])
            _ = try await f.owner.post("\(f.lib)/wishlist", ["title": "Krabat", "authors": ["Otfried Preußler"]])
            // The public catalog's pages are walked too: the library publishes it.
            _ = try await f.owner.patch(f.lib, ["publicCatalog": true])
            let user = try #require(try await User.query(on: app.db).first()?.requireID())
            let library = try #require(UUID(uuidString: f.libraryID))
            let failedJob = try await Jobs.begin(.importFile, library: library, target: library, user: user, now: app.clock.now(), app: app)
            try await Jobs.finish(failedJob, result: nil as String?, failure: Jobs.Failure(ExchangeError.emptyFile, languages: app.languages), app: app)
            let runningJob = try await Jobs.begin(.importFile, library: library, target: nil, user: user, now: app.clock.now(), app: app)
            // A finished import whose report names refused and skipped rows of every kind.
            let reportJob = try await Jobs.begin(.importFile, library: library, target: nil, user: user, now: app.clock.now(), app: app)
            let notes = [
                ImportRowNote(line: 2, rowError: .missing(column: "Title")),
                ImportRowNote(line: 3, rowError: .invalid(column: "ISBN", value: "978-0-306-40615-8", reason: .isbn(.badChecksum))),
                ImportRowNote(line: 4, rowError: .invalid(column: "Total Copies", value: "zwei", reason: .notWholeNumber)),
                ImportRowNote(line: 5, rowError: .invalid(column: "Available Copies", value: "3", reason: .moreThanTotal(2))),
                ImportRowNote(line: 6, rowError: .invalid(column: "Rating", value: "9", reason: .ratingOutOfRange)),
                ImportRowNote(line: 7, rowError: .wrongFieldCount(expected: 5, found: 7)),
                ImportRowNote(line: 8, title: nil, reason: "x", code: "not_isbn", values: ["value": "12", "isbn": "wrong_length:2"]),
                ImportRowNote(line: 9, title: nil, reason: "x", code: "providers_late", values: ["isbn": "978-3-522-20260-2"]),
                ImportRowNote(line: 10, title: nil, reason: "x", code: "not_found", values: ["isbn": "978-3-522-20260-2"]),
                ImportRowNote(line: 12, marc: .unsupportedCharacterSet("Cyrillic")),
                ImportRowNote(line: 13, marc: .fieldOutOfBounds(tag: "245")),
                ImportRowNote(line: 14, marc: .badLeader("too short")),
                ImportRowNote(line: 15, title: "Momo", reason: "x", problem: .tooLong(field: "Title", max: 500)),
            ]
            let report = ImportReport(format: ImportFormat.generic.displayName, encoding: "UTF-8", rowsRead: 11, titlesCreated: 1, copiesAdded: 1,
                                      skipped: [ImportRowNote(line: 11, title: "Momo", reason: "x", code: "already_in_library", values: ["isbn": "9783522202602"])],
                                      failed: notes, stoppedAt: "Line 16, column 3: a quoted field is never closed",
                                      stop: ImportRowNote(csv: .unterminatedQuote(line: 16, column: 3)), unit: .line)
            try await Jobs.finish(reportJob, result: ImportJob.Outcome(report: report, library: nil), failure: nil, app: app)

            // A page photo, a loan, a copy and a shared year's link: every kind of id a page takes.
            let photo = try await PhotoQuoteTests.upload(f.owner, "\(f.lib)/titles/\(titleID)/photos?page=12", try PhotoQuoteTests.printedPage(["Momo"]))
            let copy = try #require(try await Copy.query(on: app.db).first()?.requireID())
            let loan = try #require(try await Loan.query(on: app.db).first()?.requireID())
            let shareToken = try await Self.shareYear(app, library: lib)
            let samples = WebRoute.Samples(
                library: library, title: try #require(UUID(uuidString: titleID)), member: try #require(UUID(uuidString: memberID)),
                copy: copy, category: try #require(UUID(uuidString: categoryID)), job: reportJob, loan: loan, user: user, read: UUID(),
                photo: try #require(UUID(uuidString: photo.string("id"))), quote: UUID(), token: shareToken)
            // Every page of the web app (generated from `WebRoute.all`), then the states a page can be in.
            let pages = WebRoute.all(samples).filter { $0.use.contains(.page) }.map(\.route.path) + [
                "\(lib)/catalog?q=zzzz", "\(lib)/catalog?category=\(categoryID)", "\(lib)/add?manual=1", "\(lib)/add?isbn=12345",
                "\(lib)/checkout?q=Momo", "\(lib)/return?barcode=NOPE", "\(lib)/catalog?sort=borrowed", "\(lib)/members?sort=grade",
                WebRoute.job(library: library, job: failedJob).path, WebRoute.job(library: library, job: runningJob).path,
                "\(lib)/titles/\(UUID().uuidString)", "/no-such-page",
                "/public/libraries/\(f.libraryID)?q=momo", "/public/libraries/\(f.libraryID)?q=zzzz", "/public/libraries/\(f.libraryID)/sign-in?sent=1",
            ]
            #expect(pages.count > 30)
            do {
                let phrases = Self.englishPhrases(differentIn: lang)
                let session = try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"])
                let token = session.string("token")
                func get(_ path: String) async throws -> (HTTPStatus, String) {
                    var headers = HTTPHeaders()
                    headers.add(name: .cookie, value: "\(Credential.cookieName)=\(token); shelfmark_lang=\(lang.rawValue)")
                    headers.add(name: .acceptLanguage, value: lang.rawValue)
                    headers.add(name: .accept, value: "text/html,application/xhtml+xml,*/*;q=0.8")
                    let response = try await app.testing().sendRequest(.GET, path, headers: headers)
                    return (response.status, String(buffer: response.body))
                }
                for path in pages {
                    let (status, html) = try await get(path)
                    #expect(status != .internalServerError, "\(path) in \(lang)")
                    #expect(html.contains("lang=\"\(lang.rawValue)\""), "\(path) is not in \(lang)")
                    let leaks = Self.leaks(in: Self.visibleText(html), lang: lang, phrases: phrases)
                    #expect(leaks.isEmpty, "English on \(path) in \(lang.rawValue): \(leaks)")
                }
                // Refusals on forms: each is shown on its page, in the language.
                func post(_ path: String, _ form: [String: String]) async throws -> (HTTPStatus, String) {
                    var headers = HTTPHeaders()
                    headers.add(name: .cookie, value: "\(Credential.cookieName)=\(token); shelfmark_lang=\(lang.rawValue)")
                    headers.contentType = .urlEncodedForm
                    let fields = form.merging(["_csrf": CSRF.token(forSession: token)]) { a, _ in a }
                    let body = fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
                    let response = try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(string: body))
                    return (response.status, String(buffer: response.body))
                }
                let refusals: [(String, [String: String])] = [
                    ("\(lib)/checkout", ["card": "NOBODY", "book": "Momo"]),
                    ("\(lib)/checkout", ["card": "S1", "book": "zzzz-qqqq"]),
                    ("\(lib)/checkout", ["card": "S1", "book": "Momo", "dueDate": "31.02.2026"]),
                    ("\(lib)/members", ["cardId": "S1", "firstName": "Zweite"]),
                    ("\(lib)/members", ["cardId": "S2", "firstName": "Zweite", "email": "kein-at-zeichen"]),
                    ("\(lib)/titles/\(titleID)/edit", ["title": "Momo", "totalCopies": "0"]),
                    ("\(lib)/titles/\(titleID)/edit", ["title": "", "totalCopies": "2"]),
                    ("\(lib)/titles/\(titleID)/edit", ["title": "Momo", "pageCount": "viele", "totalCopies": "2"]),
                    ("\(lib)/members/\(memberID)/edit", ["cardId": "", "firstName": "Ada"]),
                    ("\(lib)/settings", ["name": "Room 12", "loanPeriodDays": "4000", "maxRenewals": "2"]),
                ]
                for (path, form) in refusals {
                    let (status, html) = try await post(path, form)
                    #expect(status.code >= 400 && status.code < 500, "\(path) \(form) answered \(status) in \(lang)")
                    #expect(html.contains("lang=\"\(lang.rawValue)\""), "\(path) is not in \(lang)")
                    let leaks = Self.leaks(in: Self.visibleText(html), lang: lang, phrases: phrases)
                    #expect(leaks.isEmpty, "English on the refusal of \(path) \(form) in \(lang.rawValue): \(leaks)")
                }
                // Signed out: the sign-in page.
                var headers = HTTPHeaders()
                headers.add(name: .acceptLanguage, value: lang.rawValue)
                let login = try await app.testing().sendRequest(.GET, "/login", headers: headers)
                let leaks = Self.leaks(in: Self.visibleText(String(buffer: login.body)), lang: lang, phrases: phrases)
                #expect(leaks.isEmpty, "English on /login in \(lang.rawValue): \(leaks)")
            }
        }
    }
}
