import Foundation
import ShelfmarkCore

/// Derives a JSON Schema from a `Decodable` type by decoding it once with placeholder values and
/// recording what it asks for. The OpenAPI document's schemas thus come from the very types the
/// handlers decode and encode, and cannot drift from them.
enum SchemaDerivation {
    static func schema<T: Decodable>(of type: T.Type) -> JSONValue {
        let node = Node()
        _ = try? placeholder(type, node: node)
        return node.json
    }

    /// The keys a keyed type decodes, in the order it asks for them.
    static func keys<T: Decodable>(of type: T.Type) -> [String] {
        let node = Node()
        _ = try? placeholder(type, node: node)
        return node.properties.map(\.0)
    }

    final class Node {
        enum Kind { case unknown, string(format: String?), integer, number, boolean, enumeration([String]), array, object }
        var kind: Kind = .unknown
        var properties: [(String, Node)] = []
        var optional: Set<String> = []
        var element: Node?
        /// Keywords the type declares for this node (`SchemaConstrained`): lengths, ranges, patterns.
        var extra: [(String, JSONValue)] = []

        var json: JSONValue {
            guard !extra.isEmpty, case .object(var pairs) = baseJSON else { return baseJSON }
            for (key, value) in extra {
                if let i = pairs.firstIndex(where: { $0.0 == key }) { pairs[i].1 = value } else { pairs.append((key, value)) }
            }
            return .object(pairs)
        }

        private var baseJSON: JSONValue {
            switch kind {
            case .unknown: return [:]
            case .string(let format):
                return format.map { ["type": "string", "format": .string($0)] } ?? ["type": "string"]
            case .integer: return ["type": "integer"]
            case .number: return ["type": "number"]
            case .boolean: return ["type": "boolean"]
            case .enumeration(let cases): return ["type": "string", "enum": .array(cases.map(JSONValue.string))]
            case .array: return ["type": "array", "items": element?.json ?? [:]]
            case .object:
                if properties.isEmpty { return ["type": "object", "additionalProperties": ["type": "string"]] }
                let required = properties.map(\.0).filter { !optional.contains($0) }
                var pairs: [(String, JSONValue)] = [("type", "object"), ("properties", .object(properties.map { ($0.0, $0.1.json) }))]
                if !required.isEmpty { pairs.append(("required", .array(required.map(JSONValue.string)))) }
                return .object(pairs)
            }
        }
    }

    static func placeholder<T: Decodable>(_ type: T.Type, node: Node) throws -> T {
        switch type {
        case is String.Type: node.kind = .string(format: nil); return "" as! T
        case is Bool.Type: node.kind = .boolean; return false as! T
        case is Int.Type: node.kind = .integer; return 0 as! T
        case is Double.Type: node.kind = .number; return 0.0 as! T
        case is Date.Type: node.kind = .string(format: "date-time"); return Date() as! T
        case is UUID.Type: node.kind = .string(format: "uuid"); return UUID() as! T
        default:
            if let e = type as? any SchemaEnum.Type {
                node.kind = .enumeration(e.schemaCases)
                return e.placeholderValue as! T
            }
            let value = try T(from: RecordingDecoder(node: node))
            if let constrained = type as? any SchemaConstrained.Type {
                for (property, keywords) in constrained.schemaConstraints {
                    guard case .object(let pairs) = keywords else { continue }
                    if property == "." {
                        node.extra += pairs
                    } else if let child = node.properties.first(where: { $0.0 == property })?.1 {
                        child.extra += pairs
                    }
                }
            }
            return value
        }
    }

    struct RecordingDecoder: Decoder {
        let node: Node
        var codingPath: [any CodingKey] { [] }
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            node.kind = .object
            return KeyedDecodingContainer(Keyed<Key>(node: node))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            node.kind = .array
            let element = Node()
            node.element = element
            return Unkeyed(element: element)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(node: node) }
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let node: Node
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }

        func contains(_ key: Key) -> Bool { true }

        /// Only `decodeIfPresent` asks this before decoding: the key is optional.
        func decodeNil(forKey key: Key) throws -> Bool {
            node.optional.insert(key.stringValue)
            return false
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let child = Node()
            node.properties.append((key.stringValue, child))
            return try placeholder(type, node: child)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as any Decodable.Type, key) as! Bool }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as any Decodable.Type, key) as! String }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as any Decodable.Type, key) as! Double }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { 0 }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as any Decodable.Type, key) as! Int }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { 0 }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { 0 }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { 0 }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { 0 }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { 0 }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { 0 }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { 0 }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { 0 }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { 0 }

        private func decode(_ type: any Decodable.Type, _ key: Key) throws -> Any {
            func open<T: Decodable>(_ t: T.Type) throws -> Any { try decode(t, forKey: key) }
            return try open(type)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            let child = Node()
            child.kind = .object
            node.properties.append((key.stringValue, child))
            return KeyedDecodingContainer(Keyed<NestedKey>(node: child))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let child = Node()
            child.kind = .array
            child.element = Node()
            node.properties.append((key.stringValue, child))
            return Unkeyed(element: child.element!)
        }

        func superDecoder() throws -> any Decoder { RecordingDecoder(node: node) }
        func superDecoder(forKey key: Key) throws -> any Decoder { RecordingDecoder(node: node) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let element: Node
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 1 }
        var currentIndex = 0
        var isAtEnd: Bool { currentIndex >= 1 }

        init(element: Node) { self.element = element }

        mutating func decodeNil() throws -> Bool { false }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            currentIndex += 1
            return try placeholder(type, node: element)
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool { currentIndex += 1; return try placeholder(type, node: element) }
        mutating func decode(_ type: String.Type) throws -> String { currentIndex += 1; return try placeholder(type, node: element) }
        mutating func decode(_ type: Double.Type) throws -> Double { currentIndex += 1; return try placeholder(type, node: element) }
        mutating func decode(_ type: Float.Type) throws -> Float { currentIndex += 1; return 0 }
        mutating func decode(_ type: Int.Type) throws -> Int { currentIndex += 1; return try placeholder(type, node: element) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { currentIndex += 1; return 0 }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { currentIndex += 1; return 0 }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { currentIndex += 1; return 0 }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { currentIndex += 1; return 0 }
        mutating func decode(_ type: UInt.Type) throws -> UInt { currentIndex += 1; return 0 }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { currentIndex += 1; return 0 }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { currentIndex += 1; return 0 }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { currentIndex += 1; return 0 }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { currentIndex += 1; return 0 }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            currentIndex += 1
            element.kind = .object
            return KeyedDecodingContainer(Keyed<NestedKey>(node: element))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            currentIndex += 1
            element.kind = .array
            element.element = Node()
            return Unkeyed(element: element.element!)
        }

        mutating func superDecoder() throws -> any Decoder { RecordingDecoder(node: element) }
    }

    struct Single: SingleValueDecodingContainer {
        let node: Node
        var codingPath: [any CodingKey] { [] }

        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try placeholder(type, node: node) }
        func decode(_ type: Bool.Type) throws -> Bool { try placeholder(type, node: node) }
        func decode(_ type: String.Type) throws -> String { try placeholder(type, node: node) }
        func decode(_ type: Double.Type) throws -> Double { try placeholder(type, node: node) }
        func decode(_ type: Float.Type) throws -> Float { node.kind = .number; return 0 }
        func decode(_ type: Int.Type) throws -> Int { try placeholder(type, node: node) }
        func decode(_ type: Int8.Type) throws -> Int8 { node.kind = .integer; return 0 }
        func decode(_ type: Int16.Type) throws -> Int16 { node.kind = .integer; return 0 }
        func decode(_ type: Int32.Type) throws -> Int32 { node.kind = .integer; return 0 }
        func decode(_ type: Int64.Type) throws -> Int64 { node.kind = .integer; return 0 }
        func decode(_ type: UInt.Type) throws -> UInt { node.kind = .integer; return 0 }
        func decode(_ type: UInt8.Type) throws -> UInt8 { node.kind = .integer; return 0 }
        func decode(_ type: UInt16.Type) throws -> UInt16 { node.kind = .integer; return 0 }
        func decode(_ type: UInt32.Type) throws -> UInt32 { node.kind = .integer; return 0 }
        func decode(_ type: UInt64.Type) throws -> UInt64 { node.kind = .integer; return 0 }
    }
}

/// String enums name their cases in the schema.
protocol SchemaEnum {
    static var schemaCases: [String] { get }
    static var placeholderValue: Any { get }
}

extension SchemaEnum where Self: CaseIterable & RawRepresentable, RawValue == String {
    static var schemaCases: [String] { allCases.map(\.rawValue) }
    static var placeholderValue: Any { allCases.first! }
}

extension CopyStatus: SchemaEnum {}
extension ReadingLevel.Scheme: SchemaEnum {}
extension Role: SchemaEnum {}
extension ActivityType: SchemaEnum {}
