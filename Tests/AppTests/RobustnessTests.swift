@testable import App
import Fluent
import Foundation
import SQLKit
import Testing
import Vapor

/// Issue 14, robustness under faults.
@Suite struct RobustnessTests {
    /// Two instances starting at once on an empty PostgreSQL: both migrate (one waits for the other's
    /// lock) and both come up. Runs when the suite runs on PostgreSQL.
    @Test func instancesStartingTogetherOnAnEmptyPostgreSQLBothComeUp() async throws {
        guard let url = ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"], !url.isEmpty else { return }
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var apps: [Application] = []
        for _ in 0..<3 {
            let app = try await Application.make(.testing)
            try configure(app, storage: .postgres(url: url, schema: schema))
            apps.append(app)
        }
        try await apps[0].db.sql.raw("CREATE SCHEMA \(ident: schema)").run()
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for app in apps { group.addTask { try await app.migrateHoldingLock() } }
                try await group.waitForAll()
            }
            let reply = try await Client(app: apps[1]).post("/api/v1/setup", ["username": "owner", "password": "correct horse"])
            #expect(reply.status == .created)
            let count = try await apps[2].db.sql.raw("SELECT COUNT(*) AS n FROM users").first()?.decode(column: "n", as: Int.self)
            #expect(count == 1)
        } catch {
            Issue.record("a concurrent start failed: \(describe(error))")
        }
        try? await apps[0].db.sql.raw("DROP SCHEMA \(ident: schema) CASCADE").run()
        for app in apps { try await app.asyncShutdown() }
    }
}
