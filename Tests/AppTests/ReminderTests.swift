@testable import App
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// The daily reminder run, through a real SMTP server (aiosmtpd with STARTTLS or TLS
/// and AUTH): one message per member listing all their loans, in their language, names and subjects
/// encoded so any mail program shows "Seán Ó Briain" and "王小明"; a second run sends nothing twice;
/// every message in the delivery log with the server's answer; failures kept, not lost.
@Suite(.serialized) struct ReminderTests {
    /// The library's mail server set to `smtp`, reminders on (2 days before, 1/7/14 after), and members
    /// in three languages with loans, one without email.
    struct School {
        let f: Fixture
        let owner: Client
        let members: [String: String]
        let titles: [String: String]
    }

    static func school(_ app: Application, _ smtp: TestSMTPServer, clock: TestClock, security: String = "starttls",
                       password: String = "correct horse battery", reject: String? = nil) async throws -> School {
        app.mailTrustRoots = [smtp.ca]
        let f = try await Fixture.make(app)
        let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
        let server = try await owner.send(.PUT, "\(f.lib)/mail/server", [
            "host": "localhost", "port": smtp.port, "security": security, "username": "library", "password": password,
            "senderAddress": "library@school.example", "senderName": "Bibliothek Room 12 – Ó Dónaill",
        ])
        #expect(server.status == .ok, "\(server.json)")
        let settings = try await owner.patch("\(f.lib)/reminders", ["enabled": true, "beforeDays": 2, "overdueDays": [14, 1, 7],
                                                                     "contact": "Ms Byrne, Room 12, Tuesdays 12:30"])
        #expect(settings.status == .ok && settings["overdueDays"] as? [Int] == [1, 7, 14], "\(settings.json)")
        var titles: [String: String] = [:]
        for (title, author) in [("Momo", "Michael Ende"), ("Holes", "Louis Sachar"), ("西游记", "吴承恩"), ("An Béal Bocht", "Myles na gCopaleen"),
                                ("Emil und die Detektive", "Erich Kästner")] {
            titles[title] = try await f.addTitle(title, authors: [author], copies: 2)
        }
        var members: [String: String] = [:]
        for (card, first, last, email, language) in [("S001", "Seán", "Ó Briain", "sean@example.ie", "ga"),
                                                      ("S002", "小明", "王", "xiaoming@example.cn", "zh-Hans"),
                                                      ("S003", "Mia", "Keller", reject.map { "mia@\($0)" } ?? "mia@example.de", "de"),
                                                      ("S004", "Tom", "Lee", "", "")] {
            let reply = try await owner.post("\(f.lib)/members", ["cardId": card, "firstName": first, "lastName": last, "email": email, "language": language])
            #expect(reply.status == .created, "\(reply.json)")
            members[card] = reply.string("id")
        }
        for (card, title) in [("S001", "Momo"), ("S001", "An Béal Bocht"), ("S002", "西游记"), ("S003", "Emil und die Detektive"), ("S004", "Holes")] {
            let lent = try await owner.post("\(f.lib)/checkouts", ["cardId": card, "titleId": titles[title]!])
            #expect(lent.status == .created, "\(lent.json)")
        }
        return School(f: f, owner: owner, members: members, titles: titles)
    }

    @Test func aRunRemindsEachMemberOnceInTheirLanguageWithEveryLoanListed() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let s = try await Self.school(app, smtp, clock: clock)
            let library = try #require(UUID(uuidString: s.f.libraryID))
            // Nothing is due yet: a run sends nothing.
            #expect(try await Reminders.run(library: library, app: app) == .init(queued: 0, sent: 0, failed: 0, withoutEmail: 0))

            // 15 days later every loan (14 days) is one day overdue: the first overdue reminder.
            clock.advance(days: 15)
            let outcome = try await Reminders.run(library: library, app: app)
            #expect(outcome == .init(queued: 3, sent: 3, failed: 0, withoutEmail: 1), "\(outcome)")
            let received = try smtp.received()
            #expect(received.count == 3)
            let byRecipient = Dictionary(uniqueKeysWithValues: received.map { ($0.rcpt_tos.first ?? "", $0) })

            let sean = try #require(byRecipient["sean@example.ie"])
            #expect(sean.tls && sean.authenticated && sean.raw_is_ascii && sean.defects.isEmpty, "\(sean.defects)")
            #expect(sean.to_name == "Seán Ó Briain" && sean.from_name == "Bibliothek Room 12 – Ó Dónaill")
            #expect(sean.mail_from == "library@school.example")
            #expect(sean.content_language == "ga" && sean.subject.hasPrefix("Thar téarma"), "\(sean.subject)")
            #expect(sean.text.contains("Dia duit Seán") && sean.text.contains("Momo (Michael Ende)") && sean.text.contains("An Béal Bocht"))
            #expect(sean.text.contains("Ms Byrne, Room 12, Tuesdays 12:30") && sean.text.contains("Room 12"))
            #expect(!sean.raw.contains("Seán"), "headers and text are encoded, not raw UTF-8")

            let xiaoming = try #require(byRecipient["xiaoming@example.cn"])
            #expect(xiaoming.to_name == "王小明", "\(xiaoming.to_name)")
            #expect(xiaoming.subject.contains("已逾期") && xiaoming.content_language == "zh-Hans", "\(xiaoming.subject)")
            #expect(xiaoming.text.contains("西游记") && xiaoming.text.contains("吴承恩") && xiaoming.text.contains("逾期"))

            let mia = try #require(byRecipient["mia@example.de"])
            #expect(mia.subject.hasPrefix("Überfällig") && mia.text.contains("Hallo Mia") && mia.text.contains("Emil und die Detektive"), "\(mia.text)")

            // The same day again (a second run, a second instance): nothing twice.
            #expect(try await Reminders.run(library: library, app: app) == .init(queued: 0, sent: 0, failed: 0, withoutEmail: 1))
            #expect(try smtp.received().count == 3)

            // Six days on (7 overdue): the second reminder, once.
            clock.advance(days: 6)
            #expect(try await Reminders.run(library: library, app: app).sent == 3)
            let second = try smtp.received().dropFirst(3)
            #expect(second.count == 3 && second.contains { $0.subject.hasPrefix("Zweite Erinnerung") })

            // The delivery log: every message, sent, with the server's answer.
            let log = try await s.owner.get("\(s.f.lib)/mail/messages")
            let messages = log["messages"] as? [[String: Any]] ?? []
            #expect(messages.count == 6 && messages.allSatisfy { $0["status"] as? String == "sent" }, "\(log.json)")
            #expect(messages.allSatisfy { ($0["reply"] as? String)?.contains("Queued as test-") == true })
            #expect(messages.first?["kind"] as? String == "overdue_2" && log["failedLastDay"] as? Int == 0)
            // Nor is the password anywhere in an answer, or in the database as it was typed.
            let server = try await s.owner.get("\(s.f.lib)/mail/server")
            #expect(server["hasPassword"] as? Bool == true && server.json["password"] == nil && !String(buffer: server.body).contains("correct horse battery"))
            struct Sealed: Decodable { var password_sealed: String? }
            let sealed = try await app.db.sql.raw("SELECT password_sealed FROM mail_servers").first(decoding: Sealed.self)?.password_sealed
            #expect(sealed?.hasPrefix("v1:") == true && sealed?.contains("correct horse") == false)
        }
    }

    @Test func aScheduledRunHappensOncePerDayWhateverTheInstancesAndAtTheLibrarysHour() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let s = try await Self.school(app, smtp, clock: clock)
            #expect(try await s.owner.patch("\(s.f.lib)/reminders", ["hour": 0]).status == .ok)
            clock.advance(days: 15)
            // Two instances tick at once: one run starts, the other finds the day taken.
            let started = try await withThrowingTaskGroup(of: [UUID].self) { group in
                for _ in 0..<2 { group.addTask { try await RecurringJobs.tick(app: app, jobs: [.reminders]) } }
                return try await group.reduce(into: [UUID]()) { $0 += $1 }
            }
            #expect(started.count == 1)
            for id in started { await app.jobRunner.wait(id) }
            #expect(try await RecurringJobs.tick(app: app, jobs: [.reminders]).isEmpty)
            #expect(try smtp.received().count == 3)
            // Two compositions at once (a run and "remind now" on two instances) still remind each loan once.
            let library = try #require(UUID(uuidString: s.f.libraryID))
            clock.advance(days: 6)
            let outcomes = try await withThrowingTaskGroup(of: RecurringJobs.Outcome.self) { group in
                for _ in 0..<2 { group.addTask { try await Reminders.run(library: library, app: app) } }
                return try await group.reduce(into: [RecurringJobs.Outcome]()) { $0.append($1) }
            }
            #expect(outcomes.compactMap(\.sent).reduce(0, +) == 3, "\(outcomes)")
            #expect(try smtp.received().count == 6)
            // Two instances of the server on one PostgreSQL: the next day's run happens once between them,
            // and their two compositions of it send each member one message.
            if Dialect(app.db) != .sqlite {
                clock.advance(days: 7)
                try await withSecondInstance(of: app) { other in
                    let started = try await withThrowingTaskGroup(of: (Application, [UUID]).self) { group in
                        for instance in [app, other] { group.addTask { (instance, try await RecurringJobs.tick(app: instance, jobs: [.reminders])) } }
                        return try await group.reduce(into: [(Application, [UUID])]()) { $0.append($1) }
                    }
                    #expect(started.flatMap(\.1).count == 1, "one run of the day between two instances")
                    for (instance, ids) in started { for id in ids { await instance.jobRunner.wait(id) } }
                    #expect(try smtp.received().count == 9, "the third reminder, once each")
                    let both = try await withThrowingTaskGroup(of: RecurringJobs.Outcome.self) { group in
                        for instance in [app, other] { group.addTask { try await Reminders.run(library: library, app: instance) } }
                        return try await group.reduce(into: [RecurringJobs.Outcome]()) { $0.append($1) }
                    }
                    #expect(both.compactMap(\.sent).reduce(0, +) == 0, "\(both)")
                }
            }
            // Switched off, the library has no reminder run at all.
            #expect(try await s.owner.patch("\(s.f.lib)/reminders", ["enabled": false]).status == .ok)
            clock.advance(days: 7)
            #expect(try await RecurringJobs.tick(app: app, jobs: [.reminders]).isEmpty)
        }
    }

    @Test func aRefusedRecipientIsLoggedWithTheServersWordsAndTheOthersStillGo() async throws {
        let smtp = try TestSMTPServer(rejectDomain: "nowhere.example")
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock, metrics: .init(allowed: [])) { app in
            let s = try await Self.school(app, smtp, clock: clock, reject: "nowhere.example")
            let library = try #require(UUID(uuidString: s.f.libraryID))
            clock.advance(days: 15)
            let outcome = try await Reminders.run(library: library, app: app)
            #expect(outcome.sent == 2 && outcome.failed == 1, "\(outcome)")
            #expect(try smtp.received().count == 2)
            let failed = try await s.owner.get("\(s.f.lib)/mail/messages?failed=true")
            let messages = failed["messages"] as? [[String: Any]] ?? []
            #expect(messages.count == 1 && failed["failedLastDay"] as? Int == 1, "\(failed.json)")
            #expect(messages.first?["recipient"] as? String == "mia@nowhere.example" && messages.first?["problem"] as? String == "rejected")
            #expect((messages.first?["reply"] as? String)?.contains("550") == true)
            // Sending it again fails again, for the same reason; a sent message cannot be "sent again".
            let id = try #require(messages.first?["id"] as? String)
            let again = try await s.owner.post("\(s.f.lib)/mail/messages/\(id)/retry")
            #expect(again.status == .ok && again["status"] as? String == "failed", "\(again.json)")
            let sent = try #require(((try await s.owner.get("\(s.f.lib)/mail/messages"))["messages"] as? [[String: Any]])?.first { $0["status"] as? String == "sent" })
            let refused = try await s.owner.send(.POST, "\(s.f.lib)/mail/messages/\(sent["id"] as! String)/retry", [:], headers: ["Accept-Language": "de"])
            #expect(refused.status == .conflict && refused.errorCode == "not_failed" && refused.errorMessage?.contains("Nachricht") == true)
            // What the metrics counted: two handed over, one refused twice.
            let metrics = try await s.owner.get("/metrics")
            #expect(metrics.status == .ok)
            let text = String(buffer: metrics.body)
            #expect(text.contains("shelfmark_mail_messages_total{outcome=\"sent\"} 2") && text.contains("shelfmark_mail_messages_total{outcome=\"failed\"} 2"), "\(text)")
        }
    }

    @Test func theTestMessageSaysWhyItFailedAndGoesThroughImplicitTLS() async throws {
        let smtp = try TestSMTPServer(mode: "tls")
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let s = try await Self.school(app, smtp, clock: clock, security: "tls", password: "wrong password")
            let failed = try await s.owner.post("\(s.f.lib)/mail/test", ["to": "me@example.org"])
            #expect(failed.status == .ok && failed["status"] as? String == "failed" && failed["problem"] as? String == "auth", "\(failed.json)")
            #expect((failed["reply"] as? String)?.contains("535") == true)
            // The right password (the rest of the settings kept): the test goes through.
            let fixed = try await s.owner.send(.PUT, "\(s.f.lib)/mail/server", [
                "host": "localhost", "port": smtp.port, "security": "tls", "username": "library", "password": "correct horse battery",
                "senderAddress": "library@school.example"])
            #expect(fixed.status == .ok)
            let ok = try await s.owner.post("\(s.f.lib)/mail/test", ["to": "me@example.org"])
            #expect(ok["status"] as? String == "sent", "\(ok.json)")
            let received = try #require(try smtp.received().first)
            #expect(received.tls && received.subject == "Test message from Room 12" && received.rcpt_tos == ["me@example.org"])
            // A server that is not there: said as a connection problem, at once.
            _ = try await s.owner.send(.PUT, "\(s.f.lib)/mail/server", ["host": "127.0.0.1", "port": 9, "security": "tls", "senderAddress": "a@b.example"])
            let nobody = try await s.owner.post("\(s.f.lib)/mail/test", ["to": "me@example.org"])
            #expect(nobody["status"] as? String == "failed" && nobody["problem"] as? String == "connect", "\(nobody.json)")
            // No password over a connection without encryption; volunteers do not see or change any of it.
            let clear = try await s.owner.send(.PUT, "\(s.f.lib)/mail/server", ["host": "localhost", "port": 25, "security": "none",
                                                                                  "username": "library", "password": "x", "senderAddress": "a@b.example"])
            #expect(clear.status == .unprocessableEntity && clear.errorCode == "password_in_clear")
            let volunteer = try await s.f.staff("vol", role: "volunteer")
            #expect(try await volunteer.get("\(s.f.lib)/mail/server").status == .forbidden)
            #expect(try await volunteer.get("\(s.f.lib)/mail/messages").status == .forbidden)
            #expect(try await volunteer.post("\(s.f.lib)/mail/test", ["to": "me@example.org"]).status == .forbidden)
        }
    }

    @Test func remindNowAndEditedTemplates() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let s = try await Self.school(app, smtp, clock: clock)
            // A template: only its placeholders, and a reminder lists the loans.
            let unknown = try await s.owner.send(.PUT, "\(s.f.lib)/mail/templates", ["kind": "overdue_1", "language": "de", "subject": "Hallo {vorname}",
                                                                                     "body": "{loans}"])
            #expect(unknown.status == .unprocessableEntity && unknown.errorCode == "unknown_placeholder" && unknown.errorField == "subject")
            let noLoans = try await s.owner.send(.PUT, "\(s.f.lib)/mail/templates", ["kind": "overdue_1", "language": "de", "subject": "Bücher", "body": "Bitte zurück."])
            #expect(noLoans.errorCode == "loans_missing")
            let edited = try await s.owner.send(.PUT, "\(s.f.lib)/mail/templates", [
                "kind": "overdue_1", "language": "de", "subject": "Liebe(r) {first_name}: {count} Bücher", "body": "Bitte bring zurück:\n{loans}\n{library}"])
            #expect(edited.status == .ok && edited["edited"] as? Bool == true, "\(edited.json)")
            // Remind now: at once, with the member's loans, edited text.
            clock.advance(days: 15)
            let mia = s.members["S003"]!
            let now = try await s.owner.post("\(s.f.lib)/members/\(mia)/reminders")
            #expect(now.status == .ok && now["status"] as? String == "sent" && now["kind"] as? String == "overdue_1", "\(now.json)")
            let received = try #require(try smtp.received().last)
            #expect(received.subject == "Liebe(r) Mia: 1 Bücher" && received.text.contains("Emil und die Detektive") && received.text.contains("Room 12"))
            // Reminded by hand, the loan is not reminded again by today's run.
            let library = try #require(UUID(uuidString: s.f.libraryID))
            #expect(try await Reminders.run(library: library, app: app).sent == 2)
            // Reminded today already: said with the time, and sent again only when asked to.
            let sentBefore = try smtp.received().count
            let twice = try await s.owner.post("\(s.f.lib)/members/\(mia)/reminders")
            #expect(twice.status == .conflict && twice.errorCode == "reminded_today"
                    && twice.errorMessage?.hasSuffix("already. Send the same reminder again?") == true, "\(twice.json)")
            #expect(try smtp.received().count == sentBefore, "nothing mailed twice by accident")
            let again = try await s.owner.post("\(s.f.lib)/members/\(mia)/reminders?again=true")
            #expect(again.status == .ok && again["status"] as? String == "sent", "\(again.json)")
            #expect(try smtp.received().count == sentBefore + 1)
            // Without an email address: a clear refusal (print a letter instead).
            let tom = try await s.owner.send(.POST, "\(s.f.lib)/members/\(s.members["S004"]!)/reminders", [:], headers: ["Accept-Language": "ga"])
            #expect(tom.status == .conflict && tom.errorCode == "no_email" && tom.errorMessage?.contains("Tom Lee") == true, "\(tom.json)")
            // A backup keeps the reminder settings, the edited text, each member's language and each loan's
            // last reminder; restored as a new library (no mail server there), reminders stay off.
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: s.owner.token!)
            let backup = try await app.testing().sendRequest(.GET, "\(s.f.lib)/backup", headers: headers)
            let decoded = try Backup.decode(Data(buffer: backup.body))
            #expect(decoded.mailTemplates?.map(\.subject) == ["Liebe(r) {first_name}: {count} Bücher"])
            #expect(decoded.library.contact == "Ms Byrne, Room 12, Tuesdays 12:30" && decoded.library.remind_overdue_3 == 14)
            #expect(Set(decoded.members.compactMap(\.language)) == ["ga", "zh-Hans", "de"])
            // Tom has no email: his loan keeps its stage (his letter is printed instead).
            #expect(decoded.loans.filter { $0.reminder_stage == ReminderPolicy.Stage.overdue1.rawValue }.count == 4)
            headers.replaceOrAdd(name: .contentType, value: "application/json")
            let accepted = try await app.testing().sendRequest(.POST, "/api/v1/libraries/restore?name=Copy", headers: headers, body: backup.body)
            let restored = try await s.owner.finished(Client.Reply(status: accepted.status, body: accepted.body, headers: accepted.headers))
            let copy = "/api/v1/libraries/\(try #require((restored["library"] as? [String: Any])?["id"] as? String))"
            let copied = try await s.owner.get("\(copy)/reminders")
            #expect(copied["enabled"] as? Bool == false && copied["contact"] as? String == "Ms Byrne, Room 12, Tuesdays 12:30", "\(copied.json)")
            let copiedTemplates = try await s.owner.get("\(copy)/mail/templates").array
            #expect(copiedTemplates.contains { $0["edited"] as? Bool == true && $0["language"] as? String == "de" && $0["kind"] as? String == "overdue_1" })
            let copyID = try #require(UUID(uuidString: String(copy.split(separator: "/").last!)))
            #expect(try await s.owner.send(.PUT, "/api/v1/server/mail", ["host": "localhost", "port": smtp.port, "security": "starttls",
                                                                          "senderAddress": "district@school.example"]).status == .ok)
            #expect(try await s.owner.patch("\(copy)/reminders", ["enabled": true]).status == .ok)
            #expect(try await Reminders.run(library: copyID, app: app) == .init(queued: 0, sent: 0, failed: 0, withoutEmail: 1),
                    "loans reminded before the backup are not reminded again")
            // Back to the default.
            let reset = try await s.owner.post("\(s.f.lib)/mail/templates/reset", ["kind": "overdue_1", "language": "de"])
            #expect(reset["edited"] as? Bool == false && (reset["subject"] as? String)?.hasPrefix("Überfällig") == true)
        }
    }

    @Test func aMemberIsToldWhenABookIsPutAsideForHer() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let s = try await Self.school(app, smtp, clock: clock)
            // Both copies of Momo are out (Seán has one); Xiaoming waits for it.
            let other = try await s.owner.post("\(s.f.lib)/checkouts", ["cardId": "S003", "titleId": s.titles["Momo"]!])
            #expect(other.status == .created)
            let hold = try await s.owner.post("\(s.f.lib)/holds", ["memberId": s.members["S002"]!, "titleId": s.titles["Momo"]!])
            #expect(hold.status == .created, "\(hold.json)")
            let back = try await s.owner.post("\(s.f.lib)/returns", ["copyBarcode": other.string("copyBarcode")])
            #expect((back["heldFor"] as? [String: Any])?["cardId"] as? String == "S002", "\(back.json)")
            // The message was queued with the return; the mail worker (here: its drain) sends it.
            try await MailWorker.drain(app: app)
            let told = try #require(try smtp.received().last)
            #expect(told.rcpt_tos == ["xiaoming@example.cn"] && told.subject == "已为你预留：Momo" && told.text.contains("请在"), "\(told.subject) \(told.text)")
            let log = try await s.owner.get("\(s.f.lib)/mail/messages?member=\(s.members["S002"]!)")
            #expect((log["messages"] as? [[String: Any]])?.first?["kind"] as? String == "hold_ready")
        }
    }
}
