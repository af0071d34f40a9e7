@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// The API's description and its tokens.
extension SecurityTests {
    @Test func operationIdsAreUnique() async throws {
        try await withTestApp { app in
            let doc = try await Client(app: app).get("/api/v1/openapi.json").json
            let paths = try #require(doc["paths"] as? [String: [String: Any]])
            let ids = paths.values.flatMap { $0.values.compactMap { ($0 as? [String: Any])?["operationId"] as? String } }
            #expect(ids.count > 60)
            #expect(Set(ids).count == ids.count, "\(Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted())")
        }
    }

    @Test func apiTokensCanExpire() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let created = try await f.owner.post("/api/v1/tokens", ["name": "scanner", "expiresInDays": 1])
            #expect(created.status == .created)
            #expect(created["expiresAt"] != nil)
            let token = Client(app: app, token: created.string("token"))
            #expect(try await token.get("/api/v1/me").status == .ok)
            clock.advance(days: 2)
            #expect(try await token.get("/api/v1/me").status == .unauthorized)
            #expect(try await f.owner.post("/api/v1/tokens", ["name": "x", "expiresInDays": 0]).status == .unprocessableEntity)
        }
    }
}
