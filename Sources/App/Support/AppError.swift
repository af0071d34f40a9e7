import Vapor
import ShelfmarkCore

/// Every error the API reports, in one shape: `{"error": {"code", "message", "field"?, "details"?}}`.
/// Services throw domain errors (`DomainError`), which become this in `JSONErrorMiddleware.appError(for:)`;
/// `AppError` itself is thrown only at the HTTP edge (a malformed request, a query parameter, CSRF).
struct AppError: Error, Sendable {
    var status: HTTPResponseStatus
    var code: String
    var message: String
    var field: String?
    var details: [String: String]?

    static func invalid(_ field: String, _ message: String) -> AppError {
        AppError(status: .unprocessableEntity, code: "invalid", message: message, field: field)
    }

    static func conflict(_ code: String, _ message: String, field: String? = nil, details: [String: String]? = nil) -> AppError {
        AppError(status: .conflict, code: code, message: message, field: field, details: details)
    }

}

struct ErrorBody: Content {
    struct Detail: Content {
        var code: String
        var message: String
        var field: String?
        var details: [String: String]?
    }
    var error: Detail
}

extension Error {
    /// This error as the API answers it: status, code, English message, field and details.
    var answered: AppError { JSONErrorMiddleware.appError(for: self) }

    /// A refusal the person can act on: a 4xx other than "not found" and "forbidden", shown on the
    /// form they sent, next to its field.
    var isFormRefusal: Bool {
        let status = answered.status.code
        return (400..<500).contains(status) && status != 404 && status != 403
    }
}
