import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The self-service kiosk (issue 28): a tablet by the door that a librarian put in kiosk mode. A member
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
                INSERT INTO kiosks (id, library_id, token_hash, started_by, created_at)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: Credential.hash(token)), \(bind: scope.library.user.username),
                        \(bind: scope.now))
                """).run()
        }
        return token
    }

    /// The kiosk a device's token stands for in `library`, or nil.
    static func kiosk(token: String?, library: UUID, on db: any Database) async throws -> Kiosk? {
        guard let token, token.hasPrefix(tokenPrefix), token.count < 100 else { return nil }
        guard let id = try await db.sql.raw("""
            SELECT id FROM kiosks WHERE token_hash = \(bind: Credential.hash(token)) AND library_id = \(bind: library)
            """).first()?.decode(column: "id", as: UUID.self),
              let row = try await Library.find(library, on: db), row.pendingJobID == nil else { return nil }
        return Kiosk(id: id, libraryID: library, name: row.name, policy: row.policy, language: row.language)
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
            WHERE library_id = \(bind: kiosk.libraryID) AND lower(card_id) = \(bind: card.lowercased())
            """).first(decoding: MemberRow.self) else { throw KioskError.unknownCard }
        return member.member
    }

    static func member(id: UUID, kiosk: Kiosk, on db: any Database) async throws -> Member? {
        try await db.sql.raw("""
            SELECT id, card_id, first_name, last_name, language FROM members WHERE id = \(bind: id) AND library_id = \(bind: kiosk.libraryID)
            """).first(decoding: MemberRow.self)?.member
    }

    private struct MemberRow: Decodable {
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
        return .borrowed(try await Circulation.checkout(CheckoutInput(memberId: member.id, copyBarcode: barcode), in: scope))
    }

    /// The kiosk acts as a borrower's helper: what it does is recorded as done by "kiosk".
    static func scope(_ kiosk: Kiosk, now: Date, app: Application) -> Scope {
        let ctx = LibraryContext(libraryID: kiosk.libraryID, name: kiosk.name, policy: kiosk.policy, role: .volunteer,
                                 user: AuthenticatedUser(id: kiosk.id, username: "kiosk", displayName: "Kiosk"))
        return Scope(library: ctx, now: now, gate: app.writeGate, db: app.db, clock: app.clock)
    }
}

/// The kiosk's refusals (issue 28), in the member's language.
enum KioskError: DomainError, Equatable {
    case unknownCard
    case unknownBook
    /// The book is on loan to another member (who is not said).
    case someoneElses
    case notALibrarian
    /// This device is not (or no longer) a kiosk.
    case notAKiosk

    var described: Described {
        switch self {
        case .unknownCard: .init(.invalid, "kiosk_unknown_card", field: "card") { $0(.errKioskUnknownCard) }
        case .unknownBook: .init(.invalid, "kiosk_unknown_book", field: "barcode") { $0(.errKioskUnknownBook) }
        case .someoneElses: .init(.conflict, "kiosk_someone_elses", field: "barcode") { $0(.errKioskSomeoneElses) }
        case .notALibrarian: .init(.forbidden, "kiosk_not_librarian", field: "username") { $0(.errKioskNotLibrarian) }
        case .notAKiosk: .init(.forbidden, "not_a_kiosk") { $0(.kioskNotHere) }
        }
    }
}
