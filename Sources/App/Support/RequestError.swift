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

    var refusal: Refusal {
        switch self {
        case .noSuchPath: .notFound
        case .noFile: .invalid
        case .oneOf(_, _, _, let refusal): refusal
        default: .badRequest
        }
    }

    var code: String {
        switch self {
        case .noSuchPath: "not_found"
        case .unreadableForm: "bad_body"
        default: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .notAnID(let field, _), .notTrueOrFalse(let field, _), .wholeNumber(let field, _, _), .oneOf(let field, _, _, _), .noFile(let field),
             .rating(let field, _): field
        case .noSuchPath, .unreadableForm: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .notAnID(let field, let got): t.format(.errNotAnID, String(got.prefix(60)), field)
        case .noSuchPath: t(.notFoundText)
        case .notTrueOrFalse(let field, let got): t.format(.errTrueOrFalse, field, String(got.prefix(60)))
        case .wholeNumber(let field, let range, let got):
            t.format(.errWholeNumberRange, field, t.number(range.lowerBound), t.number(range.upperBound), String(got.prefix(60)))
        case .oneOf(let field, let allowed, let got, _): t.format(.errOneOf, field, allowed.joined(separator: ", "), String(got.prefix(60)))
        case .rating(_, let got): t.format(.errRating, String(got.prefix(20)))
        case .unreadableForm: t(.errUnreadableForm)
        case .noFile(let field): t.format(.errNoFileField, field)
        }
    }
}
