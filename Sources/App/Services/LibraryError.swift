import ShelfmarkCore
import Vapor

enum LibraryError: DomainError, Equatable {
    case unknownTimeZone(String)

    var refusal: Refusal { .invalid }
    var code: String { "invalid" }
    var field: String? { "timeZone" }

    func message(_ t: Strings) -> String {
        switch self {
        case .unknownTimeZone(let name): t.format(.errUnknownTimeZone, name)
        }
    }
}
