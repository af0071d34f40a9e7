@testable import App
import Foundation
import NIOCore
import ShelfmarkCore
import ShelfmarkMail
import SQLKit
import Testing
import Vapor
import VaporTesting

/// The public door, tried as an attacker would: a forged `Host` in a sign-in link, parallel PIN
/// guesses, a line break in an address, a kiosk that names other members, a mail password that
/// follows its settings, unbounded holds, feeds and kiosks that outlive their person, shared throttles
/// and a setup anyone on the LAN could claim.
@Suite(.serialized) struct HardeningTests {
    /// A form posted with a CSRF cookie and extra headers (a forged `Host`, say).
    private func form(_ app: Application, _ path: String, _ fields: [String: String], headers extra: HTTPHeaders = [:]) async throws -> TestingHTTPResponse {
        let csrf = String(repeating: "a", count: 40)
        var headers = extra
        headers.add(name: .cookie, value: "shelfmark_csrf=\(csrf)")
        headers.contentType = .urlEncodedForm
        let body = (fields.merging(["_csrf": csrf]) { a, _ in a })
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
        return try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(string: body))
    }

    private func count(_ app: Application, _ sql: String) async throws -> Int {
        try await app.db.sql.raw(SQLQueryString(sql)).first()?.decode(column: "n", as: Int.self) ?? -1
    }

    // MARK: 1: one origin for links

    @Test func hostNamesAreParsedNeverMatchedByPrefix() {
        #expect(HostName(parsing: "127.evil.example")?.isLoopback == false)
        #expect(HostName(parsing: "127.0.0.1")?.isLoopback == true)
        #expect(HostName(parsing: "127.0.0.1:8080")?.port == 8080)
        #expect(HostName(parsing: "localhost.evil")?.isLoopback == false)
        #expect(HostName(parsing: "LOCALHOST")?.isLoopback == true)
        #expect(HostName(parsing: "[::1]:8443")?.isLoopback == true)
        #expect(HostName(parsing: "[::1].evil") == nil)
        #expect(HostName(parsing: "::ffff:127.0.0.1")?.isLoopback == true)
        #expect(HostName(parsing: "::ffff:10.0.0.1")?.isLoopback == false)
        #expect(HostName(parsing: "10.0.0.9")?.isPrivateAddress == true)
        #expect(HostName(parsing: "192.168.1.20")?.isPrivateAddress == true)
        #expect(HostName(parsing: "smtp.school.example")?.isPrivateAddress == false)
        #expect(HostName(parsing: "a b") == nil && HostName(parsing: "evil.example\r\nX: y") == nil && HostName(parsing: "") == nil)
        #expect(HostName(parsing: "host:99999") == nil && HostName(parsing: "-bad.example") == nil)
    }

    @Test func aSignInLinkNeverPointsAtAnotherServer() async throws {
        try await withTestApp { app in
            let l = try await PublicCatalogTests.library(app)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)
            let server = try await l.owner.send(.PUT, "\(l.f.lib)/mail/server", [
                "host": "localhost", "port": 2525, "security": "starttls", "senderAddress": "library@school.example",
            ])
            #expect(server.status == .ok, "\(server.json)")
            app.publicURL = nil
            for forged in ["127.evil.example", "127.0.0.1.evil.example", "localhost.evil", "[::1].evil", "203.0.113.7", "10.254.254.254:8080"] {
                var headers = HTTPHeaders()
                headers.replaceOrAdd(name: .host, value: forged)
                let asked = try await form(app, "\(l.web)/sign-in/email", ["cardId": "S012"], headers: headers)
                #expect(asked.status == .seeOther && asked.headers.first(name: .location) == "\(l.web)/sign-in", "\(forged): \(asked.status)")
                #expect(try await count(app, "SELECT COUNT(*) AS n FROM mail_messages") == 0, "a link was made for Host: \(forged)")
            }
            // This machine's own address is an origin; the link is built from it, port and all.
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .host, value: "127.0.0.1:8080")
            let asked = try await form(app, "\(l.web)/sign-in/email", ["cardId": "S012"], headers: headers)
            #expect(asked.headers.first(name: .location) == "\(l.web)/sign-in?sent=1")
            let body = try await app.db.sql.raw("SELECT body FROM mail_messages").first()?.decode(column: "body", as: String.self) ?? ""
            #expect(body.contains("http://127.0.0.1:8080/public/libraries/\(l.f.libraryID)/sign-in/link/"), "\(body)")
        }
    }

    // MARK: 2, 10: a throttle that counts before it hashes, members and staff apart

    @Test func sixtyParallelPINGuessesCheckAtMostFive() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await PublicCatalogTests.library(app)
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)
            #expect(try await l.owner.send(.PUT, "\(l.f.lib)/members/\(l.members["S012"]!)/pin", ["pin": "2468"]).status == .noContent)
            let statuses = try await withThrowingTaskGroup(of: (HTTPStatus, String?).self) { group in
                for i in 0..<60 {
                    group.addTask {
                        let reply = try await form(app, "\(l.web)/sign-in", ["cardId": "S012", "pin": String(format: "%04d", 1000 + i)])
                        return (reply.status, reply.headers.first(name: "Retry-After"))
                    }
                }
                var all: [(HTTPStatus, String?)] = []
                for try await s in group { all.append(s) }
                return all
            }
            let checked = statuses.filter { $0.0 == .unauthorized }.count
            let refused = statuses.filter { $0.0 == .tooManyRequests }
            #expect(checked <= LoginThrottle.freeFailuresPerAccount, "\(checked) guesses were checked")
            #expect(checked + refused.count == 60 && refused.allSatisfy { $0.1 != nil }, "\(statuses.map(\.0.code))")
            // Locked: the right PIN is refused too.
            let right = try await form(app, "\(l.web)/sign-in", ["cardId": "S012", "pin": "2468"])
            #expect(right.status == .tooManyRequests && right.headers.first(name: "Retry-After") != nil)

            // Staff sign-in the same, through the API.
            let staff = try await withThrowingTaskGroup(of: HTTPStatus.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "wrong guess"]).status }
                }
                var all: [HTTPStatus] = []
                for try await s in group { all.append(s) }
                return all
            }
            #expect(staff.filter { $0 == .unauthorized }.count <= LoginThrottle.freeFailuresPerAccount, "\(staff.map(\.code))")
            let locked = try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"])
            #expect(locked.status == .tooManyRequests && locked.headers.first(name: "Retry-After") != nil)
            // The count outlives the lock: once it ends, one more wrong guess locks again, for longer.
            clock.advance(days: 20 * 60 / 86_400)
            #expect(try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "wrong guess"]).status == .unauthorized)
            #expect(try await LoginThrottle.wait(account: "owner", address: nil, now: clock.now, on: app.db) > 0)
        }
    }

    @Test func linkRequestsAndPINGuessesDoNotLockTheStaffOutOfTheirAddress() async throws {
        try await withTestApp { app in
            _ = try await Fixture.make(app)
            let (gate, now, address) = (app.writeGate, Date(), "192.0.2.44")
            // A class asks for links for every card from one address, and guesses PINs.
            for card in 0..<40 {
                _ = try await LoginThrottle.take(.link, account: "lib:S\(card)", address: address, now: now, gate: gate, on: app.db)
                _ = try await LoginThrottle.take(.member, account: "lib:S\(card)", address: address, now: now, gate: gate, on: app.db)
            }
            #expect(try await LoginThrottle.take(.link, account: "lib:S99", address: address, now: now, gate: gate, on: app.db) > 0)
            #expect(try await LoginThrottle.take(.member, account: "lib:S99", address: address, now: now, gate: gate, on: app.db) > 0)
            // The librarian at the same address signs in.
            #expect(try await LoginThrottle.take(.staff, account: "owner", address: address, now: now, gate: gate, on: app.db) == 0)
        }
    }

    // MARK: 3: an address that cannot be wrong

    @Test func aLineBreakInAnEmailIsRefusedAtEveryDoorAndNeverStopsTheServer() async throws {
        let smtp = try TestSMTPServer()
        defer { smtp.stop() }
        try await withTestApp { app in
            app.mailTrustRoots = [smtp.ca]
            let l = try await PublicCatalogTests.library(app)
            let mia = l.members["S012"]!
            for evil in ["kid@school.example\nx", "kid@school.example\r\nRCPT TO:<all@school.example>", "kid@school.example\u{2028}x", "kid@school.example\u{85}x", "kid @school.example"] {
                let patched = try await l.owner.patch("\(l.f.lib)/members/\(mia)", ["email": evil])
                #expect(patched.status == .unprocessableEntity && patched.errorField == "email", "\(evil.debugDescription): \(patched.status)")
                let made = try await l.owner.post("\(l.f.lib)/members", ["cardId": "S777", "firstName": "Eve", "email": evil])
                #expect(made.status == .unprocessableEntity && made.errorField == "email")
            }
            #expect(try await app.db.sql.raw("SELECT email FROM members WHERE card_id = 'S012'").first()?.decode(column: "email", as: String.self) == "mia.keller@example.de")
            // In German, at the member form's door.
            let refused = try await l.owner.send(.PATCH, "\(l.f.lib)/members/\(mia)", ["email": "kid@school.example\nx"], headers: ["Accept-Language": "de"])
            #expect(refused.errorMessage?.contains("E-Mail") == true, "\(refused.errorMessage ?? "")")

            // Written straight into the database (by an older version, by hand): the mail goes out for
            // everyone else, that one message fails as "not an address", is not retried, and the server serves on.
            #expect(try await l.owner.patch(l.f.lib, ["publicCatalog": true]).status == .ok)
            #expect(try await l.owner.send(.PUT, "\(l.f.lib)/mail/server", [
                "host": "localhost", "port": smtp.port, "security": "starttls", "username": "library", "password": "correct horse battery",
                "senderAddress": "library@school.example",
            ]).status == .ok)
            app.publicURL = "https://library.school.example"
            try await app.db.sql.raw("UPDATE members SET email = \(bind: "kid@school.example\r\nRCPT TO:<all@school.example>") WHERE id = \(bind: UUID(uuidString: mia)!)").run()
            try await app.db.sql.raw("UPDATE members SET email = 'ben@school.example' WHERE card_id = 'S013'").run()
            var browser = Browser(app: app)
            _ = try await browser.get("\(l.web)/sign-in")
            for card in ["S012", "S013"] { _ = try await browser.post("\(l.web)/sign-in/email", ["cardId": card]) }
            let outcome = try await Mailer.deliver(library: UUID(uuidString: l.f.libraryID)!, app: app)
            #expect(outcome.sent == 1 && outcome.failed == 1, "\(outcome)")
            #expect(try smtp.received().map(\.rcpt_tos) == [["ben@school.example"]])
            let log = try await l.owner.get("\(l.f.lib)/mail/messages").json["messages"] as? [[String: Any]] ?? []
            let failed = log.first { $0["status"] as? String == "failed" }
            #expect(failed?["problem"] as? String == "address", "\(log)")
            // Not sent again: neither by the next round nor by a retry.
            #expect(try await Mailer.deliver(library: UUID(uuidString: l.f.libraryID)!, app: app).sent == 0)
            if let id = failed?["id"] as? String {
                #expect(try await l.owner.post("\(l.f.lib)/mail/messages/\(id)/retry").status != .ok)
            }
            #expect(try await Client(app: app).get("/api/v1/health").status == .ok)
            // The SMTP client itself refuses such an address as that message's failure.
            #expect(Mailer.describe(SMTPError.notAnAddress("kid@school.example\r\nx")).0 == .address)
            // And a restore that brings one is refused with its place.
            var backup = try Backup.decode(Data(buffer: try await l.owner.get("\(l.f.lib)/backup").body))
            backup.members[0].email = "kid@school.example\nx"
            let restored = try await l.owner.finished(try await l.owner.send(.POST, "/api/v1/libraries/restore?name=Evil",
                                                                              rawBody: try Backup.encode(backup), contentType: "application/json"))
            #expect(restored.status == .unprocessableEntity && (restored.errorMessage ?? "").contains("members[0].email"), "\(restored.json)")
        }
    }

    @Test func aCardNumberOrBarcodeWithAnInvisibleCharacterIsRefusedNotQuietlyChanged() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            for card in ["S01\u{7}2", "S01\n2", "S01\u{200B}2", "S01\t2"] {
                let made = try await f.owner.send(.POST, "\(f.lib)/members", ["cardId": card, "firstName": "Eve"], headers: ["Accept-Language": "de"])
                #expect(made.status == .unprocessableEntity && made.errorField == "cardId", "\(card.debugDescription): \(made.status)")
                #expect(!(made.errorMessage ?? "").isEmpty)
            }
            #expect(try await count(app, "SELECT COUNT(*) AS n FROM members") == 0)
            let title = try await f.addTitle("Momo", copies: 1)
            let copy = ((try await f.owner.get("\(f.lib)/titles/\(title)")["copies"] as? [[String: Any]])?.first?["id"] as? String) ?? ""
            let refused = try await f.owner.patch("\(f.lib)/copies/\(copy)", ["barcode": "C0001\nX"])
            #expect(refused.status == .unprocessableEntity && refused.errorField == "barcode")
            #expect(try await f.owner.patch("\(f.lib)/copies/\(copy)", ["barcode": " SCHOOL 0001 "]).status == .ok)
            let kept = try await app.db.sql.raw("SELECT barcode FROM copies").first()?.decode(column: "barcode", as: String.self)
            #expect(kept == "SCHOOL 0001")
        }
    }

    // MARK: 4, 9: the kiosk names nobody but the member at it; kiosks end

    @Test func theKioskNamesNobodyButTheMemberAtItAndKiosksEnd() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await PublicCatalogTests.library(app, hold: true)
            let f = l.f
            // Ben gives Holes back: set aside for Mia.
            let loans = try await l.owner.get("\(f.lib)/loans").array
            let holesCode = loans.first { $0["memberCardId"] as? String == "S013" }?["copyBarcode"] as? String ?? ""
            #expect(try await l.owner.post("\(f.lib)/returns", ["copyBarcode": holesCode]).status == .ok)
            _ = try await l.owner.post("\(f.lib)/members", ["cardId": "S014", "firstName": "Cara"])
            var tablet = Browser(app: app)
            _ = try await tablet.get("/login")
            #expect(try await tablet.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            _ = try await tablet.post("/libraries/\(f.libraryID)/kiosk", [:])
            let kiosk = "/kiosk/\(f.libraryID)"
            #expect(try await tablet.post(kiosk, ["card": "S014"]).location == "\(kiosk)/member")
            #expect(try await tablet.post("\(kiosk)/member", ["barcode": holesCode]).status == .seeOther)
            let page = try await tablet.get("\(kiosk)/member")
            #expect(page.html.contains("put aside for another reader"), "\(page.html)")
            for name in ["Mia", "Keller", "S012"] { #expect(!page.html.contains(name), "the kiosk named \(name)") }

            // A turn cookie the device signs itself (with its own CSRF cookie) starts nobody's turn.
            var forger = tablet
            forger.cookies.removeValue(forKey: Kiosks.memberCookie)
            let mia = l.members["S012"]!
            forger.cookies[Kiosks.memberCookie] = Flash.value("\(mia)|\(Int(clock.now.timeIntervalSince1970 + 60))", session: forger.csrfToken)
            let forged = try await forger.get("\(kiosk)/member")
            #expect(forged.status == .seeOther && forged.location == kiosk)

            // The librarian sees the kiosk on the kiosk page and ends it from there.
            var desk = Browser(app: app)
            _ = try await desk.get("/login")
            _ = try await desk.post("/login", ["username": "owner", "password": "correct horse"])
            let listed = try await desk.get("/libraries/\(f.libraryID)/kiosk")
            #expect(listed.html.contains("Started by owner") && listed.html.contains("name=\"end\""), "\(listed.html)")
            let id = try await app.db.sql.raw("SELECT id FROM kiosks").first()?.decode(column: "id", as: UUID.self)
            #expect(try await desk.post("/libraries/\(f.libraryID)/kiosk", ["end": id?.uuidString ?? ""]).status == .seeOther)
            #expect(try await tablet.get(kiosk).html.contains("not a self-service kiosk"))
            #expect(desk.cookies[Credential.cookieName] != nil, "ending a kiosk from the list signed the librarian out")

            // A kiosk nobody used for 30 days ends itself.
            var second = Browser(app: app)
            _ = try await second.get("/login")
            _ = try await second.post("/login", ["username": "owner", "password": "correct horse"])
            _ = try await second.post("/libraries/\(f.libraryID)/kiosk", [:])
            #expect(try await second.get(kiosk).html.contains("name=\"card\""))
            clock.advance(days: 31)
            #expect(try await second.get(kiosk).html.contains("not a self-service kiosk"))
            #expect(try await count(app, "SELECT COUNT(*) AS n FROM kiosks") == 0)
        }
    }

    @Test func theKioskAsksForThePINWhenTheLibrarySaysSo() async throws {
        // A held clock, so the guessing lock (seconds long) cannot end between the guesses of a slow run.
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await PublicCatalogTests.library(app)
            let f = l.f
            #expect(try await l.owner.send(.PUT, "\(f.lib)/members/\(l.members["S012"]!)/pin", ["pin": "2468"]).status == .noContent)
            #expect(try await l.owner.patch(f.lib, ["kioskAsksPin": true]).json["kioskAsksPin"] as? Bool == true)
            var tablet = Browser(app: app)
            _ = try await tablet.get("/login")
            _ = try await tablet.post("/login", ["username": "owner", "password": "correct horse"])
            _ = try await tablet.post("/libraries/\(f.libraryID)/kiosk", [:])
            let kiosk = "/kiosk/\(f.libraryID)"
            #expect(try await tablet.get(kiosk).html.contains("name=\"pin\""))
            // The card alone, a wrong PIN, a card without a PIN: refused alike.
            for (card, pin) in [("S012", ""), ("S012", "1111"), ("S013", "2468")] {
                let refused = try await tablet.post(kiosk, ["card": card, "pin": pin])
                #expect(refused.status == .unauthorized && refused.html.contains("do not match"), "\(card)/\(pin): \(refused.status)")
            }
            #expect(try await tablet.post(kiosk, ["card": "S012", "pin": "2468"]).location == "\(kiosk)/member")
            // Guessing at the kiosk is throttled as at the catalog's sign-in.
            for _ in 0..<6 { _ = try await tablet.post(kiosk, ["card": "S013", "pin": "0000"]) }
            #expect(try await tablet.post(kiosk, ["card": "S013", "pin": "0000"]).status == .tooManyRequests)
        }
    }

    // MARK: 5, 6: mail

    @Test func theMailPasswordStaysWithItsServerAndOwnersCannotMailTheWorld() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let path = "\(f.lib)/mail/server"
            #expect(try await f.owner.send(.PUT, path, ["host": "smtp.school.example", "port": 587, "security": "starttls", "username": "library",
                                                        "password": "secret", "senderAddress": "library@school.example"]).status == .ok)
            #expect(try await f.owner.get(path)["hasPassword"] as? Bool == true)
            // Same server, no password sent: kept.
            _ = try await f.owner.send(.PUT, path, ["host": "smtp.school.example", "port": 587, "security": "starttls", "username": "library",
                                                    "senderAddress": "office@school.example"])
            #expect(try await f.owner.get(path)["hasPassword"] as? Bool == true)
            // Another host, port or user: dropped.
            for change in [["host": "mail.evil.example"], ["port": 2525], ["username": "other"]] as [[String: Any]] {
                _ = try await f.owner.send(.PUT, path, ["host": "smtp.school.example", "port": 587, "security": "starttls", "username": "library",
                                                        "password": "secret", "senderAddress": "library@school.example"])
                var put: [String: Any] = ["host": "smtp.school.example", "port": 587, "security": "starttls", "username": "library",
                                          "senderAddress": "library@school.example"]
                put.merge(change) { $1 }
                #expect(try await f.owner.send(.PUT, path, put).status == .ok)
                #expect(try await f.owner.get(path)["hasPassword"] as? Bool == false, "\(change): the password followed")
            }

            // A librarian who is not the administrator makes a library: no private hosts, tests only to the library.
            #expect(try await f.owner.send(.PATCH, "/api/v1/server", ["libraryCreation": "staff"]).status == .ok)
            let lena = try await f.staff("lena", role: "librarian")
            let made = try await lena.post("/api/v1/libraries", ["name": "Lena's shelf"])
            #expect(made.status == .created, "\(made.json)")
            let own = "/api/v1/libraries/\(made.string("id"))"
            for host in ["127.0.0.1", "localhost", "10.0.0.5", "192.168.1.1", "[::1]"] {
                let refused = try await lena.send(.PUT, "\(own)/mail/server", ["host": host, "port": 25, "security": "starttls",
                                                                               "senderAddress": "lena@school.example"])
                #expect(refused.status == .forbidden && refused.errorCode == "private_mail_host", "\(host): \(refused.status)")
            }
            // Other spellings of an address are not names the resolver would read as 127.0.0.1.
            for host in ["0177.0.0.1", "0x7f.1", "127.1", "2130706433", "127.0.0.01"] {
                let refused = try await lena.send(.PUT, "\(own)/mail/server", ["host": host, "port": 25, "security": "starttls",
                                                                               "senderAddress": "lena@school.example"])
                #expect(refused.status == .unprocessableEntity && refused.errorField == "host", "\(host): \(refused.status)")
            }
            #expect(try await lena.send(.PUT, "\(own)/mail/server", ["host": "smtp.school.example", "port": 587, "security": "starttls",
                                                                     "senderAddress": "lena@school.example"]).status == .ok)
            let elsewhere = try await lena.post("\(own)/mail/test", ["to": "anyone@example.com"])
            #expect(elsewhere.status == .forbidden && elsewhere.errorCode == "test_only_to_library")
            // The test text is not editable.
            let edit = try await lena.send(.PUT, "\(own)/mail/templates", ["kind": "test", "language": "en", "subject": "Win", "body": "Buy now"])
            #expect(edit.status != .ok, "\(edit.status)")
        }
    }

    // MARK: 7: holds without a bound

    @Test func holdsPerMemberAreBounded() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addMember("S012", "Mia")
            #expect(try await f.owner.get(f.lib)["maxHoldsPerMember"] as? Int == 10)
            #expect(try await f.owner.patch(f.lib, ["maxHoldsPerMember": 3]).status == .ok)
            #expect(try await f.owner.patch(f.lib, ["maxHoldsPerMember": 0]).status == .unprocessableEntity)
            var titles: [String] = []
            for i in 0..<4 { titles.append(try await f.addTitle("Book \(i)", copies: 1)) }
            for title in titles.prefix(3) {
                #expect(try await f.owner.post("\(f.lib)/holds", ["cardId": "S012", "titleId": title]).status == .created)
            }
            let fourth = try await f.owner.send(.POST, "\(f.lib)/holds", ["cardId": "S012", "titleId": titles[3]], headers: ["Accept-Language": "de"])
            #expect(fourth.status == .conflict && fourth.errorCode == "too_many_holds" && (fourth.errorMessage ?? "").contains("höchstens 3"),
                    "\(fourth.json)")
            #expect(try await count(app, "SELECT COUNT(*) AS n FROM holds WHERE state = 'ready'") == 3)
        }
    }

    // MARK: 9: a staff feed ends with its maker

    @Test func aStaffCalendarFeedStopsWhenItsMakerLeaves() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let vera = try await f.staff("vera", role: "volunteer")
            let link = try await vera.post("\(f.lib)/calendar")
            #expect(link.status == .created, "\(link.json)")
            let url = link.string("url")
            let path = url.range(of: "/api/").map { String(url[$0.lowerBound...]) } ?? url
            #expect(try await Client(app: app).get(path).status == .ok)
            // Vera becomes a viewer: the feed of every loan stops.
            let staff = try await f.owner.get("\(f.lib)/staff").array
            let veraID = staff.first { $0["username"] as? String == "vera" }?["userId"] as? String ?? ""
            #expect(try await f.owner.patch("\(f.lib)/staff/\(veraID)", ["role": "viewer"]).status == .ok)
            #expect(try await Client(app: app).get(path).status == .notFound)
        }
    }

    // MARK: 10: setup only from this computer, however the server listens

    @Test func aFreshInstallIsSetUpOnlyFromThisComputer() async throws {
        try await withTestApp { app in
            func request(from address: String) throws -> Request {
                Request(application: app, method: .GET, url: URI(path: "/setup"),
                        remoteAddress: try SocketAddress(ipAddress: address, port: 50_000), on: app.eventLoopGroup.next())
            }
            #expect(!app.listensBeyondLoopback, "not listening yet")
            // Plain HTTP on every interface (`serve --hostname 0.0.0.0`, no --tls): another device is refused.
            try await app.server.start(address: .hostname("0.0.0.0", port: 0))
            #expect(app.listensBeyondLoopback)
            #expect(throws: EdgeError.self) { try request(from: "192.168.1.50").requireSetupFromThisComputer() }
            #expect(throws: Never.self) { try request(from: "127.0.0.1").requireSetupFromThisComputer() }
            await app.server.shutdown()
        }
    }
}
