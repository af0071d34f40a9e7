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
    case notHost(field: String, value: String)
    /// A line break, tab, control or invisible character inside a card number or a barcode.
    case invisibleCharacter(field: String)
}

extension ISBN.Invalid: DomainError {
    var described: Described {
        switch self {
        case .empty: .init(.invalid, "invalid", field: "isbn") { $0(.errISBNEmpty) }
        case .badCharacters: .init(.invalid, "invalid", field: "isbn") { $0(.errISBNCharacters) }
        case .wrongLength(let n): .init(.invalid, "invalid", field: "isbn") { $0.format(.errISBNLength, $0.number(n)) }
        case .badChecksum: .init(.invalid, "invalid", field: "isbn") { $0(.errISBNChecksum) }
        case .notABookEAN: .init(.invalid, "invalid", field: "isbn") { $0(.errISBNNotBook) }
        }
    }
}

extension InputProblem: DomainError {
    var described: Described {
        switch self {
        case .empty(let field): .init(.invalid, "invalid", field: field) { $0.format(.errEmpty, $0.label(field)) }
        case .tooLong(let field, let max): .init(.invalid, "invalid", field: field) { $0.format(.errTooLong, $0.label(field), $0.number(max)) }
        case .outOfRange(let field, let min, let max, let got):
            .init(.invalid, "invalid", field: field) { $0.format(.errOutOfRange, $0.label(field), $0.number(min), $0.number(max), $0.number(got)) }
        case .notEmail(let field, let value): .init(.invalid, "invalid", field: field) { $0.format(.errNotEmail, value) }
        case .notCoverURL(let field): .init(.invalid, "invalid", field: field) { $0.format(.errNotCoverURL, $0.label(field)) }
        case .notANumber(let field): .init(.invalid, "invalid", field: field) { $0.format(.errNotANumber, $0.label(field)) }
        case .notADate(let field, let value): .init(.invalid, "invalid", field: field) { $0.format(.errNotADate, value) }
        case .notHost(let field, let value): .init(.invalid, "invalid", field: field) { $0.format(.errNotHost, value) }
        case .invisibleCharacter(let field): .init(.invalid, "invalid", field: field) { $0.format(.errInvisibleCharacter, $0.label(field)) }
        }
    }
}
