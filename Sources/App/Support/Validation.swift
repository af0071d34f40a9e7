import Foundation
import ShelfmarkCore

/// Input cleaning shared by every write: trimmed text, empty meaning absent, bounded lengths.
enum Check {
    static func required(_ value: String?, field: String, max: Int = 500) throws -> String {
        guard let text = try optional(value, field: field, max: max) else {
            throw InputProblem.empty(field: field)
        }
        return text
    }

    static func optional(_ value: String?, field: String, max: Int = 10_000) throws -> String? {
        guard let text = value?.cleanedInput, !text.isEmpty else { return nil }
        guard text.utf8.count <= max || text.count <= max else {
            throw InputProblem.tooLong(field: field, max: max)
        }
        return text
    }

    static func range(_ value: Int?, _ range: ClosedRange<Int>, field: String) throws -> Int? {
        guard let value else { return nil }
        guard range.contains(value) else {
            throw InputProblem.outOfRange(field: field, min: range.lowerBound, max: range.upperBound, got: value)
        }
        return value
    }

    /// A cover URL: a stored cover (`/api/v1/covers/…`) or an http(s) address; `javascript:` and
    /// other schemes are refused at input (they would end up in `src`/`href`).
    static func coverURL(_ value: String?, field: String) throws -> String? {
        do {
            return try CoverURL.validate(value)
        } catch .tooLong {
            throw InputProblem.tooLong(field: field, max: CoverURL.maxLength)
        } catch {
            throw InputProblem.notCoverURL(field: field)
        }
    }

    static func authors(_ values: [String]?) throws -> [String] {
        guard (values?.count ?? 0) <= 50 else { throw CatalogError.tooManyAuthors(max: 50) }
        return try (values ?? []).enumerated().compactMap { try optional($1, field: "authors.\($0)", max: 300) }
    }

    /// A card number (no spaces) or a barcode (`spaces`: plain spaces allowed): `Identifier`, the one check
    /// every door uses, with its refusal said for `field`.
    static func identifier(_ value: String?, field: String, spaces: Bool) throws -> String {
        do {
            return try Identifier.parse(value ?? "", spaces: spaces)
        } catch .empty {
            throw InputProblem.empty(field: field)
        } catch .tooLong {
            throw InputProblem.tooLong(field: field, max: Identifier.maxLength)
        } catch .spaces {
            throw MemberError.cardHasSpaces(String((value ?? "").trimmingCharacters(in: .whitespaces).prefix(64)))
        } catch {
            throw InputProblem.invisibleCharacter(field: field)
        }
    }

    /// An email address (`EmailAddress`: the one parser every door uses), nil when blank.
    static func email(_ value: String?, field: String = "email") throws -> String? {
        guard let text = try optional(value, field: field, max: EmailAddress.maxLength + 66) else { return nil }
        guard let address = EmailAddress(parsing: text) else {
            throw InputProblem.notEmail(field: field, value: String(text.unicodeScalars.filter { !$0.properties.isWhitespace || $0 == " " }.prefix(200).map(Character.init)))
        }
        return address.text
    }
}
