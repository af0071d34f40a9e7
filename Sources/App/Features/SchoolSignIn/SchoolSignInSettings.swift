import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The installation's sign-in with the school's accounts (OpenID Connect), as its administrator set
/// it: the provider (Google Workspace and Microsoft Entra ID are presets of the same code: their
/// issuer is filled in), the client Shelfmark is at the provider, who may sign in that way, and
/// where passwords are switched off. One JSON value in `server_settings`; the client secret sealed
/// with the installation's key (`SecretBox`).
struct SchoolSignInSettings: Codable, Sendable, Equatable {
    enum Preset: String, Codable, Sendable, CaseIterable {
        case google, microsoft, other
    }

    var preset: Preset = .other
    /// The provider's issuer (`https://accounts.google.com`, `https://login.microsoftonline.com/<tenant>/v2.0`, …).
    var issuer: String?
    /// Entra ID's tenant (directory) id or domain: its issuer is made of it.
    var tenant: String?
    var clientID: String?
    var sealedSecret: String?
    /// The school's e-mail domain: only addresses at it are taken (Google's `hd` claim must say it too).
    var domain: String?
    /// Staff may sign in with their school account (matched by the account's school e-mail).
    var staff = false
    /// Members may sign in to their library's public catalog (matched by e-mail or student number).
    var members = false
    /// A school account that matches no staff account gets one, with this role in `accountLibrary`; nil: never.
    var newAccountRole: Role?
    var accountLibrary: UUID?
    /// The ID token's claim that carries the student number (matched to a member's school id or card).
    var studentClaim: String?
    /// Roles (and `member`: the public catalog's PIN) that may no longer sign in with a password.
    var passwordOff: [String] = []

    static let key = "school_sign_in"
    static let roleNames = Role.allCases.map(\.rawValue) + [memberRole]
    static let memberRole = "member"

    /// Set up enough to send someone to the provider.
    var isConfigured: Bool { issuer != nil && clientID != nil && sealedSecret != nil }
    var staffEnabled: Bool { isConfigured && staff }
    var membersEnabled: Bool { isConfigured && members }

    static func load(on db: any Database) async throws -> SchoolSignInSettings {
        try await ServerSettings.stored(key, as: SchoolSignInSettings.self, on: db) ?? SchoolSignInSettings()
    }

    func save(gate: WriteGate, on db: any Database) async throws {
        try await ServerSettings.store(self, key: Self.key, gate: gate, on: db)
    }

    /// Whether a password may still sign in someone with these roles (a member: `member`). The
    /// administrator always may: the one way back in when the provider is down or misconfigured.
    func passwordAllowed(roles: [String], isAdmin: Bool) -> Bool {
        isAdmin || !roles.contains { passwordOff.contains($0) }
    }

    /// The name on the sign-in button.
    var providerName: String {
        switch preset {
        case .google: "Google"
        case .microsoft: "Microsoft"
        case .other: issuer.flatMap { URL(string: $0)?.host } ?? "OpenID Connect"
        }
    }
}

/// The administrator's change (the API's PATCH and the page's form). An empty client secret keeps the
/// one stored.
struct SchoolSignInPatch: Content, WebForm {
    var preset: SchoolSignInSettings.Preset?
    var issuer: String?
    var tenant: String?
    var clientId: String?
    var clientSecret: String?
    var domain: String?
    var staff: Bool?
    var members: Bool?
    /// A role, or `none`.
    var newAccountRole: String?
    var accountLibrary: UUID?
    var studentClaim: String?
    var passwordOff: [String]?

    static var maxLength: [String: Int] {
        ["issuer": 500, "tenant": 200, "clientId": 300, "clientSecret": 1_000, "domain": 253, "studentClaim": 64]
    }

    /// The settings with this change, checked as a whole.
    func applied(to old: SchoolSignInSettings, box: SecretBox, libraryExists: (UUID) async throws -> Bool) async throws -> SchoolSignInSettings {
        var s = old
        if let preset { s.preset = preset }
        if let tenant { s.tenant = try Check.optional(tenant, field: "tenant", max: 200) }
        if let issuer { s.issuer = try Check.optional(issuer, field: "issuer", max: 500) }
        switch s.preset {
        case .google: s.issuer = OpenIDProvider.googleIssuer
        case .microsoft:
            guard let tenant = s.tenant, tenant.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.".contains($0)) }) else {
                throw SchoolSignInError.tenantNeeded
            }
            s.issuer = "https://login.microsoftonline.com/\(tenant.lowercased())/v2.0"
        case .other:
            if let issuer = s.issuer { s.issuer = try OpenIDProvider.checkIssuer(issuer) }
        }
        if let clientId { s.clientID = try Check.optional(clientId, field: "clientId", max: 300) }
        if let secret = try Check.optional(clientSecret, field: "clientSecret", max: 1_000) { s.sealedSecret = try box.seal(secret) }
        if let domain {
            s.domain = try Check.optional(domain, field: "domain", max: 253).map { $0.lowercased() }
            if let d = s.domain, EmailAddress(parsing: "a@" + d) == nil || !d.contains(".") {
                throw InputProblem.notHost(field: "domain", value: String(d.prefix(100)))
            }
        }
        if let staff { s.staff = staff }
        if let members { s.members = members }
        if let role = newAccountRole {
            if role == "none" || role.isEmpty {
                s.newAccountRole = nil
            } else {
                guard let parsed = Role(rawValue: role), parsed != .owner else { throw SchoolSignInError.badRole(String(role.prefix(40))) }
                s.newAccountRole = parsed
            }
        }
        if let accountLibrary { s.accountLibrary = accountLibrary }
        if let claim = studentClaim {
            s.studentClaim = try Check.optional(claim, field: "studentClaim", max: 64)
            if let c = s.studentClaim, !c.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_-.:/".contains($0)) }) {
                throw SchoolSignInError.badClaim(String(c.prefix(64)))
            }
        }
        if let off = passwordOff {
            let unknown = off.filter { !SchoolSignInSettings.roleNames.contains($0) }
            if let first = unknown.first { throw SchoolSignInError.badRole(String(first.prefix(40))) }
            s.passwordOff = SchoolSignInSettings.roleNames.filter { off.contains($0) }
        }
        // New accounts only for the school's own addresses, and into a library that exists.
        if s.newAccountRole != nil {
            guard s.domain != nil else { throw SchoolSignInError.domainNeeded }
            guard let library = s.accountLibrary, try await libraryExists(library) else { throw SchoolSignInError.accountLibraryNeeded }
        }
        // Passwords go only where the school's accounts replace them: nobody is locked out.
        let staffOff = s.passwordOff.contains { $0 != SchoolSignInSettings.memberRole }
        if staffOff && !s.staffEnabled { throw SchoolSignInError.passwordsNeedSignIn }
        if s.passwordOff.contains(SchoolSignInSettings.memberRole) && !s.membersEnabled { throw SchoolSignInError.passwordsNeedSignIn }
        if (s.staff || s.members) && !s.isConfigured { throw SchoolSignInError.providerIncomplete }
        return s
    }
}

/// The settings as the API and the page show them: never the secret, only whether one is kept.
struct SchoolSignInDTO: Content {
    var preset: SchoolSignInSettings.Preset
    var issuer: String?
    var tenant: String?
    var clientId: String?
    var hasClientSecret: Bool
    var domain: String?
    var staff: Bool
    var members: Bool
    var newAccountRole: Role?
    var accountLibrary: UUID?
    var studentClaim: String?
    var passwordOff: [String]
    /// The address to register at the provider as the redirect URI (the sign-in comes back to it).
    var redirectUri: String?

    init(_ s: SchoolSignInSettings, redirectURI: String?) {
        (preset, issuer, tenant, clientId, hasClientSecret, domain) = (s.preset, s.issuer, s.tenant, s.clientID, s.sealedSecret != nil, s.domain)
        (staff, members, newAccountRole, accountLibrary, studentClaim, passwordOff) = (s.staff, s.members, s.newAccountRole, s.accountLibrary,
                                                                                      s.studentClaim, s.passwordOff)
        redirectUri = redirectURI
    }
}
