@testable import App
import Foundation
import Testing
import Vapor

/// The OpenAPI document describes exactly the routes the app serves.
@Suite struct OpenAPITests {
    @Test func documentListsEveryRegisteredAPIRouteAndNoOther() async throws {
        try await withTestApp { app in
            // setup
            let reply = try await Client(app: app).get("/api/v1/openapi.json")
            #expect(reply.status == .ok)
            let doc = reply.json
            #expect(doc["openapi"] as? String == "3.1.0")
            let paths = try #require(doc["paths"] as? [String: [String: Any]])
            var documented = Set<String>()
            for (path, operations) in paths {
                for method in operations.keys { documented.insert("\(method.uppercased()) \(path)") }
            }
            // MUT: what Vapor really routes under /api/v1
            let served = Set(app.routes.all.filter { $0.path.first == .constant("api") }.map {
                "\($0.method.rawValue) \(OpenAPIRegistry.openAPIPath($0.path))"
            })
            // validate
            #expect(served.count > 40)
            #expect(served.subtracting(documented).isEmpty, "served but undocumented: \(served.subtracting(documented).sorted())")
            #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
        }
    }

    @Test func schemasComeFromTheRealTypes() async throws {
        try await withTestApp { app in
            let doc = try await Client(app: app).get("/api/v1/openapi.json").json
            let schemas = try #require((doc["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
            let create = try #require(schemas["TitleCreate"])
            #expect(create["required"] == nil)  // a title, or an ISBN the providers know:
            #expect((create["anyOf"] as? [[String: Any]])?.compactMap { $0["required"] as? [String] } == [["title"], ["isbn"]])
            #expect(Set(schemas["MemberInput"]?["required"] as? [String] ?? []) == ["cardId", "firstName"])
            let lookup = try #require(schemas["ISBNLookupResponse"]?["properties"] as? [String: [String: Any]])
            #expect(lookup["record"] != nil && lookup["sources"]?["type"] as? String == "array")
            let props = try #require(create["properties"] as? [String: [String: Any]])
            #expect(props["authors"]?["type"] as? String == "array")
            #expect(props["copies"]?["type"] as? String == "integer")
            let copy = try #require((schemas["CopyDTO"]?["properties"] as? [String: [String: Any]])?["status"])
            #expect(copy["enum"] as? [String] == ["available", "on_loan", "lost", "damaged", "withdrawn"])
            let loan = try #require(schemas["LoanDTO"]?["properties"] as? [String: [String: Any]])
            #expect(loan["dueAt"]?["format"] as? String == "date-time")
            #expect(schemas["Error"] != nil)
        }
    }
}

@Suite struct ErrorShapeTests {
    @Test func everyErrorHasCodeMessageAndField() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var headers = HTTPHeaders()
            headers.bearerAuthorization = .init(token: f.owner.token!)
            headers.contentType = .json
            let malformed = try await app.testing().sendRequest(.POST, "\(f.lib)/members", headers: headers, body: ByteBuffer(string: "{\"cardId\": \"S1\",,"))
            #expect(malformed.status == .badRequest)
            let body = try JSONSerialization.jsonObject(with: Data(buffer: malformed.body)) as? [String: [String: Any]]
            #expect(body?["error"]?["code"] as? String == "bad_body")
            #expect((body?["error"]?["message"] as? String)?.contains("not valid JSON") == true)
            let wrongType = try await f.owner.post("\(f.lib)/members", ["cardId": 5, "firstName": "A"])
            #expect(wrongType.status == .badRequest)
            #expect(wrongType.errorField == "cardId")
            #expect(wrongType.errorMessage == "The field “cardId” must be a text.")
            #expect((wrongType["error"] as? [String: Any])?["details"] as? [String: String] == ["expected": "string"])
            // The same refusals in the request's language.
            let german = try await f.owner.send(.POST, "\(f.lib)/members", ["firstName": "A"], headers: ["Accept-Language": "de"])
            #expect(german.errorCode == "missing_field" && german.errorMessage == "Das Feld „cardId“ fehlt, es ist erforderlich.")
            let chinese = try await f.owner.send(.POST, "\(f.lib)/members", ["cardId": 5, "firstName": "A"], headers: ["Accept-Language": "zh-CN"])
            #expect(chinese.errorMessage == "字段“cardId”必须是文本。")
            let unknownRoute = try await f.owner.get("/api/v1/nothing-here")
            #expect(unknownRoute.status == .notFound)
            #expect(unknownRoute.errorCode == "not_found")
            let badID = try await f.owner.get("\(f.lib)/titles/not-a-uuid")
            #expect(badID.status == .notFound)
            #expect(badID.errorMessage != nil)
        }
    }
}
