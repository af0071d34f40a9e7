import ShelfmarkCore
import Vapor

/// How a refusal is answered. The HTTP status of every domain error is decided here and only here.
enum Refusal: Sendable {
    case notFound, invalid, conflict, forbidden, unauthenticated, tooManyRequests, badRequest

    var status: HTTPResponseStatus {
        switch self {
        case .notFound: .notFound
        case .invalid: .unprocessableEntity
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .unauthenticated: .unauthorized
        case .tooManyRequests: .tooManyRequests
        case .badRequest: .badRequest
        }
    }
}

/// An expected refusal from a service, as a case with its values. Its sentence in every language
/// (English included: the API's message is the English row) comes from the strings table, so no
/// service spells a message. The API's JSON error keeps `code`, `field` and `details` stable.
protocol DomainError: Error, Sendable {
    var refusal: Refusal { get }
    /// The API's stable error code.
    var code: String { get }
    /// The input field the refusal is about, if any (the API's `field`, the form field on a page).
    var field: String? { get }
    /// Values a client can act on (the API's `details`).
    var details: [String: String]? { get }
    func message(_ t: Strings) -> String
}

extension DomainError {
    var field: String? { nil }
    var details: [String: String]? { nil }
}
