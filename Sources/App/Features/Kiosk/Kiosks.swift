import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The self-service kiosk: a tablet by the door that a librarian put in kiosk mode. A member
/// scans their card, then each book: a book they have goes back, a book on the shelf is lent to them —
/// through the same lending and return as the desk (`Circulation.checkout`, `giveBack`: the lending
/// rules, holds, fines and suspensions), recorded as done by the kiosk. A book someone else has is
/// refused without saying who. Only a librarian's password ends kiosk mode.
enum Kiosks {
    static let tokenPrefix = "smk_"
    static let cookie = "shelfmark_kiosk"
    static let memberCookie = "shelfmark_kiosk_member"
    /// A member's turn ends after this long without a scan (the page also returns to the start by itself).
    static let idle: TimeInterval = 90

    struct Kiosk: Sendable {
        var id: UUID
        var libraryID: UUID
        var name: String
        var policy: LoanPolicy
        var language: String
        /// Whether a member gives their PIN after their card (the library's setting).
        var asksPIN: Bool = false
    }

    struct Member: Sendable {
        var id: UUID
        var cardID: String
        var firstName: String
        var lastName: String
        var language: String?
        var name: String { App.Member.fullName(first: firstName, last: lastName) }
    }

    /// Starts kiosk mode for the scope's library on this device; the token for its cookie.
    static func start(in scope: Scope) async throws -> String {
        let token = Credential.generate(prefix: tokenPrefix)
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("""
                INSERT INTO kiosks (id, library_id, token_hash, started_by, created_at, last_used_at)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: Credential.hash(token)), \(bind: scope.library.user.username),
                        \(bind: scope.now), \(bind: scope.now))
                """).run()
        }
        return token
    }

    /// A kiosk nobody used for this long ends itself (a tablet lost or given away stops being a kiosk).
    static let unusedLifetime: TimeInterval = 30 * 86_400

    /// The kiosk a device's token stands for in `library`, or nil (unknown, ended, or unused for
    /// `unusedLifetime`: then it is removed). Its last use is kept to the hour.
    static func kiosk(token: String?, library: UUID, now: Date, gate: WriteGate, on db: any Database) async throws -> Kiosk? {
        guard let token, token.hasPrefix(tokenPrefix), token.count < 100 else { return nil }
        struct Row: Decodable { var id: UUID; var last_used_at: Date?; var created_at: Date }
        guard let found = try await db.sql.raw("""
            SELECT id, last_used_at, created_at FROM kiosks WHERE token_hash = \(bind: Credential.hash(token)) AND library_id = \(bind: library)
            """).first(decoding: Row.self) else { return nil }
        let lastUse = found.last_used_at ?? found.created_at
        if now.timeIntervalSince(lastUse) > unusedLifetime {
            try await gate.transaction(on: db) { db in try await db.sql.raw("DELETE FROM kiosks WHERE id = \(bind: found.id)").run() }
            return nil
        }
        guard let row = try await Library.find(library, on: db), row.pendingJobID == nil else { return nil }
        if now.timeIntervalSince(lastUse) > 3_600 {
            try await gate.transaction(on: db) { db in
                try await db.sql.raw("UPDATE kiosks SET last_used_at = \(bind: now) WHERE id = \(bind: found.id)").run()
            }
        }
        return Kiosk(id: found.id, libraryID: library, name: row.name, policy: row.policy, language: row.language, asksPIN: row.kioskAsksPIN)
    }

    /// A library's kiosks, as its settings page lists them: name (who started it, when), last use.
    struct Listed: Decodable, Sendable { var id: UUID; var started_by: String; var created_at: Date; var last_used_at: Date? }

    static func list(in scope: Scope) async throws -> [Listed] {
        try await scope.db.sql.raw("""
            SELECT id, started_by, created_at, last_used_at FROM kiosks WHERE library_id = \(bind: scope.libraryID) ORDER BY created_at LIMIT 200
            """).all(decoding: Listed.self)
    }

    /// Ends one of the library's kiosks from the staff side (the tablet shows "not a kiosk" from then on).
    static func remove(_ id: UUID, in scope: Scope) async throws {
        let gone = try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("DELETE FROM kiosks WHERE id = \(bind: id) AND library_id = \(bind: scope.libraryID) RETURNING id").first()
        }
        guard gone != nil else { throw KioskError.notAKiosk }
    }

    /// Ends kiosk mode when `username` and `password` are those of a librarian (or owner) of the
    /// kiosk's library; signing in is throttled as at the desk.
    static func end(_ kiosk: Kiosk, username: String, password: String, address: String?, now: Date, passwords: PasswordHashing,
                    gate: WriteGate, on db: any Database) async throws {
        let session = try await Accounts.login(LoginInput(username: username, password: password), from: address, now: now,
                                               passwords: passwords, gate: gate, on: db)
        try await Accounts.logout(token: session.token, gate: gate, on: db)
        let role = try await db.sql.raw("""
            SELECT m.role FROM memberships m WHERE m.user_id = \(bind: session.user.id) AND m.library_id = \(bind: kiosk.libraryID)
            """).first()?.decode(column: "role", as: String.self)
        guard let role = role.flatMap(Role.init(rawValue:)), role.may(.manageMembers) else { throw KioskError.notALibrarian }
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("DELETE FROM kiosks WHERE id = \(bind: kiosk.id)").run()
        }
    }

    /// The member whose card was scanned.
    static func member(card raw: String, kiosk: Kiosk, on db: any Database) async throws -> Member {
        let card = String(raw.cleanedInput.prefix(64))
        guard !card.isEmpty, let member = try await db.sql.raw("""
            SELECT id, card_id, first_name, last_name, language FROM members
            WHERE library_id = \(bind: kiosk.libraryID) AND lower(card_id) = \(bind: card.lowercased()) AND archived_at IS NULL
            """).first(decoding: KioskMember.self) else { throw KioskError.unknownCard }
        return member.member
    }

    /// The member whose card was scanned and whose PIN was typed, where the library asks for one: the
    /// same check and throttle as the public catalog's sign-in (a wrong card, a member without a PIN
    /// and a wrong PIN answer alike).
    static func member(card raw: String, pin: String, kiosk: Kiosk, address: String?, now: Date, passwords: PasswordHashing,
                       gate: WriteGate, on db: any Database) async throws -> Member {
        let card = String(raw.cleanedInput.prefix(64))
        guard !card.isEmpty else { throw KioskError.unknownCard }
        do {
            _ = try await MemberPortal.checkPIN(library: kiosk.libraryID, card: card, pin: pin, address: address, now: now,
                                                 passwords: passwords, gate: gate, on: db)
        } catch PortalError.badCredentials {
            throw KioskError.wrongPIN
        }
        return try await member(card: card, kiosk: kiosk, on: db)
    }

    static func member(id: UUID, kiosk: Kiosk, on db: any Database) async throws -> Member? {
        try await db.sql.raw("""
            SELECT id, card_id, first_name, last_name, language FROM members WHERE id = \(bind: id) AND library_id = \(bind: kiosk.libraryID)
            """).first(decoding: KioskMember.self)?.member
    }

    private struct KioskMember: Decodable {
        var id: UUID; var card_id: String; var first_name: String; var last_name: String; var language: String?
        var member: Member { Member(id: id, cardID: card_id, firstName: first_name, lastName: last_name, language: language) }
    }

    enum Outcome: Sendable {
        case borrowed(LoanDTO)
        case returned(LoanDTO)
    }

    /// A book scanned at the kiosk by `member`: back if they have it, lent to them if it is on the shelf.
    static func scan(_ raw: String, member: Member, kiosk: Kiosk, now: Date, app: Application) async throws -> Outcome {
        let barcode = String(raw.cleanedInput.prefix(64))
        guard !barcode.isEmpty else { throw KioskError.unknownBook }
        let scope = self.scope(kiosk, now: now, app: app)
        guard try await Lookup.copy(barcode: barcode, library: kiosk.libraryID, on: app.db) != nil else { throw KioskError.unknownBook }
        if let open = try await Circulation.openLoan(barcode: barcode, library: kiosk.libraryID, now: now, on: app.db) {
            guard open.loan.memberId == member.id else { throw KioskError.someoneElses }
            return .returned(try await Circulation.giveBack(ReturnInput(loanId: open.loan.id, copyBarcode: nil), in: scope))
        }
        do {
            return .borrowed(try await Circulation.checkout(CheckoutInput(memberId: member.id, copyBarcode: barcode), in: scope))
        } catch HoldError.heldForOther {
            // The desk is told for whom; whoever stands at the kiosk is not (a card alone borrows there).
            throw KioskError.setAside
        }
    }

    /// The kiosk acts as a borrower's helper: what it does is recorded as done by "kiosk".
    static func scope(_ kiosk: Kiosk, now: Date, app: Application) -> Scope {
        let ctx = LibraryContext(libraryID: kiosk.libraryID, name: kiosk.name, policy: kiosk.policy, role: .volunteer,
                                 user: AuthenticatedUser(id: kiosk.id, username: "kiosk", displayName: "Kiosk"))
        return Scope(library: ctx, now: now, gate: app.writeGate, db: app.db, clock: app.clock)
    }
}

/// The kiosk's refusals, in the member's language.
enum KioskError: DomainError, Equatable {
    case unknownCard
    case unknownBook
    /// The book is on loan to another member (who is not said).
    case someoneElses
    /// The book is put aside for another member's hold (who is not said).
    case setAside
    /// The card and PIN do not go together (or the card has no PIN), where the library asks for one.
    case wrongPIN
    case notALibrarian
    /// This device is not (or no longer) a kiosk.
    case notAKiosk

    var described: Described {
        switch self {
        case .unknownCard: .init(.invalid, "kiosk_unknown_card", field: "card") { $0(.errKioskUnknownCard) }
        case .unknownBook: .init(.invalid, "kiosk_unknown_book", field: "barcode") { $0(.errKioskUnknownBook) }
        case .someoneElses: .init(.conflict, "kiosk_someone_elses", field: "barcode") { $0(.errKioskSomeoneElses) }
        case .setAside: .init(.conflict, "kiosk_set_aside", field: "barcode") { $0(.errKioskSetAside) }
        case .wrongPIN: .init(.unauthenticated, "bad_credentials", field: "pin") { $0(.errPortalBadCredentials) }
        case .notALibrarian: .init(.forbidden, "kiosk_not_librarian", field: "username") { $0(.errKioskNotLibrarian) }
        case .notAKiosk: .init(.forbidden, "not_a_kiosk") { $0(.kioskNotHere) }
        }
    }
}
