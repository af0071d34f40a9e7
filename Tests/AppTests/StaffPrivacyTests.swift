@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

@Suite struct StaffPrivacyTests {
    @Test func addingStaffDoesNotTellWhichUsernamesExist() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await Accounts.createUser(username: "alice", password: "alice-password", displayName: nil,
                                                      passwords: app.passwordHashing, gate: app.writeGate, on: app.db)
            // An existing account without its password, and a new one without a password: the same answer.
            let existing = try await f.owner.post("\(f.lib)/staff", ["username": "alice", "role": "viewer"])
            let unknown = try await f.owner.post("\(f.lib)/staff", ["username": "nobody", "role": "viewer"])
            #expect(existing.status == .unprocessableEntity)  // no password given
            #expect(existing.errorMessage == unknown.errorMessage)
            let wrong = try await f.owner.post("\(f.lib)/staff", ["username": "alice", "role": "viewer", "password": "not alices"])
            #expect(wrong.status == .conflict)
            #expect(try await Membership.query(on: app.db).count() == 1)
            // With the account's own password (its owner is there), it joins.
            #expect(try await f.owner.post("\(f.lib)/staff", ["username": "alice", "role": "viewer", "password": "alice-password"]).status == .created)
        }
    }

    @Test func viewersDoNotSeeMembersContactDetails() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let created = try await f.owner.post("\(f.lib)/members", ["cardId": "S1", "firstName": "Ada", "email": "ada@example.org", "notes": "allergy"])
            let id = created.string("id")
            let viewer = try await f.staff("vera", role: "viewer")
            let list = try await viewer.get("\(f.lib)/members").array
            #expect(list.first?["cardId"] as? String == "S1")
            #expect(list.first?["email"] == nil)
            let detail = try await viewer.get("\(f.lib)/members/\(id)")["member"] as? [String: Any]
            #expect(detail?["email"] == nil && detail?["notes"] == nil)
            #expect(try await viewer.get("\(f.lib)/export?format=json").status == .forbidden)
            let owner = try await f.owner.get("\(f.lib)/members/\(id)")["member"] as? [String: Any]
            #expect(owner?["email"] as? String == "ada@example.org")
        }
    }
}
