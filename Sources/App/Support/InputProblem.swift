import ShelfmarkCore
import Vapor

/// A refused input value, said in any language (a `DomainError`: see Support/DomainErrors.swift).
enum InputProblem: Sendable, Equatable, Codable {
    case empty(field: String)
    case tooLong(field: String, max: Int)
    case outOfRange(field: String, min: Int, max: Int, got: Int)
    case notEmail(field: String, value: String)
    case notCoverURL(field: String)
    case notANumber(field: String)
    case notADate(field: String, value: String)
}

extension ISBN.Invalid: DomainError {
    var refusal: Refusal { .invalid }
    var code: String { "invalid" }
    var field: String? { "isbn" }

    func message(_ t: Strings) -> String {
        switch self {
        case .empty: t(.errISBNEmpty)
        case .badCharacters: t(.errISBNCharacters)
        case .wrongLength(let n): t.format(.errISBNLength, t.number(n))
        case .badChecksum: t(.errISBNChecksum)
        case .notABookEAN: t(.errISBNNotBook)
        }
    }
}

extension InputProblem: DomainError {
    var refusal: Refusal { .invalid }
    var code: String { "invalid" }

    var field: String? {
        switch self {
        case .empty(let field), .tooLong(let field, _), .outOfRange(let field, _, _, _), .notEmail(let field, _), .notCoverURL(let field),
             .notANumber(let field), .notADate(let field, _): field
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .empty(let field): t.format(.errEmpty, t.label(field))
        case .tooLong(let field, let max): t.format(.errTooLong, t.label(field), t.number(max))
        case .outOfRange(let field, let min, let max, let got): t.format(.errOutOfRange, t.label(field), t.number(min), t.number(max), t.number(got))
        case .notEmail(_, let value): t.format(.errNotEmail, value)
        case .notCoverURL(let field): t.format(.errNotCoverURL, t.label(field))
        case .notANumber(let field): t.format(.errNotANumber, t.label(field))
        case .notADate(_, let value): t.format(.errNotADate, value)
        }
    }
}
