@testable import App
import Crypto
import Foundation
import JWTKit
import NIOConcurrencyHelpers
import Testing
import Vapor
import VaporTesting

/// An OpenID Connect provider in the test's process, on 127.0.0.1: its discovery document and keys
/// over HTTP (Shelfmark fetches them as from a real one), a token endpoint that hands out an ID token
/// once per code and checks the PKCE verifier against the challenge the authorization carried, and
/// `authorize` in place of a person at the provider's page. What each code's token says is the test's
/// to choose (another audience, an expired token, another nonce).
final class TestProvider: Sendable {
    struct Grant: Sendable {
        var claims: [String: String]
        var nonce: String
        var challenge: String
        var audience = "shelfmark"
        var expiresIn: TimeInterval = 300
        var issuer: String?
    }

    let app: Application
    let issuer: String
    let key = ES256PrivateKey()
    let keys = JWTKeyCollection()
    let grants = NIOLockedValueBox<[String: Grant]>([:])

    private init(app: Application, issuer: String) {
        (self.app, self.issuer) = (app, issuer)
    }

    static func run(_ body: (TestProvider) async throws -> Void) async throws {
        let app = try await Application.make(.testing)
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        let box = NIOLockedValueBox<TestProvider?>(nil)
        app.get(".well-known", "openid-configuration") { _ -> Response in
            let p = box.withLockedValue { $0 }!
            return try Self.json(["issuer": p.issuer, "authorization_endpoint": p.issuer + "/authorize", "token_endpoint": p.issuer + "/token",
                                  "jwks_uri": p.issuer + "/jwks"])
        }
        app.get("jwks") { _ -> Response in
            let p = box.withLockedValue { $0 }!
            let params = p.key.publicKey.parameters!
            return try Self.json(["keys": [["kty": "EC", "crv": "P-256", "kid": "test-key", "alg": "ES256", "use": "sig", "x": params.x, "y": params.y]]])
        }
        app.post("token") { req async throws -> Response in
            let p = box.withLockedValue { $0 }!
            struct Form: Content { var code: String?; var code_verifier: String?; var grant_type: String? }
            let form = try req.content.decode(Form.self)
            // Each code once.
            guard let code = form.code, let grant = p.grants.withLockedValue({ $0.removeValue(forKey: code) }) else {
                return try Self.json(["error": "invalid_grant"], status: .badRequest)
            }
            guard let verifier = form.code_verifier, SchoolSignIn.challenge(verifier) == grant.challenge else {
                return try Self.json(["error": "invalid_grant", "error_description": "PKCE"], status: .badRequest)
            }
            var token = IDToken(iss: grant.issuer ?? p.issuer, sub: grant.claims["sub"] ?? "someone", aud: .init(value: [grant.audience]),
                                exp: .init(value: Date().addingTimeInterval(grant.expiresIn)), iat: .init(value: Date()), nonce: grant.nonce,
                                email: grant.claims["email"], emailVerified: grant.claims["email"] == nil ? nil : BoolClaim(value: true))
            token.other = grant.claims.filter { !["sub", "email"].contains($0.key) }
            let signed = try await p.keys.sign(token, kid: "test-key")
            return try Self.json(["access_token": "at", "token_type": "Bearer", "id_token": signed])
        }
        try await app.server.start(address: .hostname("127.0.0.1", port: 0))
        let port = app.http.server.shared.localAddress!.port!
        let provider = TestProvider(app: app, issuer: "http://127.0.0.1:\(port)")
        await provider.keys.add(ecdsa: provider.key, kid: "test-key")
        box.withLockedValue { $0 = provider }
        do {
            try await body(provider)
        } catch {
            await app.server.shutdown()
            try await app.asyncShutdown()
            throw error
        }
        await app.server.shutdown()
        try await app.asyncShutdown()
    }

    static func json(_ object: [String: Any], status: HTTPStatus = .ok) throws -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: .init(data: try JSONSerialization.data(withJSONObject: object)))
    }

    /// A person signing in at the provider: the code for an authorization request (its URL's query).
    func authorize(_ location: String, claims: [String: String], tweak: (inout Grant) -> Void = { _ in }) throws -> String {
        let query = try #require(URLComponents(string: location)?.queryItems)
        func item(_ name: String) -> String? { query.first { $0.name == name }?.value }
        #expect(item("code_challenge_method") == "S256" && item("response_type") == "code" && item("client_id") == "shelfmark")
        var grant = Grant(claims: claims, nonce: try #require(item("nonce")), challenge: try #require(item("code_challenge")))
        tweak(&grant)
        let code = Credential.newLinkToken()
        grants.withLockedValue { $0[code] = grant }
        return code
    }
}

/// A browser: its cookies kept from answer to answer, its requests to this machine's address.
struct SignInBrowser: Sendable {
    let app: Application
    let cookies = NIOLockedValueBox<[String: String]>([:])

    func get(_ path: String) async throws -> TestingHTTPResponse {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8080"]
        let jar = cookies.withLockedValue { $0 }
        if !jar.isEmpty { headers.add(name: .cookie, value: jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        let response = try await app.testing().sendRequest(.GET, path, headers: headers)
        for cookie in response.headers[.setCookie] {
            let pair = cookie.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            cookies.withLockedValue { $0[parts[0]] = parts[1].isEmpty ? nil : parts[1] }
        }
        return response
    }

    /// The message a refusal's redirect carries (its flash cookie), as the next page would show it.
    func flash(_ response: TestingHTTPResponse) -> String? {
        for cookie in response.headers[.setCookie] where cookie.hasPrefix(Flash.cookie + "=") {
            let value = cookie.dropFirst(Flash.cookie.count + 1).split(separator: ";").first ?? ""
            if let payload = value.split(separator: ".").first, let data = Flash.decodeBase64url(payload) {
                return String(decoding: data, as: UTF8.self).replacingOccurrences(of: Flash.errorMark, with: "")
            }
        }
        return nil
    }
}

@Suite struct SchoolSignInTests {
    /// A sign-in through the provider: the start, the person at the provider (with `claims`), the way back.
    func signIn(_ browser: SignInBrowser, start: String, provider: TestProvider, claims: [String: String],
                tweak: (inout TestProvider.Grant) -> Void = { _ in }) async throws -> TestingHTTPResponse {
        let started = try await browser.get(start)
        #expect(started.status == .seeOther, "\(started.body.string)")
        let location = try #require(started.headers.first(name: .location))
        #expect(location.hasPrefix(provider.issuer + "/authorize?"))
        let query = try #require(URLComponents(string: location)?.queryItems)
        #expect(query.first { $0.name == "redirect_uri" }?.value == "http://127.0.0.1:8080/login/school/return")
        let state = try #require(query.first { $0.name == "state" }?.value)
        let code = try provider.authorize(location, claims: claims, tweak: tweak)
        return try await browser.get("/login/school/return?code=\(code)&state=\(state)")
    }

    @Test func staffSignInWithTheirSchoolAccountAndEveryForgeryIsRefused() async throws {
        try await TestProvider.run { provider in
            try await withTestApp { app in
                let f = try await Fixture.make(app)
                let anna = try await f.staff("anna", role: "librarian")
                _ = anna
                let annaID = try #require(try await f.owner.get("\(f.lib)/staff").array.first { $0["username"] as? String == "anna" }?["userId"] as? String)

                // Nothing to sign in with before the administrator sets it up.
                let before = try await SignInBrowser(app: app).get("/login/school")
                #expect(before.status == .seeOther && before.headers.first(name: .location) == "/login")

                // Passwords cannot go before the school's accounts are there to replace them.
                let early = try await f.owner.patch("/api/v1/server/sign-in", ["passwordOff": ["librarian"]])
                #expect(early.status == .conflict && early.errorCode == "passwords_need_sign_in", "\(early.json)")
                let insecure = try await f.owner.patch("/api/v1/server/sign-in", ["preset": "other", "issuer": "http://idp.school.example"])
                #expect(insecure.status == .unprocessableEntity && insecure.errorField == "issuer")
                let set = try await f.owner.send(.PATCH, "/api/v1/server/sign-in", [
                    "preset": "other", "issuer": provider.issuer, "clientId": "shelfmark", "clientSecret": "s3cret-of-the-school",
                    "domain": "school.example", "staff": true,
                ], headers: ["Host": "127.0.0.1:8080"])
                #expect(set.status == .ok, "\(set.json)")
                #expect(set["hasClientSecret"] as? Bool == true && !String(buffer: set.body).contains("s3cret"), "the secret is never shown")
                #expect(set.string("redirectUri").hasSuffix("/login/school/return"))
                #expect(try await anna.get("/api/v1/server/sign-in").status == .forbidden, "the administrator's only")

                // The school e-mail is the owner's to set; the same address twice is refused.
                let email = try await f.owner.send(.PUT, "\(f.lib)/staff/\(annaID)/email", ["email": "Anna.B@School.example"])
                #expect(email.status == .ok && email.string("email") == "anna.b@school.example", "\(email.json)")
                let me = try #require(try await f.owner.get("/api/v1/me")["id"] as? String)
                let twice = try await f.owner.send(.PUT, "\(f.lib)/staff/\(me)/email", ["email": "anna.b@school.example"])
                #expect(twice.status == .conflict && twice.errorCode == "email_taken")

                // The sign-in page offers the school's account; Anna signs in with it and lands where she asked.
                let browser = SignInBrowser(app: app)
                #expect(try await browser.get("/login").body.string.contains("/login/school"))
                let next = "/libraries/\(f.libraryID)/catalog"
                let done = try await signIn(browser, start: "/login/school?next=\(next)", provider: provider,
                                            claims: ["sub": "g-1", "email": "anna.b@school.example", "name": "Anna B"])
                #expect(done.status == .seeOther && done.headers.first(name: .location) == next, "\(browser.flash(done) ?? "")")
                let session = try #require(browser.cookies.withLockedValue { $0[Credential.cookieName] })
                #expect(try await Client(app: app, token: session).get("/api/v1/me").string("username") == "anna")

                // The same answer again (a replay): its state was used up.
                let replayBrowser = SignInBrowser(app: app)
                let started = try await replayBrowser.get("/login/school")
                let location = try #require(started.headers.first(name: .location))
                let state = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "state" }?.value)
                let code = try provider.authorize(location, claims: ["sub": "g-1", "email": "anna.b@school.example"])
                let first = try await replayBrowser.get("/login/school/return?code=\(code)&state=\(state)")
                #expect(first.status == .seeOther && first.headers.first(name: .location) == "/")
                replayBrowser.cookies.withLockedValue { $0[SchoolSignIn.cookieName] = "x" }
                let again = try await replayBrowser.get("/login/school/return?code=\(code)&state=\(state)")
                #expect(again.headers.first(name: .location) == "/login" && replayBrowser.flash(again) == Strings(lang: .en)(.errSchoolExpired))

                // A used code with a fresh state: the provider refuses it.
                let fresh = SignInBrowser(app: app)
                let restart = try await fresh.get("/login/school")
                let freshState = try #require(URLComponents(string: restart.headers.first(name: .location)!)?.queryItems?.first { $0.name == "state" }?.value)
                let reused = try await fresh.get("/login/school/return?code=\(code)&state=\(freshState)")
                #expect(fresh.flash(reused) == Strings(lang: .en)(.errSchoolCodeRefused))
                #expect(fresh.cookies.withLockedValue { $0[Credential.cookieName] } == nil)

                // A forged state: an answer this browser did not ask for (an attacker's own sign-in, pushed to a victim).
                let attacker = SignInBrowser(app: app)
                let theirs = try await attacker.get("/login/school")
                let theirLocation = try #require(theirs.headers.first(name: .location))
                let theirState = try #require(URLComponents(string: theirLocation)?.queryItems?.first { $0.name == "state" }?.value)
                let theirCode = try provider.authorize(theirLocation, claims: ["sub": "g-1", "email": "anna.b@school.example"])
                let victim = SignInBrowser(app: app)
                _ = try await victim.get("/login/school")
                let pushed = try await victim.get("/login/school/return?code=\(theirCode)&state=\(theirState)")
                #expect(victim.flash(pushed) == Strings(lang: .en)(.errSchoolForged))
                #expect(victim.cookies.withLockedValue { $0[Credential.cookieName] } == nil)
                let made = try await victim.get("/login/school/return?code=x&state=made-up")
                #expect(victim.flash(made) == Strings(lang: .en)(.errSchoolExpired))

                // One address starting sign-ins in a loop is told to wait (each start keeps a row for ten minutes).
                app.schoolSignInStarts = PublicRateLimit(perMinute: 3)
                let flood = SignInBrowser(app: app)
                for _ in 0..<3 { #expect(try await flood.get("/login/school").headers.first(name: .location)?.hasPrefix(provider.issuer) == true) }
                let stopped = try await flood.get("/login/school")
                #expect(stopped.headers.first(name: .location) == "/login" && flood.flash(stopped) == Strings(lang: .en)(.errSchoolBusy))
                app.schoolSignInStarts = PublicRateLimit(perMinute: 0)

                // Tokens that do not hold: another audience, expired, another nonce, another issuer.
                for (tweak, what) in [({ (g: inout TestProvider.Grant) in g.audience = "another-app" }, "audience"),
                                      ({ (g: inout TestProvider.Grant) in g.expiresIn = -300 }, "expired"),
                                      ({ (g: inout TestProvider.Grant) in g.nonce = "replayed-nonce" }, "nonce"),
                                      ({ (g: inout TestProvider.Grant) in g.issuer = "https://evil.example" }, "issuer")] {
                    let b = SignInBrowser(app: app)
                    let refused = try await signIn(b, start: "/login/school", provider: provider, claims: ["sub": "g-1", "email": "anna.b@school.example"],
                                                   tweak: tweak)
                    #expect(b.flash(refused) == Strings(lang: .en)(.errSchoolBadToken), "\(what)")
                    #expect(b.cookies.withLockedValue { $0[Credential.cookieName] } == nil, "\(what)")
                }

                // An address nobody has, and one outside the school's domain.
                let stranger = SignInBrowser(app: app)
                let unknown = try await signIn(stranger, start: "/login/school", provider: provider, claims: ["sub": "g-2", "email": "new.teacher@school.example"])
                #expect(stranger.flash(unknown) == Strings(lang: .en).format(.errSchoolNoAccount, "new.teacher@school.example"))
                let outside = try await signIn(stranger, start: "/login/school", provider: provider, claims: ["sub": "g-3", "email": "anna.b@gmail.example"])
                #expect(stranger.flash(outside) == Strings(lang: .en)(.errSchoolNoEmail))

                // Accounts on first sign-in: a volunteer in the chosen library, in the audit log.
                #expect(try await f.owner.patch("/api/v1/server/sign-in", ["newAccountRole": "volunteer"]).errorCode == "library_needed")
                #expect(try await f.owner.patch("/api/v1/server/sign-in", ["newAccountRole": "volunteer", "accountLibrary": f.libraryID]).status == .ok)
                let newcomer = SignInBrowser(app: app)
                let joined = try await signIn(newcomer, start: "/login/school", provider: provider,
                                              claims: ["sub": "g-2", "email": "new.teacher@school.example", "name": "Nell Teacher"])
                #expect(joined.status == .seeOther && joined.headers.first(name: .location) == "/", "\(newcomer.flash(joined) ?? "")")
                let staff = try await f.owner.get("\(f.lib)/staff").array
                let nell = try #require(staff.first { $0["email"] as? String == "new.teacher@school.example" })
                #expect(nell["role"] as? String == "volunteer" && nell["displayName"] as? String == "Nell Teacher")
                let audit = try await f.owner.get("\(f.lib)/audit").array
                #expect(audit.contains { $0["action"] as? String == "staff_added" && $0["target"] as? String == nell["username"] as? String })
                // Made once: a second sign-in is the same account.
                _ = try await signIn(SignInBrowser(app: app), start: "/login/school", provider: provider, claims: ["sub": "g-2", "email": "new.teacher@school.example"])
                #expect(try await f.owner.get("\(f.lib)/staff").array.count == staff.count)

                // Passwords off for librarians: Anna's password is refused with the reason; the administrator's still works.
                #expect(try await f.owner.patch("/api/v1/server/sign-in", ["passwordOff": ["librarian", "volunteer"]]).status == .ok)
                let annaPassword = try await Client(app: app).post("/api/v1/auth/login", ["username": "anna", "password": "password-anna"])
                #expect(annaPassword.status == .unauthorized && annaPassword.errorCode == "password_off", "\(annaPassword.json)")
                let wrong = try await Client(app: app).post("/api/v1/auth/login", ["username": "anna", "password": "not her password"])
                #expect(wrong.errorCode == "bad_credentials" || wrong.errorCode == "invalid_credentials" || wrong.status == .unauthorized)
                #expect(wrong.errorCode != "password_off", "only whoever knows the password learns it is off")
                #expect(try await Client(app: app).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"]).status == .ok)
                // And her school account still signs her in.
                let still = try await signIn(SignInBrowser(app: app), start: "/login/school", provider: provider, claims: ["sub": "g-1", "email": "anna.b@school.example"])
                #expect(still.headers.first(name: .location) == "/")
            }
        }
    }

    @Test func membersSignInToThePublicCatalogByStudentNumberOrEmail() async throws {
        try await TestProvider.run { provider in
            try await withTestApp { app in
                let f = try await Fixture.make(app)
                #expect(try await f.owner.patch(f.lib, ["publicCatalog": true]).status == .ok)
                let pupil = try await f.owner.post("\(f.lib)/members", ["cardId": "S-1001", "firstName": "Pia", "email": "pia@school.example"])
                #expect(pupil.status == .created)
                _ = try await f.owner.post("\(f.lib)/members", ["cardId": "S-2002", "firstName": "Tom"])
                let left = try await f.owner.post("\(f.lib)/members", ["cardId": "S-3003", "firstName": "Lea", "email": "lea@school.example"])
                #expect(try await f.owner.post("\(f.lib)/members/\(left.string("id"))/archive").status == .ok)
                #expect(try await f.owner.patch("/api/v1/server/sign-in", [
                    "preset": "other", "issuer": provider.issuer, "clientId": "shelfmark", "clientSecret": "s", "members": true,
                    "studentClaim": "student_number", "passwordOff": ["member"],
                ]).status == .ok)
                let library = try #require(UUID(uuidString: f.libraryID))
                let start = WebRoute.publicSchoolSignIn(library: library).path
                let account = WebRoute.publicAccount(library: library).path
                let signInPath = WebRoute.publicSignIn(library: library).path

                let signInPage = try await SignInBrowser(app: app).get(signInPath)
                #expect(signInPage.body.string.contains(start) && !signInPage.body.string.contains("name=\"pin\""), "the school's account, no PIN form")

                // By e-mail, and by the student number claim (Tom has no address).
                let pia = SignInBrowser(app: app)
                let byEmail = try await signIn(pia, start: start, provider: provider, claims: ["sub": "p-1", "email": "pia@school.example"])
                #expect(byEmail.headers.first(name: .location) == account, "\(pia.flash(byEmail) ?? "")")
                #expect(try await pia.get(account).body.string.contains("Pia"))
                let tom = SignInBrowser(app: app)
                let byNumber = try await signIn(tom, start: start, provider: provider, claims: ["sub": "p-2", "student_number": "S-2002"])
                #expect(byNumber.headers.first(name: .location) == account, "\(tom.flash(byNumber) ?? "")")
                #expect(try await tom.get(account).body.string.contains("Tom"))

                // Someone the library does not know, and a member who has left.
                let nobody = SignInBrowser(app: app)
                let unknown = try await signIn(nobody, start: start, provider: provider, claims: ["sub": "p-9", "email": "who@school.example"])
                #expect(unknown.headers.first(name: .location) == signInPath && nobody.flash(unknown) == Strings(lang: .en)(.errSchoolNoMember))
                let lea = SignInBrowser(app: app)
                let leaver = try await signIn(lea, start: start, provider: provider, claims: ["sub": "p-3", "email": "lea@school.example"])
                #expect(leaver.headers.first(name: .location) == signInPath)
                #expect(lea.flash(leaver)?.contains("Lea") == true, "said why: \(lea.flash(leaver) ?? "")")

                // The PIN is off: refused with the reason, even when right.
                let id = pupil.string("id")
                #expect(try await f.owner.send(.PUT, "\(f.lib)/members/\(id)/pin", ["pin": "4821"]).status.code < 300)
                var desk = Browser(app: app)
                _ = try await desk.get(signInPath)
                let pin = try await desk.post(signInPath, ["cardId": "S-1001", "pin": "4821"])
                #expect(pin.status == .unauthorized && pin.html.contains("Passwords are switched off for you here"), "\(pin.status)")
                #expect(desk.cookies[PublicPages.memberCookie] == nil)
            }
        }
    }

    @Test func idTokenClaimsAreCheckedAgainstTheSignIn() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func token(_ change: (inout IDToken) -> Void = { _ in }) -> IDToken {
            var t = IDToken(iss: "https://idp.example", sub: "u1", aud: .init(value: ["shelfmark"]), exp: .init(value: now.addingTimeInterval(300)),
                            iat: .init(value: now), nonce: "n-1", email: "a@school.example", emailVerified: BoolClaim(value: true))
            change(&t)
            return t
        }
        func check(_ t: IDToken) throws { try OpenIDProvider.check(t, issuer: "https://idp.example", clientID: "shelfmark", nonce: "n-1", now: now) }
        try check(token())
        try check(token { $0.exp = .init(value: now.addingTimeInterval(-30)) })   // within the minute's leeway
        #expect(throws: SchoolSignInError.badToken("expired")) { try check(token { $0.exp = .init(value: now.addingTimeInterval(-61)) }) }
        #expect(throws: SchoolSignInError.badToken("audience")) { try check(token { $0.aud = .init(value: ["other"]) }) }
        #expect(throws: SchoolSignInError.badToken("audience")) { try check(token { $0.aud = .init(value: ["shelfmark", "other"]) }) }
        try check(token { $0.aud = .init(value: ["shelfmark", "other"]); $0.azp = "shelfmark" })
        #expect(throws: SchoolSignInError.badToken("issuer")) { try check(token { $0.iss = "https://idp.example/" }) }
        #expect(throws: SchoolSignInError.badToken("nonce")) { try check(token { $0.nonce = nil }) }
        #expect(throws: SchoolSignInError.badToken("issued in the future")) { try check(token { $0.iat = .init(value: now.addingTimeInterval(3_600)) }) }

        var google = SchoolSignInSettings()
        (google.preset, google.domain) = (.google, "school.example")
        #expect(OpenIDProvider.verifiedEmail(token { $0.hd = "school.example" }, settings: google) == "a@school.example")
        #expect(OpenIDProvider.verifiedEmail(token(), settings: google) == nil, "Google names the Workspace domain in hd")
        #expect(OpenIDProvider.verifiedEmail(token { $0.emailVerified = BoolClaim(value: false); $0.hd = "school.example" }, settings: google) == nil)
        var microsoft = SchoolSignInSettings()
        microsoft.preset = .microsoft
        #expect(OpenIDProvider.verifiedEmail(token { $0.emailVerified = nil; $0.email = nil; $0.preferredUsername = "T@School.example" },
                                             settings: microsoft) == "t@school.example")
        #expect(try OpenIDProvider.checkIssuer("https://login.example/tenant/") == "https://login.example/tenant")
        #expect(try OpenIDProvider.checkIssuer("http://127.0.0.1:9400") == "http://127.0.0.1:9400")
        #expect(throws: SchoolSignInError.badIssuer) { try OpenIDProvider.checkIssuer("http://10.0.0.5") }
        #expect(throws: SchoolSignInError.badIssuer) { try OpenIDProvider.checkIssuer("https://user:pw@idp.example") }
    }
}
