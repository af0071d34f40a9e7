import Foundation
import NIOConcurrencyHelpers
import Vapor

/// What the OpenAPI document says about one route. Routes are registered through `APIRoutes`,
/// which records this next to the real Vapor route; a test compares the two lists.
struct RouteDoc: Sendable {
    struct Param: Sendable {
        enum Kind: String, Sendable { case string, integer, number, boolean }
        var name: String
        var kind: Kind = .string
        var description: String
        var format: String? = nil
        var required = false
        /// More JSON Schema keywords (minimum, maximum, enum, minLength …): the bounds the handler enforces.
        var schema: JSONValue? = nil
    }

    var summary: String
    var tag: String
    var authenticated = true
    var query: [Param] = []
    var request: (any (Decodable & Sendable).Type)? = nil
    /// A route that takes a file as its body: the media types it reads (raw body or multipart `file`).
    var upload: [String]? = nil
    var uploadField = "file"
    var response: (any (Decodable & Sendable).Type)? = nil
    var responseIsArray = false
    var status: HTTPResponseStatus = .ok
}

final class OpenAPIRegistry: Sendable {
    struct Entry: Sendable {
        var method: HTTPMethod
        var path: [PathComponent]
        var doc: RouteDoc
    }

    private let entries = NIOLockedValueBox<[Entry]>([])

    func add(_ entry: Entry) { entries.withLockedValue { $0.append(entry) } }
    var all: [Entry] { entries.withLockedValue { $0 } }

    /// `/api/v1/libraries/{libraryID}` from Vapor path components.
    static func openAPIPath(_ components: [PathComponent]) -> String {
        "/" + components.map {
            switch $0 {
            case .constant(let s): s
            case .parameter(let p): "{\(p)}"
            case .anything: "*"
            case .catchall: "**"
            }
        }.joined(separator: "/")
    }

    func document(version: String) -> JSONValue {
        var paths: [(String, [(String, JSONValue)])] = []
        var schemas: [String: JSONValue] = ["Error": SchemaDerivation.schema(of: ErrorBody.self)]
        for entry in all {
            let path = Self.openAPIPath(entry.path)
            let operation = operationJSON(entry, schemas: &schemas)
            if let index = paths.firstIndex(where: { $0.0 == path }) {
                paths[index].1.append((entry.method.rawValue.lowercased(), operation))
            } else {
                paths.append((path, [(entry.method.rawValue.lowercased(), operation)]))
            }
        }
        return [
            "openapi": "3.1.0",
            "info": ["title": "Shelfmark API", "version": .string(version),
                     "description": "The REST API of Shelfmark, a self-hosted library system. Every route but health, setup, login and the public catalog needs a session or API token as `Authorization: Bearer …`. Errors always have the shape of the `Error` schema."],
            "servers": [["url": "/"]],
            "paths": .object(paths.sorted { $0.0 < $1.0 }.map { ($0.0, .object($0.1)) }),
            "components": [
                "schemas": .object(schemas.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }),
                "securitySchemes": [
                    "bearer": ["type": "http", "scheme": "bearer", "description": "A session token from /api/v1/auth/login or an API token from /api/v1/tokens."],
                    "cookie": ["type": "apiKey", "in": "cookie", "name": .string(Credential.cookieName)],
                ],
            ],
        ]
    }

    private func operationJSON(_ entry: Entry, schemas: inout [String: JSONValue]) -> JSONValue {
        let doc = entry.doc
        var op: [(String, JSONValue)] = [
            ("operationId", .string(operationID(entry))),
            ("summary", .string(doc.summary)),
            ("tags", [.string(doc.tag)]),
        ]
        var parameters: [JSONValue] = entry.path.compactMap { component -> JSONValue? in
            guard case .parameter(let name) = component else { return nil }
            return ["name": .string(name), "in": "path", "required": true, "schema": ["type": "string", "format": "uuid"]]
        }
        for param in doc.query {
            var schema: [(String, JSONValue)] = [("type", .string(param.kind.rawValue))]
            if let format = param.format { schema.append(("format", .string(format))) }
            if case .object(let more)? = param.schema { schema += more }
            parameters.append(["name": .string(param.name), "in": "query", "required": .bool(param.required),
                               "description": .string(param.description), "schema": .object(schema)])
        }
        if !parameters.isEmpty { op.append(("parameters", .array(parameters))) }
        if let request = doc.request {
            let name = String(describing: request)
            schemas[name] = SchemaDerivation.schema(of: request)
            op.append(("requestBody", ["required": true, "content": ["application/json": ["schema": ["$ref": .string("#/components/schemas/\(name)")]]]]))
        }
        if let types = doc.upload {
            let binary: JSONValue = ["schema": ["type": "string", "format": "binary"]]
            var content: [(String, JSONValue)] = types.map { ($0, binary) }
            content.append(("multipart/form-data", ["schema": ["type": "object", "properties": .object([(doc.uploadField, ["type": "string", "format": "binary"] as JSONValue)]),
                                                               "required": [.string(doc.uploadField)]]]))
            op.append(("requestBody", ["required": true, "content": .object(content)]))
        }
        var responses: [(String, JSONValue)] = []
        if let response = doc.response {
            let name = String(describing: response)
            schemas[name] = SchemaDerivation.schema(of: response)
            let ref: JSONValue = ["$ref": .string("#/components/schemas/\(name)")]
            let schema: JSONValue = doc.responseIsArray ? ["type": "array", "items": ref] : ref
            responses.append((String(doc.status.code), ["description": .string(doc.status.reasonPhrase), "content": ["application/json": ["schema": schema]]]))
        } else {
            responses.append((String(doc.status.code), ["description": .string(doc.status.reasonPhrase)]))
        }
        responses.append(("default", ["description": "An error: what was wrong and, for input, which field.",
                                      "content": ["application/json": ["schema": ["$ref": "#/components/schemas/Error"]]]]))
        op.append(("responses", .object(responses)))
        op.append(("security", doc.authenticated ? [["bearer": []], ["cookie": []]] : []))
        return .object(op)
    }

    private func operationID(_ entry: Entry) -> String {
        // Every path segment counts, parameters as "By<Name>", so `/libraries/restore` and
        // `/libraries/{libraryID}/restore` get different ids.
        let words = entry.path.compactMap { component -> String? in
            switch component {
            case .constant(let s) where s != "api" && s != "v1": return s.split(separator: ".").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
            case .parameter(let name): return "By" + name.prefix(1).uppercased() + name.dropFirst()
            default: return nil
            }
        }
        return entry.method.rawValue.lowercased() + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

extension Application {
    private struct RegistryKey: StorageKey { typealias Value = OpenAPIRegistry }

    var openAPI: OpenAPIRegistry {
        if let registry = storage[RegistryKey.self] { return registry }
        let registry = OpenAPIRegistry()
        storage[RegistryKey.self] = registry
        return registry
    }
}

/// Registers API routes and their documentation together.
struct APIRoutes {
    let builder: any RoutesBuilder
    let prefix: [PathComponent]
    let registry: OpenAPIRegistry

    func grouped(_ path: PathComponent...) -> APIRoutes {
        APIRoutes(builder: builder.grouped(path), prefix: prefix + path, registry: registry)
    }

    func grouped(_ middleware: any Middleware) -> APIRoutes {
        APIRoutes(builder: builder.grouped(middleware), prefix: prefix, registry: registry)
    }

    func on<R: AsyncResponseEncodable>(
        _ method: HTTPMethod, _ path: PathComponent..., doc: RouteDoc, body: HTTPBodyStreamStrategy = .collect,
        use handler: @escaping @Sendable (Request) async throws -> R
    ) {
        on(method, path, doc: doc, body: body, use: handler)
    }
}
