@testable import App
import Fluent
import Foundation
import Testing
import Vapor

/// First run, password login, sessions in the database, API tokens, and who may see what.
@Suite struct AuthTests {
    @Test func firstRunCreatesTheOwnerOnlyOnce() async throws {
        try await withTestApp { app in
            // setup
            let anonymous = Client(app: app)
            #expect(try await anonymous.get("/api/v1/setup")["needsSetup"] as? Bool == true)
            // MUT
            let fixture = try await Fixture.make(app)
            let again = try await anonymous.post("/api/v1/setup", ["username": "mallory", "password": "12345678"])
            // validate
            #expect(again.status == .conflict)
            #expect(again.errorCode == "already_set_up")
            #expect(try await anonymous.get("/api/v1/setup")["needsSetup"] as? Bool == false)
            let libraries = try await fixture.owner.get("/api/v1/libraries").array
            #expect(libraries.count == 1)
            #expect(libraries.first?["role"] as? String == "owner")
        }
    }

    @Test func theFirstOwnerAdoptsLibrariesMadeOnTheCommandLine() async throws {
        try await withTestApp { app in
            // setup: `shelfmark import --library Home` on a fresh data directory, before anyone signed up
            let home = Library(name: "Home")
            try await home.create(on: app.db)
            // MUT
            let setup = try await Client(app: app).post("/api/v1/setup", ["username": "owner", "password": "correct horse", "libraryName": "Home"])
            // validate: no second “Home”; the owner sees the library the command line made
            #expect(setup.status == .created || setup.status == .ok, "\(setup.json)")
            #expect(try await Library.query(on: app.db).count() == 1)
            let membership = try #require(try await Membership.query(on: app.db).first())
            #expect(membership.$library.id == home.id)
            #expect(membership.role == .owner)
        }
    }

    @Test func passwordsAreHashedWithBcryptAndValidated() async throws {
        try await withTestApp { app in
            let short = try await Client(app: app).post("/api/v1/setup", ["username": "owner", "password": "short"])
            #expect(short.status == .unprocessableEntity)
            #expect(short.errorField == "password")
            _ = try await Fixture.make(app)
            let user = try #require(try await User.query(on: app.db).first())
            #expect(user.passwordHash.hasPrefix("$2"))
            #expect(!user.passwordHash.contains("correct horse"))
        }
    }

    @Test func loginStartsASessionStoredInTheDatabaseAndLogoutEndsIt() async throws {
        try await withTestApp { app in
            _ = try await Fixture.make(app)
            let anonymous = Client(app: app)
            let wrong = try await anonymous.post("/api/v1/auth/login", ["username": "owner", "password": "wrong password"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.errorCode == "bad_credentials")

            let login = try await anonymous.post("/api/v1/auth/login", ["username": "OWNER", "password": "correct horse"])
            #expect(login.status == .ok)
            let cookie = try #require(login.headers.setCookie?[Credential.cookieName])
            #expect(cookie.isHTTPOnly)
            #expect(cookie.sameSite == .lax)
            let token = login.string("token")
            #expect(try await UserSession.query(on: app.db).filter(\.$tokenHash == Credential.hash(token)).count() == 1)

            // The cookie alone signs the browser in.
            var headers = HTTPHeaders()
            headers.cookie = HTTPCookies(dictionaryLiteral: (Credential.cookieName, .init(string: cookie.string)))
            #expect(try await anonymous.send(.GET, "/api/v1/me", headers: headers).status == .ok)

            let client = Client(app: app, token: token)
            #expect(try await client.get("/api/v1/me").string("username") == "owner")
            #expect(try await client.post("/api/v1/auth/logout").status == .ok)
            #expect(try await client.get("/api/v1/me").status == .unauthorized)
        }
    }

    @Test func apiTokensWorkUntilRevoked() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let created = try await fixture.owner.post("/api/v1/tokens", ["name": "kiosk"])
            #expect(created.status == .created)
            let secret = created.string("token")
            #expect(secret.hasPrefix("smt_"))
            let kiosk = Client(app: app, token: secret)
            #expect(try await kiosk.get("\(fixture.lib)/titles").status == .ok)
            // The secret is never shown again and never stored in clear.
            let listed = try await fixture.owner.get("/api/v1/tokens").array
            #expect(listed.count == 1)
            #expect(listed[0]["token"] == nil)
            #expect(try await APIToken.query(on: app.db).filter(\.$tokenHash == secret).count() == 0)

            #expect(try await fixture.owner.delete("/api/v1/tokens/\(created.string("id"))").status == .noContent)
            #expect(try await kiosk.get("\(fixture.lib)/titles").status == .unauthorized)
        }
    }

    @Test func everyRouteButHealthSetupLoginAndPublicNeedsAUser() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let anonymous = Client(app: app)
            let health = try await anonymous.get("/api/v1/health")
            #expect(health.status == .ok)
            let expected = ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"].map { $0.isEmpty ? "sqlite" : "postgresql" } ?? "sqlite"
            #expect(health.string("database") == expected)
            #expect(try await anonymous.get("/api/v1/openapi.json").status == .ok)
            let open: Set<String> = ["/api/v1/health", "/api/v1/openapi.json", "/api/v1/setup", "/api/v1/auth/login",
                                     "/api/v1/public/libraries/{libraryID}/titles", "/api/v1/public/calendar/{token}",
                                     // Cover images hold no member data and are linked from public pages.
                                     "/api/v1/covers/{coverID}"]
            for entry in app.openAPI.all {
                let path = OpenAPIRegistry.openAPIPath(entry.path)
                guard !open.contains(path) else { continue }
                let concrete = path.replacingOccurrences(of: "{libraryID}", with: fixture.libraryID)
                    .replacingOccurrences(of: #"\{[A-Za-z]+\}"#, with: UUID().uuidString, options: .regularExpression)
                let reply = try await anonymous.send(entry.method, concrete, entry.method == .GET || entry.method == .DELETE ? nil : [:])
                #expect(reply.status == .unauthorized, "\(entry.method) \(path) answered \(reply.status) without a user")
                #expect(reply.errorCode == "unauthenticated")
            }
        }
    }

    @Test func publicCatalogOnlyWhenTheOwnerEnablesIt() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            try await fixture.addTitle("Open Book")
            let anonymous = Client(app: app)
            #expect(try await anonymous.get("/api/v1/public/libraries/\(fixture.libraryID)/titles").status == .notFound)
            #expect(try await fixture.owner.patch(fixture.lib, ["publicCatalog": true]).status == .ok)
            let list = try await anonymous.get("/api/v1/public/libraries/\(fixture.libraryID)/titles")
            #expect(list.status == .ok)
            #expect((list["items"] as? [[String: Any]])?.first?["title"] as? String == "Open Book")
        }
    }
}

/// G2 roles: viewer reads, volunteer circulates, librarian catalogs, owner administers; other libraries are invisible.
@Suite struct RoleTests {
    @Test func viewerCannotLendButCanRead() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let titleID = try await fixture.addTitle("Momo", authors: ["Michael Ende"])
            try await fixture.addMember("S1", "Ada")
            let viewer = try await fixture.staff("vera", role: "viewer")
            #expect(try await viewer.get("\(fixture.lib)/titles/\(titleID)").status == .ok)
            let lend = try await viewer.post("\(fixture.lib)/checkouts", ["cardId": "S1", "titleId": titleID])
            #expect(lend.status == .forbidden)
            #expect(lend.errorCode == "forbidden")
            #expect(try await viewer.post("\(fixture.lib)/titles", ["title": "Nope"]).status == .forbidden)
            #expect(try await Loan.query(on: app.db).count() == 0)
        }
    }

    @Test func volunteerCirculatesButDoesNotCatalog() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let titleID = try await fixture.addTitle("Momo")
            try await fixture.addMember("S1", "Ada")
            let volunteer = try await fixture.staff("val", role: "volunteer")
            #expect(try await volunteer.post("\(fixture.lib)/checkouts", ["cardId": "S1", "titleId": titleID]).status == .created)
            #expect(try await volunteer.post("\(fixture.lib)/titles", ["title": "Nope"]).status == .forbidden)
            #expect(try await volunteer.delete("\(fixture.lib)/titles/\(titleID)").status == .forbidden)
            #expect(try await volunteer.patch(fixture.lib, ["loanPeriodDays": 7]).status == .forbidden)
        }
    }

    @Test func librarianOfOneLibraryGets404ForAnother() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let librarian = try await fixture.staff("lib", role: "librarian")
            let other = try await fixture.owner.post("/api/v1/libraries", ["name": "Other school"])
            #expect(other.status == .created)
            let otherID = other.string("id")
            let otherTitle = try await fixture.owner.post("/api/v1/libraries/\(otherID)/titles", ["title": "Secret"])
            #expect(try await librarian.get("/api/v1/libraries/\(otherID)/titles").status == .notFound)
            #expect(try await librarian.get("/api/v1/libraries/\(otherID)/titles/\(otherTitle.string("id"))").status == .notFound)
            #expect(try await librarian.get("/api/v1/libraries/\(otherID)").status == .notFound)
            // Ids from another library do not leak through this one either.
            #expect(try await librarian.get("\(fixture.lib)/titles/\(otherTitle.string("id"))").status == .notFound)
            let visible = try await librarian.get("/api/v1/libraries").array.compactMap { $0["id"] as? String }
            #expect(visible == [fixture.libraryID])
            #expect(try await librarian.post("\(fixture.lib)/titles", ["title": "Allowed"]).status == .created)
        }
    }

    @Test func aLibraryKeepsAnOwner() async throws {
        try await withTestApp { app in
            let fixture = try await Fixture.make(app)
            let me = try await fixture.owner.get("/api/v1/me").string("id")
            let demote = try await fixture.owner.patch("\(fixture.lib)/staff/\(me)", ["role": "viewer"])
            #expect(demote.status == .conflict)
            #expect(demote.errorCode == "last_owner")
        }
    }
}
