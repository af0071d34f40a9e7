@testable import App
import Foundation
import ShelfmarkCore
import Testing
import Vapor

/// The reminder pages as a librarian uses them, in German: the mail server and a test
/// message through a real SMTP server, the settings (refused next to their field), a text changed and
/// reset, overdue at a glance with one tap, the delivery log with a failure said in German.
@Suite(.serialized) struct ReminderPageTests {
    @Test func aLibrarianSetsUpRemindersTestsThemAndRemindsFromTheDashboard() async throws {
        let smtp = try TestSMTPServer(rejectDomain: "nowhere.example")
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            app.mailTrustRoots = [smtp.ca]
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let momo = try await f.addTitle("Momo", copies: 2)
            let mia = try await owner.post("\(f.lib)/members", ["cardId": "S012", "firstName": "Mia", "email": "mia@example.de", "language": "de"]).string("id")
            let ben = try await owner.post("\(f.lib)/members", ["cardId": "S013", "firstName": "Ben", "email": "ben@nowhere.example"]).string("id")
            for card in ["S012", "S013"] { #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": momo]).status == .created) }

            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            var page = try await browser.get("\(web)/reminders")
            #expect(page.status == .ok && page.html.contains("Noch kein Mailserver eingerichtet"), "\(page.html)")
            // Switching on without a server: refused, said in German, what was typed kept.
            let early = try await browser.post("\(web)/reminders", ["enabled": "true", "hour": "7", "beforeDays": "2", "overdueDays1": "1",
                                                                    "language": "de", "contact": "Frau Berg, Raum 12"])
            #expect(early.status == .unprocessableEntity && early.html.contains("Richte zuerst einen Mailserver ein") && early.html.contains("Frau Berg, Raum 12"))
            // The server, then a test message through it.
            let saved = try await browser.post("\(web)/reminders/server", ["host": "localhost", "port": String(smtp.port), "security": "starttls",
                                                                           "username": "library", "password": "correct horse battery",
                                                                           "senderAddress": "bibliothek@schule.example", "senderName": "Bibliothek"])
            #expect(saved.status == .seeOther, "\(saved.html)")
            page = try await browser.get("\(web)/reminders")
            #expect(page.html.contains("value=\"localhost\"") && !page.html.contains("correct horse battery"))
            let tested = try await browser.post("\(web)/reminders/test", ["to": "ich@example.de"])
            #expect(tested.status == .seeOther)
            page = try await browser.get("\(web)/reminders")
            #expect(page.html.contains("Die Nachricht an ich@example.de ist hinausgegangen") && page.html.contains("Queued as"), "\(page.html)")
            #expect(try smtp.received().last?.subject == "Testnachricht der Room 12" || (try smtp.received().last?.subject.hasPrefix("Test")) == true)
            // Settings saved; a day out of range is refused next to its field.
            let wrong = try await browser.post("\(web)/reminders", ["enabled": "true", "hour": "7", "beforeDays": "2", "overdueDays1": "400",
                                                                    "language": "de", "contact": "Frau Berg"])
            #expect(wrong.status == .unprocessableEntity && wrong.html.contains("field invalid"))
            #expect(try await browser.post("\(web)/reminders", ["enabled": "true", "hour": "7", "beforeDays": "2", "overdueDays1": "1",
                                                                "overdueDays2": "7", "language": "de", "contact": "Frau Berg, Raum 12"]).status == .seeOther)
            page = try await browser.get("\(web)/reminders")
            #expect(page.html.contains("Nächster Versand") && page.html.contains("<option value=\"7\" selected"))
            // A text in German, changed; an unknown placeholder refused where it is.
            let textPage = "\(web)/reminders/texts?kind=overdue_1&lang=de"
            let unknown = try await browser.post(textPage, ["subject": "Hallo {vorname}", "body": "{loans}", "action": "save"])
            #expect(unknown.status == .unprocessableEntity && unknown.html.contains("{vorname}") && unknown.html.contains("field invalid"))
            #expect(try await browser.post(textPage, ["subject": "Bitte zurückbringen, {first_name}", "body": "{loans}\n\n{library}", "action": "save"]).status == .seeOther)
            page = try await browser.get(textPage)
            #expect(page.html.contains("Bitte zurückbringen, {first_name}") && page.html.contains("Zurück zum Standardtext"))

            // Overdue at a glance: both members on the dashboard; one tap reminds Mia; Ben's server refuses.
            clock.advance(days: 15)
            page = try await browser.get("\(web)/dashboard")
            #expect(page.html.contains("Überfällig, nach Mitglied") && page.html.contains("Noch nicht erinnert") && page.html.contains("Jetzt erinnern"))
            let reminded = try await browser.post("\(web)/members/\(mia)/remind", ["back": "\(web)/dashboard"])
            #expect(reminded.status == .seeOther && reminded.location == "\(web)/dashboard")
            page = try await browser.get("\(web)/dashboard")
            #expect(page.html.contains("ist hinausgegangen") && page.html.contains("Letzte Erinnerung"))
            #expect(try smtp.received().last?.subject == "Bitte zurückbringen, Mia")
            // Once more the same day: asked first (with the time), then sent only on "Noch einmal senden".
            let mailed = try smtp.received().count
            let asked = try await browser.post("\(web)/members/\(mia)/remind", ["back": "\(web)/dashboard"])
            #expect(asked.status == .conflict && asked.html.contains("Heute um") && asked.html.contains("Noch einmal senden"), "\(asked.html.prefix(300))")
            #expect(try smtp.received().count == mailed)
            let sentAgain = try await browser.post("\(web)/members/\(mia)/remind", ["back": "\(web)/dashboard", "again": "true"])
            #expect(sentAgain.status == .seeOther && sentAgain.location == "\(web)/dashboard")
            #expect(try smtp.received().count == mailed + 1)
            _ = try await browser.post("\(web)/members/\(ben)/remind", ["back": "\(web)/loans?show=overdue"])
            page = try await browser.get("\(web)/loans?show=overdue")
            #expect(page.html.contains("der Mailserver hat die Nachricht abgelehnt") && page.html.contains("550"), "\(page.html)")
            // The delivery log: the failure in German with the server's words, and a banner on the dashboard.
            page = try await browser.get("\(web)/reminders/sent?failed=1")
            #expect(page.html.contains("ben@nowhere.example") && page.html.contains("fehlgeschlagen") && page.html.contains("Erneut senden"))
            #expect(!page.html.contains("mia@example.de"))
            page = try await browser.get("\(web)/dashboard")
            #expect(page.html.contains("In den letzten 24 Stunden fehlgeschlagene Nachrichten: 1"))
            // The administrator sets a server for every library on the reminders page; removing it leaves the library's own.
            page = try await browser.get("\(web)/reminders")
            #expect(page.html.contains("Mailserver für alle Bibliotheken dieses Servers") && page.html.contains("id=\"f-all-host\""))
            let all = try await browser.post("\(web)/reminders/server/all", ["host": "mail.district.example", "port": "587", "security": "starttls",
                                                                            "senderAddress": "library@district.example", "action": "save"])
            #expect(all.status == .seeOther)
            #expect(try await owner.get("/api/v1/server/mail")["host"] as? String == "mail.district.example")
            _ = try await browser.post("\(web)/reminders/server/all", ["host": "x", "port": "1", "senderAddress": "a@b.example", "action": "remove"])
            #expect(try await owner.get("/api/v1/server/mail").status == .notFound)
            #expect(try await owner.get("\(f.lib)/mail/server")["host"] as? String == "localhost")
            // A member's language is chosen on their edit page.
            page = try await browser.get("\(web)/members/\(ben)/edit")
            #expect(page.html.contains("Sprache für Nachrichten"))
            _ = try await browser.post("\(web)/members/\(ben)/edit", ["cardId": "S013", "firstName": "Ben", "email": "ben@nowhere.example", "language": "ga"])
            #expect(try await owner.get("\(f.lib)/members/\(ben)")["member"].map { ($0 as? [String: Any])?["language"] as? String } == "ga")
        }
    }

    /// Members without email get a printed letter: one PDF, a letter each, read back by `pdftotext`.
    @Test func lettersForMembersWithoutEmailKeepEveryNameAndTitle() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            #expect(try await owner.patch("\(f.lib)/reminders", ["contact": "Ms Byrne, Room 12, Tuesdays 12:30"]).status == .ok)
            var titles: [String: String] = [:]
            for (title, author) in [("西游记", "吴承恩"), ("An Béal Bocht", "Myles na gCopaleen"), ("Momo", "Michael Ende"), ("Holes", "Louis Sachar")] {
                titles[title] = try await f.addTitle(title, authors: [author])
            }
            for (card, first, last, email, language) in [("S001", "Seán", "Ó Briain", "", "ga"), ("S002", "小明", "王", "", "zh-Hans"),
                                                          ("S003", "Mia", "Keller", "mia@example.de", "de")] {
                #expect(try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": first, "lastName": last, "email": email,
                                                                  "language": language]).status == .created)
            }
            for (card, title) in [("S001", "An Béal Bocht"), ("S001", "Momo"), ("S002", "西游记"), ("S003", "Holes")] {
                #expect(try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": titles[title]!]).status == .created)
            }
            clock.advance(days: 20)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: owner.token!)
            let reply = try await app.testing().sendRequest(.GET, "\(f.lib)/reminders/letters.pdf", headers: headers)
            #expect(reply.status == .ok && reply.headers.contentType?.subType == "pdf" && reply.headers.first(name: "X-Letter-Count") == "2")
            let bytes = Data(buffer: reply.body)
            #expect(bytes.starts(with: Data("%PDF-".utf8)))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("letters-\(UUID().uuidString).pdf")
            try bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let text = try Self.pdfText(file)
            // Both letters, each with the member's name, their books and the library's name and contact; Mia has email: no letter.
            for expected in ["Seán Ó Briain", "S001", "An Béal Bocht", "Momo", "王小明", "S002", "西游记", "吴承恩", "Room 12", "Ms Byrne, Room 12, Tuesdays 12:30"] {
                #expect(text.contains(expected), "“\(expected)” is not in the letters: \(text)")
            }
            #expect(!text.contains("Mia") && !text.contains("Holes"))
            // In the member's language: Irish for Seán, Chinese for 小明; one page each.
            #expect(text.contains("Dia duit Seán") && text.contains("逾期"))
            #expect(text.components(separatedBy: "\u{0C}").filter { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }.count == 2)
            // Volunteers print them too; viewers do not.
            let viewer = try await f.staff("view", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/reminders/letters.pdf").status == .forbidden)
        }
    }

    static func pdfText(_ file: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftotext")
        process.arguments = ["-enc", "UTF-8", file.path, "-"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }
}
