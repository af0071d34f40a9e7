import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// The administrator's side of sign-in with the school's accounts, and a staff account's school e-mail.
enum SchoolSignInAdmin {
    static func update(_ patch: SchoolSignInPatch, app: Application) async throws {
        let old = try await SchoolSignInSettings.load(on: app.db)
        let changed = try await patch.applied(to: old, box: try app.secretBox()) { id in
            try await Library.find(id, on: app.db) != nil
        }
        try await changed.save(gate: app.writeGate, on: app.db)
    }

    /// Sets (or with nil/empty removes) a staff account's school e-mail: whoever signs in with that
    /// school account is this account. As much power as a new password, so the same bounds: your own
    /// account, or one that works in no library you do not own and is not the administrator's.
    static func setStaffEmail(_ userID: UUID, email raw: String?, in scope: Scope) async throws -> String? {
        let email = try Check.email(raw)?.lowercased()
        let library = scope.library
        return try await scope.gate.transaction(on: scope.db) { db in
            guard let user = try await User.find(userID, on: db),
                  try await Membership.query(on: db).filter(\.$user.$id == userID).filter(\.$library.$id == library.libraryID).first() != nil else {
                throw AccountError.staffNotFound
            }
            if user.id != library.user.id {
                let theirs = Set(try await Membership.query(on: db).filter(\.$user.$id == userID).all().map { $0.$library.id })
                let owned = Set(try await Membership.query(on: db).filter(\.$user.$id == library.user.id).filter(\.$role == .owner).all().map { $0.$library.id })
                guard !user.isAdmin, theirs.isSubset(of: owned) else { throw AccountError.cannotResetPassword }
            }
            if let email, let other = try await User.query(on: db).filter(\.$email == email).first(), other.id != userID {
                throw SchoolSignInError.emailTaken(email)
            }
            user.email = email
            try await user.save(on: db)
            return email
        }
    }
}

/// `GET`/`PATCH /api/v1/server/sign-in` (the administrator) and `PUT …/staff/{user}/email` (an owner).
enum SchoolSignInController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "server", "sign-in", doc: .init(
            summary: "Sign-in with the school's accounts (the administrator): the provider, who may use it, accounts made on first sign-in, passwords switched off, and the redirect URI to register at the provider; never the client secret",
            tag: "Accounts", response: SchoolSignInDTO.self), use: show)
        api.on(.PATCH, "server", "sign-in", doc: .init(
            summary: "Change sign-in with the school's accounts (the administrator). Google and Microsoft are presets (Microsoft needs the tenant); another provider by its issuer (https). An empty client secret keeps the one stored. Passwords go off only for those the school's accounts sign in",
            tag: "Accounts", request: SchoolSignInPatch.self, response: SchoolSignInDTO.self), use: update)
        api.grouped("libraries", ":libraryID").on(.PUT, "staff", ":userID", "email", doc: .init(
            summary: "Set a staff account's school e-mail (a sign-in with the school's account that vouches for it is this account); empty removes it. Owner only, for your own account or one that works in no library you do not own",
            tag: "Libraries", request: StaffEmailInput.self, response: StaffEmailInput.self), use: setEmail)
    }

    @Sendable static func show(req: Request) async throws -> SchoolSignInDTO {
        try await ServerSettings.requireAdmin(req)
        return SchoolSignInDTO(try await SchoolSignInSettings.load(on: req.db), redirectURI: SchoolSignInPages.origin(req).map { $0 + SchoolSignIn.returnPath })
    }

    @Sendable static func update(req: Request) async throws -> SchoolSignInDTO {
        try await ServerSettings.requireAdmin(req)
        try await SchoolSignInAdmin.update(try req.content.decode(SchoolSignInPatch.self), app: req.application)
        return try await show(req: req)
    }

    @Sendable static func setEmail(req: Request) async throws -> StaffEmailInput {
        let ctx = try await req.library(.administer)
        let input = try req.content.decode(StaffEmailInput.self)
        return StaffEmailInput(email: try await SchoolSignInAdmin.setStaffEmail(try req.uuid("userID"), email: input.email, in: req.scope(ctx)))
    }
}

struct StaffEmailInput: Content, SchemaConstrained {
    var email: String?
    static var schemaConstraints: [String: JSONValue] { ["email": ["maxLength": .number(Double(EmailAddress.maxLength)), "format": "email"]] }
}

extension SchoolSignInPatch: SchemaConstrained {
    static var schemaConstraints: [String: JSONValue] {
        ["issuer": Rule.optionalText(500), "tenant": ["maxLength": 200, "pattern": "^[A-Za-z0-9.-]*$"], "clientId": Rule.optionalText(300),
         "clientSecret": Rule.optionalText(1_000), "domain": Rule.optionalText(253), "studentClaim": ["maxLength": 64, "pattern": "^[A-Za-z0-9_:./-]*$"],
         "newAccountRole": ["enum": ["none", "viewer", "volunteer", "librarian"]],
         "passwordOff": Rule.items(["enum": .array(SchoolSignInSettings.roleNames.map { .string($0) })], max: 5)]
    }
}
