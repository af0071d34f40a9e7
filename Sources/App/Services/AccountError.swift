import ShelfmarkCore
import Vapor

enum AccountError: DomainError, Equatable {
    case alreadySetUp
    case duplicateUsername(String)
    case tooManyAttempts(waitSeconds: Int)
    case badCredentials
    case tokenNotFound
    case libraryNotFound
    case staffNotFound
    case staffPasswordNeeded(min: Int)
    case cannotAddStaff
    case alreadyStaff(String)
    case lastOwner
    case badUsername(String)
    case passwordTooShort(min: Int)
    case passwordTooLong(max: Int)
    case roleTooLow(Role, needs: Role)
    case creationRestricted(adminOnly: Bool)
    case serverSettingsAdminOnly
    case cannotResetPassword
    case duplicateLibraryName(String)

    var refusal: Refusal {
        switch self {
        case .tokenNotFound, .libraryNotFound, .staffNotFound: .notFound
        case .staffPasswordNeeded, .badUsername, .passwordTooShort, .passwordTooLong: .invalid
        case .alreadySetUp, .duplicateUsername, .cannotAddStaff, .alreadyStaff, .lastOwner, .duplicateLibraryName: .conflict
        case .tooManyAttempts: .tooManyRequests
        case .badCredentials: .unauthenticated
        case .roleTooLow, .creationRestricted, .serverSettingsAdminOnly, .cannotResetPassword: .forbidden
        }
    }

    var code: String {
        switch self {
        case .alreadySetUp: "already_set_up"
        case .duplicateUsername: "duplicate_username"
        case .tooManyAttempts: "too_many_attempts"
        case .badCredentials: "bad_credentials"
        case .tokenNotFound, .libraryNotFound, .staffNotFound: "not_found"
        case .staffPasswordNeeded, .badUsername, .passwordTooShort, .passwordTooLong: "invalid"
        case .cannotAddStaff: "cannot_add_staff"
        case .alreadyStaff: "already_staff"
        case .lastOwner: "last_owner"
        case .duplicateLibraryName: "duplicate_library_name"
        case .roleTooLow, .serverSettingsAdminOnly, .cannotResetPassword: "forbidden"
        case .creationRestricted: "creation_restricted"
        }
    }

    var field: String? {
        switch self {
        case .duplicateUsername, .alreadyStaff, .badUsername: "username"
        case .duplicateLibraryName: "name"
        case .staffPasswordNeeded, .cannotAddStaff, .passwordTooShort, .passwordTooLong: "password"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .duplicateUsername(let name), .alreadyStaff(let name): ["username": name]
        case .tooManyAttempts(let wait): ["retryAfter": String(wait)]
        case .roleTooLow(let role, let needs): ["role": role.rawValue, "needs": needs.rawValue]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .alreadySetUp: t(.errAlreadySetUp)
        case .duplicateUsername(let name): t.format(.errDuplicateUsername, name)
        case .tooManyAttempts(let wait): t.format(.errWaitSeconds, t.number(wait))
        case .badCredentials: t(.errBadCredentials)
        case .tokenNotFound: t(.errTokenNotFound)
        case .libraryNotFound: t(.errLibraryNotFound)
        case .staffNotFound: t(.errStaffNotFound)
        case .staffPasswordNeeded(let min): t.format(.errStaffPassword, t.number(min))
        case .cannotAddStaff: t(.errCannotAddStaff)
        case .alreadyStaff(let name): t.format(.errAlreadyStaff, name)
        case .lastOwner: t(.errLastOwner)
        case .badUsername(let raw): t.format(.errBadUsername, raw)
        case .passwordTooShort(let min): t.format(.errPasswordShort, t.number(min))
        case .passwordTooLong(let max): t.format(.errPasswordLong, t.number(max))
        case .roleTooLow(let role, let needs): t.format(.errRoleTooLow, t.role(role), t.role(needs))
        case .creationRestricted(let adminOnly): t(adminOnly ? .errCreationAdminOnly : .errCreationRestricted)
        case .serverSettingsAdminOnly: t(.errServerAdminOnly)
        case .cannotResetPassword: t(.errCannotResetPassword)
        case .duplicateLibraryName(let name): t.format(.errDuplicateLibraryName, name)
        }
    }
}
