import ShelfmarkCore
import Vapor

/// A request the API cannot read as sent: a query parameter out of its range, an id that is not one,
/// an upload without its file. Said in plain words in the request's language, like every refusal;
/// `code` and `field` stay stable for programs.
enum RequestError: DomainError, Equatable {
    /// A query parameter that should name a record (`?titleId=`).
    case notAnID(field: String, got: String)
    /// An id in the path that is not one: nothing there (404).
    case noSuchPath(field: String)
    case notTrueOrFalse(field: String, got: String)
    case wholeNumber(field: String, range: ClosedRange<Int>, got: String)
    /// A value that is not one of those the parameter takes: 400 in a query, 422 for an import's options.
    case oneOf(field: String, allowed: [String], got: String, refusal: Refusal = .badRequest)
    case rating(field: String, got: String)
    case unreadableForm
    case noFile(field: String)

    var described: Described {
        switch self {
        case .notAnID(let field, let got):
            .init(.badRequest, "invalid", field: field) { $0.format(.errNotAnID, String(got.prefix(60)), field) }
        case .noSuchPath: .init(.notFound, "not_found") { $0(.notFoundText) }
        case .notTrueOrFalse(let field, let got):
            .init(.badRequest, "invalid", field: field) { $0.format(.errTrueOrFalse, field, String(got.prefix(60))) }
        case .wholeNumber(let field, let range, let got):
            .init(.badRequest, "invalid", field: field) {
                $0.format(.errWholeNumberRange, field, $0.number(range.lowerBound), $0.number(range.upperBound), String(got.prefix(60)))
            }
        case .oneOf(let field, let allowed, let got, let refusal):
            .init(refusal, "invalid", field: field) { $0.format(.errOneOf, field, allowed.joined(separator: ", "), String(got.prefix(60))) }
        case .rating(let field, let got): .init(.badRequest, "invalid", field: field) { $0.format(.errRating, String(got.prefix(20))) }
        case .unreadableForm: .init(.badRequest, "bad_body") { $0(.errUnreadableForm) }
        case .noFile(let field): .init(.invalid, "invalid", field: field) { $0.format(.errNoFileField, field) }
        }
    }
}
