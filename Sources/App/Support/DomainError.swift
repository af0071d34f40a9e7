import ShelfmarkCore
import Vapor

/// How a refusal is answered. The HTTP status of every domain error is decided here and only here.
enum Refusal: Sendable {
    case notFound, invalid, conflict, forbidden, unauthenticated, tooManyRequests, badRequest
    case tooLarge, unsupportedMediaType, unavailable, gone

    var status: HTTPResponseStatus {
        switch self {
        case .notFound: .notFound
        case .invalid: .unprocessableEntity
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .unauthenticated: .unauthorized
        case .tooManyRequests: .tooManyRequests
        case .badRequest: .badRequest
        case .tooLarge: .payloadTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .unavailable: .serviceUnavailable
        case .gone: .gone
        }
    }
}

/// An expected refusal from a service, as a case with its values. Its sentence in every language
/// (English included: the API's message is the English row) comes from the strings table, so no
/// service spells a message. The API's JSON error keeps `code`, `field` and `details` stable.
///
/// Each case is described once, in one switch (`described`): how it is answered, its code, the field
/// it is about, the values a client can act on, and its sentence.
protocol DomainError: Error, Sendable {
    var described: Described { get }
}

/// One refusal, described: `.init(.conflict, "copy_on_loan", field: "status") { $0(.errCopyOnLoan) }`.
struct Described: Sendable {
    var refusal: Refusal
    /// The API's stable error code.
    var code: String
    /// The input field the refusal is about, if any (the API's `field`, the form field on a page).
    var field: String?
    /// Values a client can act on (the API's `details`).
    var details: [String: String]?
    /// The sentence in the reader's language.
    var message: @Sendable (Strings) -> String

    init(_ refusal: Refusal, _ code: String, field: String? = nil, details: [String: String]? = nil,
         _ message: @escaping @Sendable (Strings) -> String) {
        (self.refusal, self.code, self.field, self.details, self.message) = (refusal, code, field, details, message)
    }
}

extension DomainError {
    var refusal: Refusal { described.refusal }
    var code: String { described.code }
    var field: String? { described.field }
    var details: [String: String]? { described.details }
    func message(_ t: Strings) -> String { described.message(t) }
}
