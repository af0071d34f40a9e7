import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import Vapor

extension Request {
    func created<T: Content>(_ value: T) async throws -> Response {
        let response = Response(status: .created)
        try response.content.encode(value)
        return response
    }

    /// A multipart form body; one that cannot be read is the client's mistake (400), not a server error.
    func multipart<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try content.decode(type)
        } catch let error as DecodingError {
            throw error
        } catch {
            throw RequestError.unreadableForm
        }
    }

    /// An optional id in the query (`?titleId=…`): nil when absent or empty, 400 when not an id.
    func uuidQuery(_ name: String) throws -> UUID? {
        guard let raw = query[String.self, at: name], !raw.isEmpty else { return nil }
        guard let id = UUID(uuidString: raw) else {
            throw RequestError.notAnID(field: name, got: raw)
        }
        return id
    }

    /// An uploaded file's bytes: the multipart field `file`, else the raw body (empty when neither).
    func uploadedBytes() throws -> Data {
        if headers.contentType?.type == "multipart" {
            return try multipart(ExchangeController.Upload.self).file.map { Data(buffer: $0.data) } ?? Data()
        }
        return body.data.map { Data(buffer: $0) } ?? Data()
    }

    func uuid(_ name: String) throws -> UUID {
        guard let id = parameters.get(name, as: UUID.self) else {
            throw RequestError.noSuchPath(field: name)
        }
        return id
    }

    func flag(_ name: String, default absent: Bool = false) throws -> Bool {
        guard let raw = query[String.self, at: name] else { return absent }
        switch raw.lowercased() {
        case "true", "1", "yes", "": return true
        case "false", "0", "no": return false
        default: throw RequestError.notTrueOrFalse(field: name, got: raw)
        }
    }

    /// A destructive request's `confirm`: exactly `true` (not `1`, `yes` or an empty value), so that a
    /// link or a fuzzer cannot confirm by accident.
    var confirmed: Bool { query[String.self, at: "confirm"] == "true" }

    /// The paper a PDF is printed on (`paper=a4|letter`, default A4), refused by name otherwise.
    func paperQuery() throws -> SheetLayout.Paper {
        guard let raw = query[String.self, at: "paper"], !raw.isEmpty else { return .a4 }
        guard let paper = SheetLayout.Paper(rawValue: raw) else {
            throw RequestError.oneOf(field: "paper", allowed: SheetLayout.Paper.allCases.map(\.rawValue), got: raw)
        }
        return paper
    }

    func intQuery(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let raw = query[String.self, at: name] else { return value }
        guard let n = Int(raw), range.contains(n) else {
            throw RequestError.wholeNumber(field: name, range: range, got: raw)
        }
        return n
    }

    var paging: (limit: Int, offset: Int) {
        get throws { (try intQuery("limit", default: 50, range: 1...500), try intQuery("offset", default: 0, range: 0...10_000_000)) }
    }
}

struct Empty: Content {}

extension RouteDoc.Param {
    static let limit = RouteDoc.Param(name: "limit", kind: .integer, description: "Page size, 1–500 (default 50).",
                                      schema: ["minimum": 1, "maximum": 500])
    static let offset = RouteDoc.Param(name: "offset", kind: .integer, description: "Rows to skip (default 0).",
                                       schema: ["minimum": 0, "maximum": 10_000_000])

    /// A query parameter that takes one of `values`.
    static func oneOf(_ name: String, _ values: [String], _ description: String) -> RouteDoc.Param {
        RouteDoc.Param(name: name, description: description, schema: ["enum": .array(values.map(JSONValue.string))])
    }
}
