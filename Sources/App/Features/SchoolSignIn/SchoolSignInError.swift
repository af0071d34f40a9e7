import Foundation
import ShelfmarkCore

/// What stops a sign-in with the school's account, or a change to its settings.
enum SchoolSignInError: DomainError, Equatable {
    /// The administrator has not set it up (or not for staff / for members).
    case notConfigured
    case providerUnreachable
    /// The provider answered something that is not what OpenID Connect says (what, for the log).
    case providerAnswer(String)
    /// The provider refused the code: used already, or not given to this client.
    case codeRefused
    /// The ID token does not hold (which claim, for the log).
    case badToken(String)
    /// The sign-in's state is unknown, used already or over ten minutes old.
    case expired
    /// The answer does not belong to a sign-in this browser started (a forged or swapped `state`).
    case forged
    /// The person said no at the provider.
    case denied
    /// The provider vouches for no e-mail address (at the school's domain).
    case noVerifiedEmail
    /// No staff account has this school e-mail.
    case noAccount(String)
    /// No member of the library has this e-mail or student number (or several have it).
    case noMember
    /// Too many sign-ins on their way at once.
    case busy
    /// Passwords are off for this person's role: the school's account signs them in.
    case passwordOff
    case badIssuer
    case tenantNeeded
    case badRole(String)
    case badClaim(String)
    case domainNeeded
    case accountLibraryNeeded
    case passwordsNeedSignIn
    case providerIncomplete
    /// Another staff account has this school e-mail.
    case emailTaken(String)

    var described: Described {
        switch self {
        case .notConfigured: .init(.notFound, "not_configured") { $0(.errSchoolNotConfigured) }
        case .providerUnreachable: .init(.unavailable, "provider_unreachable") { $0(.errSchoolUnreachable) }
        case .providerAnswer(let what): .init(.unavailable, "provider_answer", details: ["detail": what]) { $0(.errSchoolProviderAnswer) }
        case .codeRefused: .init(.unauthenticated, "code_refused") { $0(.errSchoolCodeRefused) }
        case .badToken(let what): .init(.unauthenticated, "bad_token", details: ["detail": what]) { $0(.errSchoolBadToken) }
        case .expired: .init(.unauthenticated, "sign_in_expired") { $0(.errSchoolExpired) }
        case .forged: .init(.unauthenticated, "state_mismatch") { $0(.errSchoolForged) }
        case .denied: .init(.unauthenticated, "denied") { $0(.errSchoolDenied) }
        case .noVerifiedEmail: .init(.unauthenticated, "no_verified_email") { $0(.errSchoolNoEmail) }
        case .noAccount(let email): .init(.unauthenticated, "no_account", details: ["email": email]) { $0.format(.errSchoolNoAccount, email) }
        case .noMember: .init(.unauthenticated, "no_member") { $0(.errSchoolNoMember) }
        case .busy: .init(.tooManyRequests, "busy") { $0(.errSchoolBusy) }
        case .passwordOff: .init(.unauthenticated, "password_off") { $0(.errSchoolPasswordOff) }
        case .badIssuer: .init(.invalid, "invalid", field: "issuer") { $0(.errSchoolIssuer) }
        case .tenantNeeded: .init(.invalid, "invalid", field: "tenant") { $0(.errSchoolTenant) }
        case .badRole(let role): .init(.invalid, "invalid", field: "newAccountRole", details: ["role": role]) { $0.format(.errSchoolRole, role) }
        case .badClaim(let claim): .init(.invalid, "invalid", field: "studentClaim", details: ["claim": claim]) { $0(.errSchoolClaim) }
        case .domainNeeded: .init(.conflict, "domain_needed", field: "domain") { $0(.errSchoolDomainNeeded) }
        case .accountLibraryNeeded: .init(.conflict, "library_needed", field: "accountLibrary") { $0(.errSchoolLibraryNeeded) }
        case .passwordsNeedSignIn: .init(.conflict, "passwords_need_sign_in", field: "passwordOff") { $0(.errSchoolPasswordsNeed) }
        case .emailTaken(let email): .init(.conflict, "email_taken", field: "email", details: ["email": email]) { $0.format(.errSchoolEmailTaken, email) }
        case .providerIncomplete: .init(.conflict, "provider_incomplete", field: "clientId") { $0(.errSchoolIncomplete) }
        }
    }
}
