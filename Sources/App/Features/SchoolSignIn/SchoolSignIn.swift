import Crypto
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Sign-in with the school's account (OpenID Connect, authorization code with PKCE). `start` keeps the
/// sign-in (its state's hash, the nonce, the PKCE verifier and the hash of a value only this browser
/// holds in a cookie) for ten minutes and sends the browser to the provider; `finish` takes the row
/// back once (a replayed answer finds nothing), checks the browser is the one that started it (a
/// forged or swapped `state` fails here), exchanges the code, checks the ID token and signs in the
/// staff account with this school e-mail (or makes one, when the administrator allows it), or the
/// library's member with this student number or e-mail.
enum SchoolSignIn {
    static let lifetime: TimeInterval = 10 * 60
    /// Sign-ins on their way at once across the installation (each a row until it comes back or ends).
    static let maxPending = 10_000
    static let cookieName = "smo_signin"
    static let returnPath = "/login/school/return"

    struct Started: Sendable {
        var location: String
        /// The cookie's value: the browser's secret, and whose sign-in it is (where to show a refusal).
        var cookie: String
    }

    /// Who signed in.
    enum Finished: Sendable {
        case staff(SessionDTO, next: String?)
        case member(token: String, library: UUID, next: String?)
    }

    static func random() -> String { Data([UInt8].random(count: 32)).base64URLEncodedString() }

    static func challenge(_ verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64URLEncodedString()
    }

    /// Sends a staff member (`library` nil) or a member of `library`'s public catalog to the provider.
    static func start(library: UUID?, next: String?, origin: String, app: Application, now: Date) async throws -> Started {
        let settings = try await SchoolSignInSettings.load(on: app.db)
        guard library == nil ? settings.staffEnabled : settings.membersEnabled else { throw SchoolSignInError.notConfigured }
        let provider = try await OpenIDProvider.load(settings, app: app, now: now)
        let (state, nonce, verifier, binding) = (random(), random(), random(), random())
        let redirectURI = origin + returnPath
        try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("DELETE FROM school_sign_ins WHERE expires_at < \(bind: now)").run()
            let pending = try await db.sql.raw("SELECT COUNT(*) AS n FROM school_sign_ins").first()?.decode(column: "n", as: Int.self) ?? 0
            guard pending < maxPending else { throw SchoolSignInError.busy }
            try await db.sql.raw("""
                INSERT INTO school_sign_ins (id, state_hash, binding_hash, nonce, verifier, redirect_uri, library_id, next_path, expires_at)
                VALUES (\(bind: UUID()), \(bind: Credential.hash(state)), \(bind: Credential.hash(binding)), \(bind: nonce), \(bind: verifier),
                        \(bind: redirectURI), \(bind: library), \(bind: next.map { String($0.prefix(500)) }), \(bind: now.addingTimeInterval(lifetime)))
                """).run()
        }
        return Started(location: provider.authorizationURL(redirectURI: redirectURI, state: state, nonce: nonce, challenge: challenge(verifier)),
                       cookie: binding + "." + (library?.uuidString ?? "staff"))
    }

    /// The library a refusal is shown in, read from the cookie (only to choose the page: nothing is
    /// trusted from it).
    static func libraryOfCookie(_ cookie: String?) -> UUID? {
        cookie?.split(separator: ".").last.flatMap { UUID(uuidString: String($0)) }
    }

    struct Pending: Decodable {
        var binding_hash: String
        var nonce: String
        var verifier: String
        var redirect_uri: String
        var library_id: UUID?
        var next_path: String?
        var expires_at: Date
    }

    /// The provider's answer (`code` and `state`, or `error`) in the browser that holds `cookie`.
    static func finish(code: String?, state: String?, error: String?, cookie: String?, app: Application, now: Date) async throws -> Finished {
        guard let state, !state.isEmpty, state.count <= 200 else { throw SchoolSignInError.forged }
        // Taken back once: a second answer with this state (a replay) finds nothing.
        let row = try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("""
                DELETE FROM school_sign_ins WHERE state_hash = \(bind: Credential.hash(state))
                RETURNING binding_hash, nonce, verifier, redirect_uri, library_id, next_path, expires_at
                """).first(decoding: Pending.self)
        }
        guard let row, row.expires_at > now else { throw SchoolSignInError.expired }
        let binding = cookie?.split(separator: ".").first.map(String.init) ?? ""
        guard !binding.isEmpty, Credential.hash(binding) == row.binding_hash else { throw SchoolSignInError.forged }
        if error != nil { throw SchoolSignInError.denied }
        guard let code, !code.isEmpty, code.count <= 2_000 else { throw SchoolSignInError.forged }

        let settings = try await SchoolSignInSettings.load(on: app.db)
        guard row.library_id == nil ? settings.staffEnabled : settings.membersEnabled, let sealed = settings.sealedSecret else {
            throw SchoolSignInError.notConfigured
        }
        let secret = try app.secretBox().open(sealed)
        let provider = try await OpenIDProvider.load(settings, app: app, now: now)
        let idToken = try await provider.exchange(code: code, verifier: row.verifier, redirectURI: row.redirect_uri, secret: secret)
        let token = try await provider.verifySignature(idToken, app: app, now: now)
        try OpenIDProvider.check(token, issuer: provider.discovery.issuer, clientID: settings.clientID ?? "", nonce: row.nonce, now: now)
        let email = OpenIDProvider.verifiedEmail(token, settings: settings)

        if let library = row.library_id {
            let member = try await member(of: library, token: token, email: email, settings: settings, on: app.db)
            let session = try await MemberPortal.startSession(member: member, library: library, now: now, gate: app.writeGate, on: app.db)
            return .member(token: session, library: library, next: row.next_path)
        }
        guard let email else { throw SchoolSignInError.noVerifiedEmail }
        let user = try await staffAccount(email: email, token: token, settings: settings, app: app, now: now)
        let session = try await Accounts.startSession(for: user, now: now, gate: app.writeGate, on: app.db)
        return .staff(session, next: row.next_path)
    }

    /// The staff account with this school e-mail; or, when the administrator allows it, a new one (no
    /// password: the school's account is its only way in) with the default role in the chosen library.
    static func staffAccount(email: String, token: IDToken, settings: SchoolSignInSettings, app: Application, now: Date) async throws -> User {
        if let user = try await User.query(on: app.db).filter(\.$email == email).first() { return user }
        guard let role = settings.newAccountRole, let libraryID = settings.accountLibrary else { throw SchoolSignInError.noAccount(email) }
        return try await app.writeGate.transaction(on: app.db) { db in
            if let user = try await User.query(on: db).filter(\.$email == email).first() { return user }
            guard try await Library.find(libraryID, on: db) != nil else { throw SchoolSignInError.noAccount(email) }
            let name = [token.name, [token.givenName, token.familyName].compactMap { $0 }.joined(separator: " ")]
                .compactMap { $0?.cleanedInput }.first { !$0.isEmpty }
            let user = try await accountForSchoolEmail(email, name: name, on: db)
            try await Membership(userID: user.id!, libraryID: libraryID, role: role).create(on: db)
            try await AuditLog.record(.init(action: .staffAdded, target: user.username, detail: ["role": role.rawValue, "by": "school_account"]),
                                      library: libraryID, by: nil, at: now, on: db)
            return user
        }
    }

    /// The account with this school e-mail, or a new one without a password (the school's sign-in is its
    /// way in, or a password an owner sets), named `name` (else the address); inside the caller's transaction.
    static func accountForSchoolEmail(_ email: String, name: String?, on db: any Database) async throws -> User {
        if let existing = try await User.query(on: db).filter(\.$email == email).first() { return existing }
        let username = try await freeUsername(for: email, on: db)
        let display = name.map { String($0.prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 } ?? username
        let user = User(username: username, displayName: display, passwordHash: "!", isAdmin: false)
        user.email = email
        try await user.create(on: db)
        return user
    }

    /// A username from the address (`anna.b@school.org` → `anna.b@school.org`, or numbered when taken).
    static func freeUsername(for email: String, on db: any Database) async throws -> String {
        let base = String(email.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }.prefix(58))
        var candidate = base.isEmpty ? "school" : base
        var n = 2
        while try await User.query(on: db).filter(\.$username == candidate).first() != nil {
            candidate = (base.isEmpty ? "school" : base) + "-\(n)"
            n += 1
        }
        return candidate
    }

    /// The library's member this person is: by the student number claim (the school's id, else the
    /// card), else by their verified e-mail when exactly one member has it. A member who has left is
    /// refused as at the desk.
    static func member(of library: UUID, token: IDToken, email: String?, settings: SchoolSignInSettings, on db: any Database) async throws -> UUID {
        struct Row: Decodable { var id: UUID; var archived_at: Date?; var first_name: String; var last_name: String }
        var found: [Row] = []
        if let claim = settings.studentClaim, let number = token.other[claim].map({ $0.trimmingCharacters(in: .whitespaces) }), !number.isEmpty {
            found = try await db.sql.raw("""
                SELECT id, archived_at, first_name, last_name FROM members WHERE library_id = \(bind: library) AND roster_id = \(bind: number)
                """).all(decoding: Row.self)
            if found.isEmpty {
                found = try await db.sql.raw("""
                    SELECT id, archived_at, first_name, last_name FROM members WHERE library_id = \(bind: library) AND lower(card_id) = \(bind: number.lowercased())
                    """).all(decoding: Row.self)
            }
        }
        if found.isEmpty, let email {
            found = try await db.sql.raw("""
                SELECT id, archived_at, first_name, last_name FROM members WHERE library_id = \(bind: library) AND lower(email) = \(bind: email)
                """).all(decoding: Row.self)
        }
        guard found.count == 1, let member = found.first else { throw SchoolSignInError.noMember }
        if let left = member.archived_at { throw LoanError.memberLeft(name: Member.fullName(first: member.first_name, last: member.last_name), on: left) }
        return member.id
    }

    // MARK: Passwords switched off

    /// Refuses a password sign-in of `user` when their roles have passwords off.
    static func requirePasswordAllowed(user: User, on db: any Database) async throws {
        let settings = try await SchoolSignInSettings.load(on: db)
        guard !settings.passwordOff.isEmpty, settings.staffEnabled else { return }
        let roles = try await Membership.query(on: db).filter(\.$user.$id == user.requireID()).all().map(\.role.rawValue)
        guard settings.passwordAllowed(roles: roles, isAdmin: user.isAdmin) else { throw SchoolSignInError.passwordOff }
    }

    /// Refuses a member's PIN in the public catalog when the administrator switched it off.
    static func requirePINAllowed(on db: any Database) async throws {
        let settings = try await SchoolSignInSettings.load(on: db)
        guard settings.membersEnabled, settings.passwordOff.contains(SchoolSignInSettings.memberRole) else { return }
        throw SchoolSignInError.passwordOff
    }
}
