import Foundation
import Vapor

/// A web form read as one `Decodable` type: its coding keys name the fields, its optionals
/// say which may be left empty, and each field's bound is declared once, in `maxLength`. Text is
/// cleaned (`String.cleanedInput`) and an empty field is nil; a number, id or date that is not one is
/// refused next to its field (`InputProblem`), in the reader's language.
///
///     struct LendForm: WebForm { var card: String?; var days: Int?; … }
///     let form = try req.form(LendForm.self)
protocol WebForm: Decodable {
    /// The longest text each field takes (a field not named: `WebFormDefaults.maxLength`).
    static var maxLength: [String: Int] { get }
}

extension WebForm {
    static var maxLength: [String: Int] { [:] }
}

extension WebForm where Self: SchemaConstrained {
    /// A form whose fields are an API request's (`MemberInput`) takes the bounds the API declares for
    /// them (`OpenAPI/SchemaConstraints.swift`): one place for both.
    static var maxLength: [String: Int] { defaultBounds(schemaConstraints) }
}

extension WebForm {
    /// The `maxLength` of each field in `constraints` (a schema's fields).
    static func defaultBounds(_ constraints: [String: JSONValue]) -> [String: Int] {
        constraints.reduce(into: [:]) { bounds, pair in
            guard case .object(let rules) = pair.value, let rule = rules.first(where: { $0.0 == "maxLength" }),
                  case .number(let max) = rule.1 else { return }
            bounds[pair.key] = Int(max)
        }
    }
}

enum WebFormDefaults {
    static let maxLength = 2_000
}

extension Request {
    /// The form of this request as `Form`.
    func form<Form: WebForm>(_ type: Form.Type) throws -> Form {
        try Form(from: FormFieldDecoder(read: { [self] in formText($0) }, bounds: Form.maxLength))
    }
}

/// Decodes a flat form from its fields, read one by one by name.
struct FormFieldDecoder: Decoder {
    let read: (String) -> String?
    let bounds: [String: Int]
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Fields<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a form is flat"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a form is a set of fields"))
    }

    /// The field's text, checked against its bound; nil when empty.
    func text(_ name: String) throws -> String? {
        guard let value = read(name) else { return nil }
        let max = bounds[name] ?? WebFormDefaults.maxLength
        guard value.count <= max else { throw InputProblem.tooLong(field: name, max: max) }
        return value
    }

    struct Fields<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: FormFieldDecoder
        var codingPath: [any CodingKey] { decoder.codingPath }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { decoder.read(key.stringValue) != nil }
        func decodeNil(forKey key: Key) throws -> Bool { decoder.read(key.stringValue) == nil }

        func required(_ key: Key) throws -> String {
            guard let value = try decoder.text(key.stringValue) else { throw InputProblem.empty(field: key.stringValue) }
            return value
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String { try required(key) }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            guard let value = try decoder.text(key.stringValue) else { return false }
            return ["true", "on", "1", "yes"].contains(value.lowercased())
        }

        func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
            guard let value = Int(try required(key)) else { throw InputProblem.notANumber(field: key.stringValue) }
            return value
        }

        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            guard let value = Double(try required(key).replacingOccurrences(of: ",", with: ".")) else {
                throw InputProblem.notANumber(field: key.stringValue)
            }
            return value
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let raw = try required(key)
            switch type {
            case is UUID.Type:
                // An id comes from the page itself (a hidden field, a choice): one that is not an id is no choice.
                guard let id = UUID(uuidString: raw) else { throw InputProblem.empty(field: key.stringValue) }
                return id as! T
            case is Date.Type:
                guard let date = try? Date(raw, strategy: .iso8601.year().month().day()) else {
                    throw InputProblem.notADate(field: key.stringValue, value: raw)
                }
                return date as! T
            default:
                // A value among a set (a role, a status): the type's own decoding of the text, as JSON
                // would carry it; one that is not among them is no choice.
                let json = try JSONEncoder().encode(raw)
                guard let value = try? JSONDecoder().decode(T.self, from: json) else { throw InputProblem.empty(field: key.stringValue) }
                return value
            }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(type, .init(codingPath: codingPath, debugDescription: "a form is flat"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a form is flat"))
        }

        func superDecoder() throws -> any Decoder { decoder }
        func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
    }
}
