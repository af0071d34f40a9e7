@testable import App
import Crypto
import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import SQLKit
import Testing
import Vapor
import VaporTesting

/// What an attacker with a viewer's or volunteer's account, or none, could do.
@Suite struct SecurityTests {
    private func raw(_ app: Application, _ method: HTTPMethod, _ path: String, headers: HTTPHeaders = [:], body: Data? = nil) async throws -> Client.Reply {
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: body.map { ByteBuffer(data: $0) })
        return Client.Reply(status: response.status, body: response.body, headers: response.headers)
    }

    private func bearer(_ client: Client, json: Bool = true) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.bearerAuthorization = .init(token: client.token!)
        if json { headers.contentType = .json }
        return headers
    }

    private func backup(_ f: Fixture) async throws -> LibraryBackup {
        let reply = try await raw(f.app, .GET, "\(f.lib)/backup", headers: bearer(f.owner))
        #expect(reply.status == .ok)
        return try Backup.decode(Data(buffer: reply.body))
    }

    // MARK: 1, 2: covers

    @Test func aCoverThatIsNotAnImageIsRefusedAtRestoreAndNeverServedAsHTML() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 1)
            var evil = try await backup(f)
            let html = Data("<html><script>fetch('/api/v1/tokens',{method:'POST'})</script></html>".utf8)
            let coverID = UUID()
            evil.covers = [.init(id: coverID, sha256: "aa", content_type: "image/png", bytes: html, source_url: nil, created_at: nil)]
            evil.titles[0].cover_url = CoverStore.localURL(coverID)
            let restored = try await f.owner.finished(try await raw(app, .POST, "/api/v1/libraries/restore?name=Evil", headers: bearer(f.owner), body: try Backup.encode(evil)))
            #expect(restored.status == .unprocessableEntity, "\(restored.json)")
            #expect(restored.errorMessage?.contains("not a JPEG, PNG, GIF or WebP") == true)
            #expect(try await Library.query(on: app.db).count() == 1)
            let storedHTML = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM covers").first()?.decode(column: "n", as: Int.self)
            #expect(storedHTML == 0)

            // A row written before the checks existed is not served at all.
            let legacy = UUID()
            try await app.db.sql.insert(into: "covers").columns("id", "sha256", "content_type", "bytes", "source_url", "created_at")
                .values(SQLBind(legacy), SQLBind("legacy"), SQLBind("text/html"), SQLBind(html), SQLBind(String?.none), SQLBind(Date())).run()
            #expect(try await Client(app: app).get(CoverStore.localURL(legacy)).status == .notFound)

            // A real image is served as its sniffed type, with nosniff and a sandboxing policy.
            let png = try BarcodeRenderer.render(.qr, "cover").png
            let good = try await CoverStore.store(png, sourceURL: nil, now: Date(), gate: app.writeGate, on: app.db)
            let served = try await Client(app: app).get(CoverStore.localURL(good))
            #expect(served.status == .ok)
            #expect(served.headers.first(name: .contentType) == "image/png")
            #expect(served.headers.first(name: "X-Content-Type-Options") == "nosniff")
            let csp = served.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(csp.contains("sandbox") && csp.contains("default-src 'none'"), "\(csp)")
            await #expect(throws: CatalogError.cover(.notAnImage)) {
                _ = try await CoverStore.store(html, sourceURL: nil, now: Date(), gate: app.writeGate, on: app.db)
            }
        }
    }

    @Test func aRestoreCannotReplaceAnotherLibrarysCoverByClaimingItsHash() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 1)
            let theirs = try BarcodeRenderer.render(.qr, "library A's cover").png
            let mine = try BarcodeRenderer.render(.qr, "the attacker's picture").png
            let theirHash = SHA256.hash(data: theirs).map { String(format: "%02x", $0) }.joined()
            var poisoned = try await backup(f)
            let id = UUID()
            poisoned.covers = [.init(id: id, sha256: theirHash, content_type: "image/png", bytes: mine, source_url: nil, created_at: nil)]
            poisoned.titles[0].cover_url = CoverStore.localURL(id)
            let restored = try await f.owner.finished(try await raw(app, .POST, "/api/v1/libraries/restore?name=B", headers: bearer(f.owner), body: try Backup.encode(poisoned)))
            #expect(restored.status == .ok, "\(restored.json)")
            // Library A later receives its real cover: it gets its own bytes, not the attacker's.
            let later = try await CoverStore.store(theirs, sourceURL: nil, now: Date(), gate: app.writeGate, on: app.db)
            #expect(try await CoverStore.load(later, on: app.db)?.bytes == theirs)
            let mineHash = SHA256.hash(data: mine).map { String(format: "%02x", $0) }.joined()
            let hashes = try await app.db.sql.raw("SELECT sha256 FROM covers").all().map { try $0.decode(column: "sha256", as: String.self) }
            #expect(Set(hashes) == [theirHash, mineHash])
        }
    }

    // MARK: 3: bounds

    @Test func copyCountsAreBoundedBeforeAnythingIsWritten() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Momo", copies: 1)
            for huge in [4_611_686_018_427_387_904, 30_000, 2_001, -1] {
                let reply = try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": huge])
                #expect(reply.status == .unprocessableEntity, "\(huge): \(reply.status)")
                #expect(reply.errorField == "totalCopies")
            }
            #expect(try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": 600]).status == .conflict)
            #expect(try await f.owner.patch("\(f.lib)/titles/\(id)", ["totalCopies": 400]).status == .ok)
            #expect(try await Copy.query(on: app.db).count() == 400)
            #expect(try await Client(app: app).get("/api/v1/health").status == .ok)
        }
    }

    // MARK: 4: who may create, restore and import

    @Test func viewersAndVolunteersCannotCreateRestoreOrImportLibraries() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 1)
            let file = try Backup.encode(try await backup(f))
            let viewer = try await f.staff("vera", role: "viewer")
            let volunteer = try await f.staff("vic", role: "volunteer")
            let librarian = try await f.staff("lena", role: "librarian")
            for client in [viewer, volunteer] {
                let restore = try await raw(app, .POST, "/api/v1/libraries/restore?name=Mine", headers: bearer(client), body: file)
                #expect(restore.status == .forbidden, "\(restore.json)")
                #expect(restore.errorCode == "creation_restricted")
                let imported = try await raw(app, .POST, "/api/v1/libraries/import?name=Mine", headers: bearer(client, json: false),
                                             body: Data("isbn\n9783522202602\n".utf8))
                #expect(imported.status == .forbidden)
                #expect(try await client.post("/api/v1/libraries", ["name": "Mine"]).status == .forbidden)
            }
            #expect(try await Library.query(on: app.db).count() == 1)
            #expect(try await librarian.post("/api/v1/libraries", ["name": "Lena's"]).status == .created)

            // The administrator (the account made at setup) can keep creation to themselves.
            #expect(try await librarian.patch("/api/v1/server", ["libraryCreation": "admin"]).status == .forbidden)
            let set = try await f.owner.patch("/api/v1/server", ["libraryCreation": "admin"])
            #expect(set.status == .ok)
            #expect(set["libraryCreation"] as? String == "admin")
            #expect(try await librarian.post("/api/v1/libraries", ["name": "Another"]).status == .forbidden)
            #expect(try await f.owner.post("/api/v1/libraries", ["name": "The admin's"]).status == .created)
        }
    }

    @Test func aBackupWithSettingsOutOfRangeIsRefused() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var file = try await backup(f)
            file.library.max_renewals = 1_000_000
            let reply = try await f.owner.finished(try await raw(app, .POST, "/api/v1/libraries/restore", headers: bearer(f.owner), body: try Backup.encode(file)))
            #expect(reply.status == .unprocessableEntity)
            #expect(reply.errorMessage?.lowercased().contains("renewals") == true, "\(reply.errorMessage ?? "")")
            #expect(reply.errorMessage?.contains("1,000,000") == true)
            #expect(try await Library.query(on: app.db).count() == 1)
        }
    }

    // MARK: 5: SSRF

    @Test func coverURLsReachOnlyPublicAddressesAndOnlyHTTP() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let id = try await f.addTitle("Momo", copies: 1)
            let js = try await f.owner.patch("\(f.lib)/titles/\(id)", ["coverUrl": "javascript:alert(document.cookie)"])
            #expect(js.status == .unprocessableEntity)
            #expect(js.errorField == "coverUrl")
            let fetcher = app.coverFetcher
            for url in ["http://127.0.0.1:9/x.png", "http://localhost:8080/api/v1/tokens", "http://169.254.169.254/latest/meta-data/",
                        "http://[::1]/x.png", "http://10.0.0.1/x.png", "http://2130706433/x.png"] {
                await #expect(throws: CoverFetcher.Refusal.self, "\(url) was fetched") { _ = try await fetcher.get(url, origin: .user) }
            }
            // A provider's record may only point at the providers' cover hosts.
            await #expect(throws: CoverFetcher.Refusal.self) { _ = try await fetcher.get("https://evil.example/x.jpg", origin: .provider) }
            #expect(CoverFetcher.isProviderCoverHost("covers.openlibrary.org", trusted: []))
            #expect(CoverFetcher.isProviderCoverHost("books.google.com", trusted: []))
            #expect(!CoverFetcher.isProviderCoverHost("google.com.evil.example", trusted: []))
        }
    }

    // MARK: 6: CSRF on the API

    @Test func theAPIWithTheSessionCookieNeedsTheTokenAndJSON() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let session = try #require(f.owner.token)
            var cookie = HTTPHeaders()
            cookie.add(name: .cookie, value: "\(Credential.cookieName)=\(session)")
            var form = cookie
            form.contentType = .urlEncodedForm
            let forged = try await raw(app, .POST, "\(f.lib)/staff", headers: form,
                                       body: Data("username=mallory&role=owner&password=mallory-password".utf8))
            #expect(forged.status == .forbidden)
            #expect(forged.errorCode == "csrf")
            var json = cookie
            json.contentType = .json
            let body = try JSONSerialization.data(withJSONObject: ["title": "Momo"])
            #expect(try await raw(app, .POST, "\(f.lib)/titles", headers: json, body: body).status == .forbidden)
            var withToken = json
            withToken.add(name: CSRF.header, value: CSRF.token(forSession: session))
            #expect(try await raw(app, .POST, "\(f.lib)/titles", headers: withToken, body: body).status == .created)
            // Another session's token does not fit.
            var wrongToken = json
            wrongToken.add(name: CSRF.header, value: CSRF.token(forSession: "sms_other"))
            #expect(try await raw(app, .POST, "\(f.lib)/titles", headers: wrongToken, body: body).status == .forbidden)
            #expect(try await raw(app, .GET, "\(f.lib)/titles", headers: cookie).status == .ok)
            // Bearer clients are not affected.
            #expect(try await raw(app, .POST, "\(f.lib)/titles", headers: bearer(f.owner), body: try JSONSerialization.data(withJSONObject: ["title": "Emil"])).status == .created)
            #expect(try await Membership.query(on: app.db).count() == 1)
        }
    }

    // MARK: 7: bodies before sign-in

    @Test func anonymousPostsAreBoundedBeforeTheirBodyIsRead() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var headers = HTTPHeaders()
            headers.contentType = .urlEncodedForm
            let big = Data(repeating: UInt8(ascii: "a"), count: 100_000)
            let login = try await raw(app, .POST, "/login", headers: headers, body: Data("username=owner&password=".utf8) + big)
            #expect(login.status == .payloadTooLarge)
            var declared = headers
            declared.replaceOrAdd(name: .contentLength, value: String(95 << 20))
            let upload = try await raw(app, .POST, "/libraries/\(f.libraryID)/exchange", headers: declared, body: Data("x".utf8))
            #expect(upload.status == .seeOther || upload.status == .found, "\(upload.status)")
            #expect(upload.headers.first(name: .location)?.hasPrefix("/login") == true)
            let api = try await raw(app, .POST, "/api/v1/libraries/restore", headers: ["content-type": "application/json"], body: big)
            #expect(api.status == .unauthorized)
        }
    }

    /// Found by the fuzzer: a multipart body with a non-ASCII byte where a part's header name belongs
    /// crashed the whole server inside the multipart parser, on any route that decodes a body, signed
    /// in or not. It is refused as malformed before any decoder sees it.
    @Test func aMalformedMultipartBodyIsRefusedNotACrash() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let boundary = "8efb2279b4a4a75422550d2f31e6fbcf"
            let body = Data("--\(boundary)\r\n".utf8) + Data([0xC3, 0xBA]) + Data("--\(boundary)--\r\n".utf8)
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
            let login = try await raw(app, .POST, "/api/v1/auth/login", headers: headers, body: body)
            #expect(login.status == .badRequest, "\(login.status)")
            let web = try await raw(app, .POST, "/login", headers: headers, body: body)
            #expect(web.status == .badRequest || web.status == .forbidden, "\(web.status)")
            var signedIn = bearer(f.owner, json: false)
            signedIn.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
            let upload = try await raw(app, .POST, "\(f.lib)/import?format=csv", headers: signedIn, body: body)
            #expect(upload.status == .badRequest, "\(upload.status)")
            #expect(try await Client(app: app).get("/api/v1/health").status == .ok)
        }
    }

    // MARK: 8: open redirect

    @Test func signInGoesOnlyToPathsOfThisServer() async throws {
        try await withTestApp { app in
            _ = try await Fixture.make(app)
            for next in ["/%5Cevil.example", "/%09/evil.example", "//evil.example", "https://evil.example", "/%2F%2Fevil.example"] {
                let page = try await raw(app, .GET, "/login")
                let csrf = try #require(page.headers[.setCookie].first { $0.hasPrefix("shelfmark_csrf=") }?
                    .split(separator: ";").first?.dropFirst("shelfmark_csrf=".count))
                var headers = HTTPHeaders()
                headers.contentType = .urlEncodedForm
                headers.add(name: .cookie, value: "shelfmark_csrf=\(csrf)")
                let reply = try await raw(app, .POST, "/login?next=\(next)", headers: headers,
                                          body: Data("username=owner&password=correct%20horse&_csrf=\(csrf)".utf8))
                #expect(reply.status == .seeOther || reply.status == .found, "\(next): \(reply.status)")
                #expect(reply.headers.first(name: .location) == "/", "\(next) → \(reply.headers.first(name: .location) ?? "")")
            }
        }
    }

    // MARK: 9: password guessing

    @Test func wrongPasswordsSlowDownAndLockBothAccountAndAddress() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            _ = try await Fixture.make(app)
            let anonymous = Client(app: app)
            for _ in 0..<LoginThrottle.freeFailuresPerAccount {
                let wrong = try await anonymous.post("/api/v1/auth/login", ["username": "owner", "password": "wrong password"])
                #expect(wrong.status == .unauthorized)
            }
            // Locked now: even the right password is refused until the delay passes.
            let locked = try await anonymous.post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"])
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "too_many_attempts")
            clock.advance(days: 2.0 / 86_400)
            #expect(try await anonymous.post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"]).status == .ok)
            // Unknown usernames are counted the same way and answer the same.
            let unknown = try await anonymous.post("/api/v1/auth/login", ["username": "nobody", "password": "wrong password"])
            #expect(unknown.status == .unauthorized)
            #expect(unknown.errorMessage == "Wrong username or password.")
            // The delay doubles.
            var waits: [Int] = []
            for _ in 0..<(LoginThrottle.freeFailuresPerAccount + 3) {
                clock.advance(days: 60.0 / 86_400)
                _ = try await anonymous.post("/api/v1/auth/login", ["username": "owner", "password": "wrong password"])
                waits.append(try await LoginThrottle.wait(account: "owner", address: nil, now: clock.now, on: app.db))
            }
            #expect(waits == [0, 0, 0, 0, 1, 2, 4, 8], "\(waits)")
            #expect(LoginThrottle.delay(failures: 4, free: 5) == 0)
            #expect(LoginThrottle.delay(failures: 8, free: 5) == 8)
            #expect(LoginThrottle.delay(failures: 100, free: 5) == LoginThrottle.maxDelay)
        }
    }

    // MARK: low

    @Test func pagesAndAnswersCarrySecurityHeaders() async throws {
        try await withTestApp { app in
            _ = try await Fixture.make(app)
            let page = try await raw(app, .GET, "/login")
            let csp = page.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline") && csp.contains("frame-ancestors 'none'"), "\(csp)")
            #expect(page.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(page.headers.first(name: "Referrer-Policy") == "same-origin")
            #expect(page.headers.first(name: "Strict-Transport-Security") == nil)
            let json = try await raw(app, .GET, "/api/v1/health")
            #expect(json.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(json.headers.first(name: "Content-Security-Policy")?.contains("sandbox") == true)
            #expect(try TransportSecurity.fromEnvironment(["SHELFMARK_HTTPS": "true"]).https)
        }
    }

    @Test func unknownMethodsAnswer405WithAllow() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let trace = try await raw(app, .init(rawValue: "TRACE"), "/api/v1/health")
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers.first(name: .allow)?.contains("GET") == true)
            // A path whose parameter is not an id (a calendar feed's token) too (found by make fuzz).
            let feed = try await raw(app, .init(rawValue: "TRACE"), "/api/v1/public/calendar/JpVsvPOrlT13rSvMpoZSK42MDgRHEdbQKWhEOffo0uQ.ics")
            #expect(feed.status == .methodNotAllowed, "\(feed.status)")
            #expect(feed.headers.first(name: .allow)?.contains("GET") == true)
            let patch = try await raw(app, .PATCH, "/api/v1/libraries/import", headers: bearer(f.owner))
            #expect(patch.status == .methodNotAllowed, "\(patch.status)")
            #expect(patch.headers.first(name: .allow) == "POST")
            #expect(try await raw(app, .GET, "\(f.lib)/nothing-here", headers: bearer(f.owner)).status == .notFound)
            #expect(try await raw(app, .GET, "/api/v1/libraries/\(UUID())", headers: bearer(f.owner)).status == .notFound)
            #expect(try await raw(app, .PUT, "/login").status == .methodNotAllowed)
            // A browser opening a form's address (from its history) gets a page in its language, not JSON.
            var browser = HTTPHeaders()
            browser.add(name: .accept, value: "text/html,application/xhtml+xml,*/*;q=0.8")
            browser.add(name: .acceptLanguage, value: "de-DE,de;q=0.9")
            let staff = try await raw(app, .GET, "/libraries/\(f.libraryID)/staff", headers: browser)
            #expect(staff.status == .methodNotAllowed)
            #expect(staff.headers.first(name: .allow) == "POST")
            #expect(staff.headers.contentType?.subType == "html", "\(staff.headers)")
            let page = String(buffer: staff.body)
            #expect(page.contains("lang=\"de\"") && page.contains(Strings(lang: .de)(.errNotAPage)), "\(page.prefix(400))")
            // The API says it in the request's language too.
            var german = bearer(f.owner)
            german.add(name: .acceptLanguage, value: "de")
            let refused = try await raw(app, .PATCH, "/api/v1/libraries/import", headers: german)
            #expect(refused.errorMessage == "Diese Adresse nimmt kein PATCH an; verwenden Sie POST.")
            // The API's edge refusals are plain words in the request's language, with a stable code and field.
            let english = try await raw(app, .GET, "\(f.lib)/titles?limit=1000", headers: bearer(f.owner))
            #expect(english.status == .badRequest && english.errorCode == "invalid" && english.errorField == "limit")
            #expect(english.errorMessage == "“limit” must be a whole number from 1 to 500, not “1000”.")
            let sorted = try await raw(app, .GET, "\(f.lib)/titles?sort=colour", headers: german)
            #expect(sorted.status == .badRequest && sorted.errorField == "sort")
            #expect(sorted.errorMessage == "„sort“ muss einer dieser Werte sein: title, author, newest, borrowed, shelf; nicht „colour“.", "\(sorted.errorMessage ?? "")")
            let flag = try await raw(app, .GET, "\(f.lib)/titles?onLoan=vielleicht", headers: german)
            #expect(flag.errorMessage == "„onLoan“ ist entweder true oder false, nicht „vielleicht“.")
            // A card ID a Code 128 cannot hold is drawn as a QR code rather than refused.
            #expect(ScanController.codeKind(for: "S001") == .code128)
            #expect(ScanController.codeKind(for: "Müller-7") == .qr)
        }
    }

    /// One clock for issuing and checking sessions: a server whose clock is set back (a demo setting)
    /// does not expire every session at once.
    @Test func aClockSetBackDoesNotEndSessions() async throws {
        let clock = TestClock()
        clock.advance(days: -40)
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.get("/api/v1/me").status == .ok)
        }
    }
}

