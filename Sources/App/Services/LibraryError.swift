import ShelfmarkCore
import Vapor

enum LibraryError: DomainError, Equatable {
    case unknownTimeZone(String)

    var described: Described {
        switch self {
        case .unknownTimeZone(let name): .init(.invalid, "invalid", field: "timeZone") { $0.format(.errUnknownTimeZone, name) }
        }
    }
}
