import ShelfmarkCore
import Vapor

enum LibraryError: DomainError, Equatable {
    case unknownTimeZone(String)
    case unknownCurrency(String)

    var described: Described {
        switch self {
        case .unknownTimeZone(let name): .init(.invalid, "invalid", field: "timeZone") { $0.format(.errUnknownTimeZone, name) }
        case .unknownCurrency(let code): .init(.invalid, "invalid", field: "currency") { $0.format(.errUnknownCurrency, String(code.prefix(20))) }
        }
    }
}
