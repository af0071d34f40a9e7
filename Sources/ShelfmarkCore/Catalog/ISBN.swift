import Foundation

/// An ISBN, held as its 13 digits. Accepts ISBN-10 (check digit X allowed), a 9-digit SBN (an
/// ISBN-10 without its leading 0) and ISBN-13 with the separators people type; anything else is
/// rejected with the reason.
public struct ISBN: Hashable, Sendable, CustomStringConvertible {
    public let isbn13: String

    public enum Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        case empty
        case badCharacters
        case wrongLength(Int)
        case badChecksum
        case notABookEAN

        public var description: String {
            switch self {
            case .empty: "no ISBN given"
            case .badCharacters: "an ISBN holds only digits, hyphens, spaces and a final X"
            case .wrongLength(let n): "an ISBN has 10 or 13 digits (plus a 2- or 5-digit add-on), this has \(n)"
            case .badChecksum: "the check digit does not match: a digit is mistyped"
            case .notABookEAN: "a 13-digit ISBN starts with 978 or 979"
            }
        }
    }

    public init(_ input: String) throws(Invalid) {
        // The common case first: thirteen plain digits, as stored and as most files carry them.
        let utf8 = input.utf8
        if utf8.count == 13, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let digits = utf8.map { $0 - 0x30 }
            guard digits.starts(with: [9, 7, 8]) || digits.starts(with: [9, 7, 9]) else { throw .notABookEAN }
            guard ISBN.check13(Array(digits[0..<12])) == digits[12] else { throw .badChecksum }
            isbn13 = input
            return
        }
        var text = input.trimmed.uppercased()
        for prefix in ["ISBN-13:", "ISBN-10:", "ISBN13:", "ISBN10:", "ISBN:", "ISBN"] where text.hasPrefix(prefix) {
            text = String(text.dropFirst(prefix.count))
            break
        }
        var digits: [UInt8] = []
        for ch in text {
            if let d = ch.wholeNumberValue, ch.isASCII { digits.append(UInt8(d)) }
            else if ch == "X" { digits.append(10) }
            else if ch == "-" || ch == " " { continue }
            else { throw .badCharacters }
        }
        if digits.isEmpty { throw .empty }
        if let x = digits.firstIndex(of: 10), x != digits.count - 1 || !(9...10).contains(digits.count) { throw .badCharacters }
        // A 9-digit SBN (Standard Book Number, books before 1974) is the ISBN-10 with a leading 0.
        if digits.count == 9 { digits.insert(0, at: 0) }
        switch digits.count {
        case 10:
            let sum = digits.enumerated().reduce(0) { $0 + (10 - $1.offset) * Int($1.element) }
            guard sum % 11 == 0 else { throw .badChecksum }
            let body = [9, 7, 8] + digits[0..<9]
            isbn13 = (body + [ISBN.check13(Array(body))]).map(String.init).joined()
        case 13, 15, 18:
            // 15 and 18 digits: an EAN-13 followed by its 2- or 5-digit add-on (issue or price), which is dropped.
            guard digits.starts(with: [9, 7, 8]) || digits.starts(with: [9, 7, 9]) else {
                throw digits.count == 13 ? .notABookEAN : .wrongLength(digits.count)
            }
            guard ISBN.check13(Array(digits[0..<12])) == digits[12] else { throw .badChecksum }
            isbn13 = digits[0..<13].map(String.init).joined()
        default:
            throw .wrongLength(digits.count)
        }
    }

    /// The ISBN whose first twelve digits these are, with its check digit computed.
    public init(completingFirst12 twelve: String) throws(Invalid) {
        let digits = twelve.compactMap { $0.isASCII ? $0.wholeNumberValue.map(UInt8.init) : nil }
        guard digits.count == 12, twelve.count == 12 else { throw .wrongLength(twelve.count + 1) }
        try self.init(twelve + String(ISBN.check13(digits)))
    }

    /// The ISBN-10 form, which exists only for the 978 prefix.
    public var isbn10: String? {
        guard isbn13.hasPrefix("978") else { return nil }
        let body = isbn13.dropFirst(3).prefix(9).compactMap(\.wholeNumberValue)
        let sum = body.enumerated().reduce(0) { $0 + (10 - $1.offset) * $1.element }
        let check = (11 - sum % 11) % 11
        return body.map(String.init).joined() + (check == 10 ? "X" : String(check))
    }

    public var description: String { isbn13 }

    /// The check digit of an EAN-13 (an ISBN-13's is the same) from its first twelve digits.
    public static func check13(_ twelve: [UInt8]) -> UInt8 {
        let sum = twelve.enumerated().reduce(0) { $0 + Int($1.element) * ($1.offset % 2 == 0 ? 1 : 3) }
        return UInt8((10 - sum % 10) % 10)
    }
}
