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

    var described: Described {
        switch self {
        case .alreadySetUp: .init(.conflict, "already_set_up") { $0(.errAlreadySetUp) }
        case .duplicateUsername(let name):
            .init(.conflict, "duplicate_username", field: "username", details: ["username": name]) { $0.format(.errDuplicateUsername, name) }
        case .tooManyAttempts(let wait):
            .init(.tooManyRequests, "too_many_attempts", details: ["retryAfter": String(wait)]) { $0.format(.errWaitSeconds, $0.number(wait)) }
        case .badCredentials: .init(.unauthenticated, "bad_credentials") { $0(.errBadCredentials) }
        case .tokenNotFound: .init(.notFound, "not_found") { $0(.errTokenNotFound) }
        case .libraryNotFound: .init(.notFound, "not_found") { $0(.errLibraryNotFound) }
        case .staffNotFound: .init(.notFound, "not_found") { $0(.errStaffNotFound) }
        case .staffPasswordNeeded(let min): .init(.invalid, "invalid", field: "password") { $0.format(.errStaffPassword, $0.number(min)) }
        case .cannotAddStaff: .init(.conflict, "cannot_add_staff", field: "password") { $0(.errCannotAddStaff) }
        case .alreadyStaff(let name):
            .init(.conflict, "already_staff", field: "username", details: ["username": name]) { $0.format(.errAlreadyStaff, name) }
        case .lastOwner: .init(.conflict, "last_owner") { $0(.errLastOwner) }
        case .badUsername(let raw): .init(.invalid, "invalid", field: "username") { $0.format(.errBadUsername, raw) }
        case .passwordTooShort(let min): .init(.invalid, "invalid", field: "password") { $0.format(.errPasswordShort, $0.number(min)) }
        case .passwordTooLong(let max): .init(.invalid, "invalid", field: "password") { $0.format(.errPasswordLong, $0.number(max)) }
        case .roleTooLow(let role, let needs):
            .init(.forbidden, "forbidden", details: ["role": role.rawValue, "needs": needs.rawValue]) { $0.format(.errRoleTooLow, $0.role(role), $0.role(needs)) }
        case .creationRestricted(let adminOnly): .init(.forbidden, "creation_restricted") { $0(adminOnly ? .errCreationAdminOnly : .errCreationRestricted) }
        case .serverSettingsAdminOnly: .init(.forbidden, "forbidden") { $0(.errServerAdminOnly) }
        case .cannotResetPassword: .init(.forbidden, "forbidden") { $0(.errCannotResetPassword) }
        case .duplicateLibraryName(let name): .init(.conflict, "duplicate_library_name", field: "name") { $0.format(.errDuplicateLibraryName, name) }
        }
    }
}
