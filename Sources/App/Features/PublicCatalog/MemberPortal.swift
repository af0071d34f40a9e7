import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The public catalog's members: a member signs in to their library's public catalog
/// with their card ID and a PIN the library set (bcrypt, throttled like staff sign-in), or with a
/// one-time link emailed to them (30 minutes, used once), and then sees their loans, renews them,
/// places and cancels holds and makes their calendar link — each through the same service the staff
/// use (`Circulation.renew`, `Holds.place`, `Holds.cancel`, `CalendarFeeds`), acting for themselves
/// only: every loan and hold is checked to be theirs first. Sessions and links are rows of
/// `member_sessions`, kept only as the SHA-256 of their token.
enum MemberPortal {
    static let sessionLifetime: TimeInterval = 14 * 86_400
    static let linkLifetime: TimeInterval = 30 * 60
    /// Emailed links a member may be sent in an hour (more are not sent, and nobody is told which).
    static let linksPerHour = 3
    static let sessionPrefix = "smm_"
    static let pinDigits = 4...12

    /// A library whose catalog is public (anything else is "not found").
    struct PublicLibrary: Sendable {
        var id: UUID
        var name: String
        var indexable: Bool
        var policy: LoanPolicy
        /// It shows its figures (books lent this year, the most borrowed this month).
        var figures = false
    }

    /// A signed-in member.
    struct SignedIn: Sendable {
        var id: UUID
        var libraryID: UUID
        var cardID: String
        var firstName: String
        var lastName: String
        var name: String { Member.fullName(first: firstName, last: lastName) }
    }

    static func publicLibrary(_ id: UUID, on db: any Database) async throws -> PublicLibrary {
        guard let library = try await Library.find(id, on: db), library.publicCatalog, library.pendingJobID == nil else {
            throw AccountError.libraryNotFound
        }
        return PublicLibrary(id: id, name: library.name, indexable: library.catalogIndexable, policy: library.policy, figures: library.publicFigures)
    }

    /// Whether the library can send a sign-in link (it, or the installation, has a mail server): read only
    /// by the sign-in page and the link's request, not by every page of the catalog.
    static func canSendLinks(_ library: PublicLibrary, on db: any Database) async throws -> Bool {
        try await MailServers.effective(library: library.id, on: db) != nil
    }

    // MARK: PIN (staff)

    /// Sets (or with nil/empty removes) a member's PIN; a new PIN ends the member's sessions.
    static func setPIN(_ pin: String?, member: UUID, in scope: Scope, passwords: PasswordHashing) async throws {
        _ = try await Members.find(member, library: scope.libraryID, on: scope.db)
        var hash: String?
        if let pin = pin?.trimmingCharacters(in: .whitespaces), !pin.isEmpty {
            try checkPIN(pin)
            hash = try await passwords.hash(pin)
        }
        let hashed = hash
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("UPDATE members SET pin_hash = \(bind: hashed) WHERE id = \(bind: member) AND library_id = \(bind: scope.libraryID)").run()
            try await db.sql.raw("DELETE FROM member_sessions WHERE member_id = \(bind: member)").run()
        }
    }

    /// A PIN is 4 to 12 digits (0–9).
    static func checkPIN(_ pin: String) throws {
        guard pinDigits.contains(pin.count), pin.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw PortalError.badPIN }
    }

    static func hasPIN(member: UUID, on db: any Database) async throws -> Bool {
        try await db.sql.raw("SELECT 1 AS n FROM members WHERE id = \(bind: member) AND pin_hash IS NOT NULL").first() != nil
    }

    // MARK: Signing in

    /// The throttle's name for a card of a library (per card, and per client address as staff sign-in).
    static func throttleName(library: UUID, card: String) -> String { library.uuidString.prefix(8) + ":" + card.prefix(40).lowercased() }

    /// Card and PIN → a session token. A wrong card, a member without a PIN and a wrong PIN answer alike
    /// (after one bcrypt check each), so nobody learns which cards exist.
    static func signIn(library: UUID, card rawCard: String, pin: String, address: String?, now: Date, passwords: PasswordHashing,
                       gate: WriteGate, on db: any Database) async throws -> String {
        let member = try await checkPIN(library: library, card: rawCard, pin: pin, address: address, now: now, passwords: passwords, gate: gate, on: db)
        try await SchoolSignIn.requirePINAllowed(on: db)
        return try await startSession(member: member, library: library, now: now, gate: gate, on: db)
    }

    /// The member with this card when `pin` is theirs, throttled (per card and per address, before the
    /// hash runs); `PortalError.badCredentials` otherwise, the same for every way of being wrong.
    static func checkPIN(library: UUID, card rawCard: String, pin: String, address: String?, now: Date, passwords: PasswordHashing,
                         gate: WriteGate, on db: any Database) async throws -> UUID {
        let card = String(rawCard.cleanedInput.prefix(64))
        let name = throttleName(library: library, card: card)
        let wait = try await LoginThrottle.take(.member, account: name, address: address, now: now, gate: gate, on: db)
        guard wait == 0 else { throw AccountError.tooManyAttempts(waitSeconds: wait) }
        struct Row: Decodable { var id: UUID; var pin_hash: String?; var archived_at: Date? }
        let row = try await db.sql.raw("""
            SELECT id, pin_hash, archived_at FROM members WHERE library_id = \(bind: library) AND lower(card_id) = \(bind: card.lowercased())
            """).first(decoding: Row.self)
        let hash = if let stored = row?.pin_hash { stored } else { try await passwords.dummyHash() }
        let ok = pin.count <= 64 ? await passwords.verify(pin, created: hash) : false
        // A member who has left signs in no more; answered as any other wrong card or PIN.
        guard let row, row.pin_hash != nil, row.archived_at == nil, ok else { throw PortalError.badCredentials }
        try await LoginThrottle.succeeded(.member, account: name, address: address, gate: gate, on: db)
        return row.id
    }

    static func startSession(member: UUID, library: UUID, now: Date, gate: WriteGate, on db: any Database) async throws -> String {
        let token = Credential.generate(prefix: sessionPrefix)
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                INSERT INTO member_sessions (id, library_id, member_id, kind, token_hash, expires_at, created_at)
                VALUES (\(bind: UUID()), \(bind: library), \(bind: member), 'session', \(bind: Credential.hash(token)),
                        \(bind: now.addingTimeInterval(sessionLifetime)), \(bind: now))
                """).run()
            // Ended sessions and links go as new ones start: the table never grows without bound.
            try await db.sql.raw("DELETE FROM member_sessions WHERE expires_at < \(bind: now)").run()
        }
        return token
    }

    /// Emails a one-time sign-in link to the member with this card, when they have an address and the
    /// library a mail server; answers the same in every case (nobody learns which cards exist or have
    /// an address). At most `linksPerHour` per member.
    static func requestLink(library: PublicLibrary, card rawCard: String, address: String?, origin: String, now: Date, app: Application) async throws {
        let card = String(rawCard.cleanedInput.prefix(64))
        let db = app.db
        guard !card.isEmpty, try await canSendLinks(library, on: db) else { return }
        // Links asked for are counted (used or not, from the outbox); the address's sign-in throttle counts requests too, so one machine cannot mail every card.
        let name = throttleName(library: library.id, card: card)
        let wait = try await LoginThrottle.take(.link, account: name, address: address, now: now, gate: app.writeGate, on: db)
        guard wait == 0 else { throw AccountError.tooManyAttempts(waitSeconds: wait) }
        struct Row: Decodable { var id: UUID; var first_name: String; var last_name: String; var email: String?; var language: String?; var card_id: String }
        guard let member = try await db.sql.raw("""
            SELECT id, first_name, last_name, email, language, card_id FROM members
            WHERE library_id = \(bind: library.id) AND lower(card_id) = \(bind: card.lowercased())
            """).first(decoding: Row.self), let email = member.email, !email.isEmpty else { return }
        let token = Credential.newLinkToken()
        let sent = try await app.writeGate.transaction(on: db) { db -> Bool in
            let recent = try await db.sql.raw("""
                SELECT COUNT(*) AS n FROM mail_messages WHERE member_id = \(bind: member.id) AND kind = 'sign_in_link'
                  AND created_at > \(bind: now.addingTimeInterval(-3600))
                """).first()?.decode(column: "n", as: Int.self) ?? 0
            guard recent < linksPerHour else { return false }
            try await db.sql.raw("""
                INSERT INTO member_sessions (id, library_id, member_id, kind, token_hash, expires_at, created_at)
                VALUES (\(bind: UUID()), \(bind: library.id), \(bind: member.id), 'link', \(bind: Credential.hash(token)),
                        \(bind: now.addingTimeInterval(linkLifetime)), \(bind: now))
                """).run()
            struct Settings: Decodable { var language: String; var contact: String? }
            let settings = try await db.sql.raw("SELECT language, contact FROM libraries WHERE id = \(bind: library.id)").first(decoding: Settings.self)
            let lang = Lang(rawValue: member.language ?? settings?.language ?? "en") ?? .en
            let contact = settings?.contact ?? ""
            let text = try await MailTemplates.text(library: library.id, kind: .signInLink, language: lang, on: db)
            let link = origin + WebRoute.publicLink(library: library.id, token: token).path
            let values = ["first_name": member.first_name, "name": Member.fullName(first: member.first_name, last: member.last_name),
                          "library": library.name, "contact": contact, "link": link, "minutes": Strings(lang: lang).number(Int(linkLifetime / 60))]
            _ = try await Mailer.queue(.init(kind: .signInLink, memberID: member.id, cardID: member.card_id,
                                             name: Member.fullName(first: member.first_name, last: member.last_name), recipient: email,
                                             language: lang.rawValue, subject: MessageTemplate(text.subject).render(values),
                                             body: MessageTemplate(text.body).render(values)),
                                       library: library.id, createdBy: "card:" + member.card_id, now: now, on: db)
            return true
        }
        if sent { MailWorker.doorbell.ring() }
    }

    /// A one-time link's token → a session token; the link is gone once used (or when it ends).
    static func redeem(link token: String, library: UUID, now: Date, gate: WriteGate, on db: any Database) async throws -> String {
        guard Credential.isLinkToken(token) else { throw PortalError.linkInvalid }
        let member = try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                DELETE FROM member_sessions WHERE token_hash = \(bind: Credential.hash(token)) AND kind = 'link'
                  AND library_id = \(bind: library) AND expires_at > \(bind: now)
                RETURNING member_id
                """).first()?.decode(column: "member_id", as: UUID.self)
        }
        guard let member else { throw PortalError.linkInvalid }
        return try await startSession(member: member, library: library, now: now, gate: gate, on: db)
    }

    /// Whether a link's token is one that could still be used (the page before its button says so).
    static func linkIsLive(_ token: String, library: UUID, now: Date, on db: any Database) async throws -> Bool {
        guard Credential.isLinkToken(token) else { return false }
        return try await db.sql.raw("""
            SELECT 1 AS n FROM member_sessions WHERE token_hash = \(bind: Credential.hash(token)) AND kind = 'link'
              AND library_id = \(bind: library) AND expires_at > \(bind: now)
            """).first() != nil
    }

    /// The member a session token belongs to in `library`, or nil (unknown, ended, another library's).
    static func member(session token: String?, library: UUID, now: Date, on db: any Database) async throws -> SignedIn? {
        guard let token, token.hasPrefix(sessionPrefix), token.count < 100 else { return nil }
        struct Row: Decodable { var id: UUID; var card_id: String; var first_name: String; var last_name: String }
        guard let row = try await db.sql.raw("""
            SELECT m.id, m.card_id, m.first_name, m.last_name FROM member_sessions s JOIN members m ON m.id = s.member_id
            WHERE s.token_hash = \(bind: Credential.hash(token)) AND s.kind = 'session' AND s.library_id = \(bind: library)
              AND s.expires_at > \(bind: now)
            """).first(decoding: Row.self) else { return nil }
        return SignedIn(id: row.id, libraryID: library, cardID: row.card_id, firstName: row.first_name, lastName: row.last_name)
    }

    static func signOut(session token: String, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("DELETE FROM member_sessions WHERE token_hash = \(bind: Credential.hash(token)) AND kind = 'session'").run()
        }
    }

    // MARK: What a member does

    /// The scope a member acts in: their library, as a borrower acting for themselves (the activity
    /// log names them by card: `card:S012`).
    static func scope(_ member: SignedIn, library: PublicLibrary, now: Date, app: Application) -> Scope {
        let ctx = LibraryContext(libraryID: library.id, name: library.name, policy: library.policy, role: .volunteer,
                                 user: AuthenticatedUser(id: member.id, username: "card:" + member.cardID, displayName: member.name))
        return Scope(library: ctx, now: now, gate: app.writeGate, db: app.db, clock: app.clock)
    }

    struct Account: Sendable {
        var loans: [LoanDTO]
        var holds: [HoldDTO]
        var calendarSince: Date?
        var maxRenewals: Int
    }

    static func account(_ member: SignedIn, library: PublicLibrary, now: Date, on db: any Database) async throws -> Account {
        let loans = try await Circulation.activeLoans(libraryID: library.id, overdueOnly: false, memberID: member.id, now: now,
                                                      limit: 200, offset: 0, on: db)
        let holds = try await Holds.ofMember(member.id, libraryID: library.id, on: db).filter { $0.state == .waiting || $0.state == .ready }
        let since = try await CalendarFeeds.since(member: member.id, libraryID: library.id, on: db)
        return Account(loans: loans, holds: holds, calendarSince: since, maxRenewals: library.policy.maxRenewals)
    }

    /// Members waiting for `title` (the public book page says how many, never who).
    static func waiting(title: UUID, on db: any Database) async throws -> Int {
        try await Holds.count(db, "SELECT COUNT(*) AS n FROM holds WHERE title_id = \(bind: title) AND state = 'waiting'")
    }

    /// Renews one of the member's own loans (another's answers "not found").
    static func renew(_ loanID: UUID, member: SignedIn, in scope: Scope) async throws -> LoanDTO {
        guard try await scope.db.sql.raw("""
            SELECT 1 AS n FROM loans WHERE id = \(bind: loanID) AND \(LibraryNumber.rows(of: "loans", scope.libraryID)) AND member_id = \(bind: member.id)
            """).first() != nil else { throw LoanError.loanNotFound }
        return try await Circulation.renew(loanID, in: scope)
    }

    static func placeHold(title: UUID, member: SignedIn, in scope: Scope) async throws -> HoldDTO {
        try await Holds.place(HoldInput(titleId: title, memberId: member.id, cardId: nil), in: scope)
    }

    /// Cancels one of the member's own holds (another's answers "not found").
    static func cancelHold(_ holdID: UUID, member: SignedIn, in scope: Scope) async throws -> HoldDTO {
        guard try await scope.db.sql.raw("""
            SELECT 1 AS n FROM holds WHERE id = \(bind: holdID) AND library_id = \(bind: scope.libraryID) AND member_id = \(bind: member.id)
            """).first() != nil else { throw HoldError.notFound }
        return try await Holds.cancel(holdID, in: scope)
    }
}
