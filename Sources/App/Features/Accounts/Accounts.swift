import Crypto
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Staff accounts, sessions, API tokens, libraries and roles.
enum Accounts {
    static let minPasswordLength = 8

    static func needsSetup(on db: any Database) async throws -> Bool {
        try await User.query(on: db).count() == 0
    }

    /// First run: the owner and their first library, in one transaction. Refused once any user exists.
    static func setup(_ input: SetupInput, now: Date, gate: WriteGate, passwords: PasswordHashing, on db: any Database) async throws -> (User, Library) {
        guard try await needsSetup(on: db) else {
            throw AccountError.alreadySetUp
        }
        let username = try validUsername(input.username)
        let hash = try await validPasswordHash(input.password, passwords: passwords)
        let displayName = try Check.optional(input.displayName, field: "displayName", max: 100) ?? username
        let libraryName = try Check.optional(input.libraryName, field: "libraryName", max: 200) ?? "My Library"
        return try await gate.transaction(on: db) { db in
            guard try await User.query(on: db).count() == 0 else {
                throw AccountError.alreadySetUp
            }
            let user = User(username: username, displayName: displayName, passwordHash: hash, isAdmin: true)
            try await user.create(on: db)
            // Libraries made on the command line before anyone signed up (`import --library`,
            // `restore`) have no staff yet: the first owner gets them all.
            let ownerless = try await Library.query(on: db).all()
            for existing in ownerless {
                try await Membership(userID: user.id!, libraryID: existing.id!, role: .owner).create(on: db)
            }
            if let same = ownerless.first(where: { $0.name == libraryName }) ?? (input.libraryName == nil ? ownerless.first : nil) {
                return (user, same)
            }
            let library = Library(name: libraryName)
            try await library.create(on: db)
            try await Membership(userID: user.id!, libraryID: library.id!, role: .owner).create(on: db)
            return (user, library)
        }
    }

    static func createUser(username: String, password: String, displayName: String?, passwords: PasswordHashing, gate: WriteGate, on db: any Database) async throws -> User {
        let name = try validUsername(username)
        let hash = try await validPasswordHash(password, passwords: passwords)
        let display = try Check.optional(displayName, field: "displayName", max: 100) ?? name
        return try await gate.transaction(on: db) { db in
            if try await User.query(on: db).filter(\.$username == name).first() != nil {
                throw AccountError.duplicateUsername(name)
            }
            // The first account of an installation (made on the command line before setup) administers it.
            let firstAdmin = try await User.query(on: db).filter(\.$isAdmin == true).count() == 0
            let user = User(username: name, displayName: display, passwordHash: hash, isAdmin: firstAdmin)
            try await user.create(on: db)
            return user
        }
    }

    static func login(_ input: LoginInput, from address: String?, now: Date, passwords: PasswordHashing, gate: WriteGate,
                      on db: any Database) async throws -> SessionDTO {
        let username = String(input.username.trimmingCharacters(in: .whitespaces).lowercased().prefix(64))
        let wait = try await LoginThrottle.take(.staff, account: username, address: address, now: now, gate: gate, on: db)
        guard wait == 0 else {
            throw AccountError.tooManyAttempts(waitSeconds: wait)
        }
        let user = try await User.query(on: db).filter(\.$username == username).first()
        // An unknown username costs one bcrypt check too, so timing does not tell which usernames exist.
        let hash = if let stored = user?.passwordHash { stored } else { try await passwords.dummyHash() }
        let passwordOK = await verify(input.password, hash: hash, passwords: passwords)
        guard let user, passwordOK else { throw AccountError.badCredentials }
        try await LoginThrottle.succeeded(.staff, account: username, address: address, gate: gate, on: db)
        // Said only to whoever knows the password: their school account signs them in now.
        try await SchoolSignIn.requirePasswordAllowed(user: user, on: db)
        return try await startSession(for: user, now: now, gate: gate, on: db)
    }

    static func startSession(for user: User, now: Date, gate: WriteGate, on db: any Database) async throws -> SessionDTO {
        let token = Credential.generate(prefix: Credential.sessionPrefix)
        let expires = now.addingTimeInterval(Credential.sessionLifetime)
        let userID = try user.requireID()
        try await gate.transaction(on: db) { db in
            try await UserSession(userID: userID, tokenHash: Credential.hash(token), expiresAt: expires).create(on: db)
            // Expired sessions are cleared as new ones start, so the table never grows without bound.
            try await UserSession.query(on: db).filter(\.$expiresAt < now).delete()
        }
        return SessionDTO(token: token, expiresAt: expires, user: user.dto)
    }

    static func logout(token: String, gate: WriteGate, on db: any Database) async throws {
        let hash = Credential.hash(token)
        try await gate.transaction(on: db) { db in
            try await UserSession.query(on: db).filter(\.$tokenHash == hash).delete()
        }
    }

    static func createToken(name: String, expiresInDays: Int? = nil, user: AuthenticatedUser, now: Date, gate: WriteGate,
                            on db: any Database) async throws -> TokenDTO {
        let label = try Check.required(name, field: "name", max: 100)
        let days = try Check.range(expiresInDays, 1...3650, field: "expiresInDays")
        let token = Credential.generate(prefix: Credential.apiTokenPrefix)
        let record = APIToken(userID: user.id, name: label, tokenHash: Credential.hash(token),
                              expiresAt: days.map { now.addingTimeInterval(Double($0) * 86_400) })
        try await gate.transaction(on: db) { db in try await record.create(on: db) }
        return TokenDTO(id: record.id!, name: label, createdAt: record.createdAt, expiresAt: record.expiresAt, token: token)
    }

    static func revokeToken(_ id: UUID, user: AuthenticatedUser, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            guard let token = try await APIToken.query(on: db).filter(\.$id == id).filter(\.$user.$id == user.id).first() else {
                throw AccountError.tokenNotFound
            }
            try await token.delete(on: db)
        }
    }

    // MARK: - Libraries

    static func libraries(of user: AuthenticatedUser, on db: any Database) async throws -> [LibraryDTO] {
        try await librariesWithRoles(of: user.id, on: db).filter { $0.library.pendingJobID == nil }.map { $0.library.dto(role: $0.role) }
            .sorted { $0.name.localizedStandardCompare($1.name) == .orderedAscending }
    }

    /// A user's libraries with their role (those a restore is still writing included), in one statement (a join): an eager load reads memberships
    /// and libraries in two, and a library removed in between (a failed import into a new library, on
    /// PostgreSQL) made it throw "parent missing".
    static func librariesWithRoles(of userID: UUID, on db: any Database) async throws -> [(library: Library, role: Role)] {
        try await Membership.query(on: db).join(Library.self, on: \Membership.$library.$id == \Library.$id)
            .filter(\.$user.$id == userID).all()
            .map { (try $0.joined(Library.self), $0.role) }
    }

    /// Takes back a library that was just made and holds nothing yet (a restore or an import into a
    /// new library that failed as a whole), with its memberships.
    static func removeNewLibrary(_ id: UUID, gate: WriteGate, on db: any Database) async {
        try? await gate.transaction(on: db) { db in try await removeUnfinishedLibrary(id, on: db) }
    }

    /// Removes a library a restore or import was writing (inside the caller's transaction): its data,
    /// memberships, the library, and what it leaves without a foreign key (`forgetLibrary`).
    static func removeUnfinishedLibrary(_ id: UUID, on db: any Database) async throws {
        try await Backup.eraseData(libraryID: id, on: db)
        try await db.sql.raw("DELETE FROM memberships WHERE library_id = \(bind: id)").run()
        try await db.sql.raw("DELETE FROM libraries WHERE id = \(bind: id)").run()
        try await forgetLibrary(id, on: db)
    }

    /// What a deleted library leaves in tables that have no foreign key to it (their policy says
    /// `deleted`: the counts triggers keep, its reading days, its devices' pushes). Every way a library goes
    /// (deleted, a restore's hidden library removed or swapped in) calls this.
    static func forgetLibrary(_ id: UUID, on db: any Database) async throws {
        for table in Features.forgottenTables {
            try await db.sql.raw("DELETE FROM \(ident: table) WHERE library_id = \(bind: id)").run()
        }
    }

    /// A new library owned by `user`. A name the user's libraries already have is refused, or, with
    /// `numberIfTaken` (a backup restored as a new library under its own name), numbered: "Room 12 (2)".
    /// With `pendingJob`, the library is nobody's to see until that job clears it (a restore).
    static func createLibrary(_ input: LibraryInput, user: AuthenticatedUser, numberIfTaken: Bool = false, pendingJob: UUID? = nil,
                              gate: WriteGate, on db: any Database) async throws -> LibraryDTO {
        try await ServerSettings.requireMayCreateLibrary(user, on: db)
        let library = Library(name: try Check.required(input.name, field: "name", max: 200))
        try LibraryPatch(name: nil, [LoanSettings(loanPeriodDays: input.loanPeriodDays, maxRenewals: input.maxRenewals),
                                     PublicCatalogSettings(publicCatalog: input.publicCatalog)]).apply(to: library)
        try await gate.transaction(on: db) { db in
            // Two libraries of one person with the same name cannot be told apart in the switcher.
            let mine = Set(try await librariesWithRoles(of: user.id, on: db).map { $0.library.name.uppercased() })
            if mine.contains(library.name.uppercased()) {
                guard numberIfTaken else { throw AccountError.duplicateLibraryName(library.name) }
                let base = library.name
                var n = 2
                while mine.contains("\(base) (\(n))".uppercased()) { n += 1 }
                library.name = String("\(base) (\(n))".prefix(200))
            }
            library.pendingJobID = pendingJob
            try await library.create(on: db)
            try await Membership(userID: user.id, libraryID: library.id!, role: .owner).create(on: db)
        }
        return library.dto(role: .owner)
    }

    static func updateLibrary(_ patch: LibraryPatch, in scope: Scope) async throws -> LibraryDTO {
        let (ctx, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            guard let library = try await Library.find(ctx.libraryID, on: db) else { throw AccountError.libraryNotFound }
            let zoneBefore = Library.zone(library.timeZone)
            try patch.apply(to: library)
            try await library.save(on: db)
            // The reports' counts are kept by day in the library's zone: another zone counts them again.
            if Library.zone(library.timeZone) != zoneBefore { try await LoanTallies.recount(library: ctx.libraryID, on: db.sql) }
            try await ActivityLog.record(.init(type: .editLibrary,
                                               detail: .settings(loanDays: library.loanPeriodDays, renewals: library.maxRenewals)),
                                         library: ctx, at: now, on: db)
            return library.dto(role: ctx.role)
        }
    }

    static func deleteLibrary(_ ctx: LibraryContext, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            try await Library.query(on: db).filter(\.$id == ctx.libraryID).delete()
            try await forgetLibrary(ctx.libraryID, on: db)
        }
    }

    // MARK: - Staff

    static func staff(of libraryID: UUID, on db: any Database) async throws -> [StaffDTO] {
        try await Membership.query(on: db).filter(\.$library.$id == libraryID).with(\.$user).all()
            .map { StaffDTO(userId: $0.$user.id, username: $0.user.username, displayName: $0.user.displayName, role: $0.role, email: $0.user.email) }
            .sorted { $0.username < $1.username }
    }

    /// Adds staff: a new account (with the password given), or an existing one when the password given
    /// is that account's own (the person is there, typing it). Any other case gets one and the same
    /// answer, so adding staff does not tell which usernames exist or let an owner pull someone else's
    /// account into their library.
    static func addStaff(_ input: StaffInput, passwords: PasswordHashing, in scope: Scope) async throws -> StaffDTO {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let username = try validUsername(input.username)
        let display = try Check.optional(input.displayName, field: "displayName", max: 100)
        guard let password = input.password, (minPasswordLength...maxPasswordLength).contains(password.unicodeScalars.count) else {
            throw AccountError.staffPasswordNeeded(min: minPasswordLength)
        }
        let refused = AccountError.cannotAddStaff
        let existing = try await User.query(on: db).filter(\.$username == username).first()
        // One bcrypt operation on either path, so the time taken does not tell either.
        let hash: String?
        if let existing {
            guard await verify(password, hash: existing.passwordHash, passwords: passwords) else { throw refused }
            hash = nil
        } else {
            hash = try await passwords.hash(bcryptInput(password))
        }
        return try await gate.transaction(on: db) { db in
            let user: User
            if let existing {
                user = existing
            } else {
                guard try await User.query(on: db).filter(\.$username == username).first() == nil, let hash else { throw refused }
                user = User(username: username, displayName: display ?? username, passwordHash: hash)
                try await user.create(on: db)
            }
            if try await Membership.query(on: db).filter(\.$user.$id == user.id!).filter(\.$library.$id == library.libraryID).first() != nil {
                throw AccountError.alreadyStaff(username)
            }
            try await Membership(userID: user.id!, libraryID: library.libraryID, role: input.role).create(on: db)
            try await ActivityLog.record(.init(type: .addStaff, detail: .staffAdded(username: username, role: input.role)), library: library, at: now, on: db)
            try await AuditLog.record(.init(action: .staffAdded, target: username, detail: ["role": input.role.rawValue]), library: library.libraryID,
                                      by: library.user, at: now, on: db)
            return StaffDTO(userId: user.id!, username: user.username, displayName: user.displayName, role: input.role, email: user.email)
        }
    }

    static func setRole(_ userID: UUID, role: Role?, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            guard let membership = try await Membership.query(on: db).filter(\.$user.$id == userID)
                .filter(\.$library.$id == library.libraryID).with(\.$user).first() else {
                throw AccountError.staffNotFound
            }
            if membership.role == .owner, role != .owner {
                let owners = try await Membership.query(on: db).filter(\.$library.$id == library.libraryID).filter(\.$role == .owner).count()
                if owners <= 1 {
                    throw AccountError.lastOwner
                }
            }
            if let role {
                membership.role = role
                try await membership.save(on: db)
                try await ActivityLog.record(.init(type: .addStaff, detail: .roleChanged(username: membership.user.username, role: role)),
                                             library: library, at: now, on: db)
                try await AuditLog.record(.init(action: .roleChanged, target: membership.user.username, detail: ["role": role.rawValue]),
                                          library: library.libraryID, by: library.user, at: now, on: db)
            } else {
                try await membership.delete(on: db)
                try await ActivityLog.record(.init(type: .removeStaff, info: membership.user.username), library: library, at: now, on: db)
                try await AuditLog.record(.init(action: .staffRemoved, target: membership.user.username), library: library.libraryID,
                                          by: library.user, at: now, on: db)
            }
        }
    }

    /// An owner sets a new password for someone on the library's staff who has forgotten theirs; their
    /// sessions and API tokens end. Only for an account that works in no library where the owner is not
    /// also an owner, and never the server's administrator's: a reset must not reach beyond the
    /// owner's own libraries.
    static func resetPassword(_ userID: UUID, password: String, passwords: PasswordHashing, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let hash = try await validPasswordHash(password, passwords: passwords)
        try await gate.transaction(on: db) { db in
            guard let user = try await User.find(userID, on: db),
                  try await Membership.query(on: db).filter(\.$user.$id == userID).filter(\.$library.$id == library.libraryID).first() != nil else {
                throw AccountError.staffNotFound
            }
            let theirs = Set(try await Membership.query(on: db).filter(\.$user.$id == userID).all().map { $0.$library.id })
            let owned = Set(try await Membership.query(on: db).filter(\.$user.$id == library.user.id).filter(\.$role == .owner).all().map { $0.$library.id })
            guard user.id != library.user.id, !user.isAdmin, theirs.isSubset(of: owned) else { throw AccountError.cannotResetPassword }
            user.passwordHash = hash
            try await user.save(on: db)
            try await UserSession.query(on: db).filter(\.$user.$id == userID).delete()
            try await APIToken.query(on: db).filter(\.$user.$id == userID).delete()
            try await ActivityLog.record(.init(type: .editLibrary, detail: .passwordReset(username: user.username)), library: library, at: now, on: db)
        }
    }

    // MARK: - Validation

    static func validUsername(_ raw: String) throws -> String {
        let name = try Check.required(raw, field: "username", max: 64).lowercased()
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-@".contains($0)) }) else {
            throw AccountError.badUsername(String(raw.prefix(100)))
        }
        return name
    }

    static func validPasswordHash(_ password: String, passwords: PasswordHashing) async throws -> String {
        guard password.unicodeScalars.count >= minPasswordLength else {
            throw AccountError.passwordTooShort(min: minPasswordLength)
        }
        guard password.unicodeScalars.count <= maxPasswordLength else {
            throw AccountError.passwordTooLong(max: maxPasswordLength)
        }
        return try await passwords.hash(bcryptInput(password))
    }

    static let maxPasswordLength = 1_000

    /// What bcrypt sees of a password: the password itself up to its limit of 72 bytes; a longer one
    /// (a passphrase in another script) as its SHA-256, so that no part of it is silently ignored.
    static func bcryptInput(_ password: String) -> String {
        guard password.utf8.count > 72 else { return password }
        return "sha256:" + Data(SHA256.hash(data: Data(password.utf8))).base64EncodedString()
    }

    /// Checks a password against a stored hash (false for anything malformed, never a throw).
    static func verify(_ password: String, hash: String, passwords: PasswordHashing) async -> Bool {
        guard password.unicodeScalars.count <= maxPasswordLength else { return false }
        return await passwords.verify(bcryptInput(password), created: hash)
    }
}

extension User {
    var dto: UserDTO { UserDTO(id: id!, username: username, displayName: displayName) }
}

extension Library {
    func dto(role: Role) -> LibraryDTO {
        LibraryDTO(id: id!, name: name, loanPeriodDays: loanPeriodDays, maxRenewals: maxRenewals, publicCatalog: publicCatalog, role: role,
                   timeZone: Library.zone(timeZone).identifier, renewalDays: renewalDays, renewWindowDays: renewWindowDays,
                   holdPickupDays: holdPickupDays, maxHoldsPerMember: maxHoldsPerMember, fineMode: finePolicy.mode, finePerDay: finePerDay, fineGraceDays: fineGraceDays,
                   fineCap: fineCap, fineSuspensionDays: fineSuspensionDays, fineBlockAt: fineBlockAt, currency: currency,
                   catalogIndexable: catalogIndexable, kioskAsksPin: kioskAsksPIN, publicFigures: publicFigures, retentionMonths: retentionMonths,
                   rosterNightly: rosterNightly)
    }
}
