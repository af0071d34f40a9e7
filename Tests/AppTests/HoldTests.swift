@testable import App
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

/// Holds queue per title, set a returned copy aside for the first in line, refuse to
/// lend it to someone else without the librarian's word, expire when not collected, and the renewal
/// policy refuses with a reason the librarian and the member understand.
@Suite struct HoldTests {
    @Test func aQueueSetsAsideReturnedCopiesInOrderAndExpiresUncollectedOnes() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 1)
            for (card, name) in [("S001", "Ada"), ("S012", "Mia"), ("S020", "Ben"), ("S030", "Cem")] { try await f.addMember(card, name) }
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            #expect(loan.status == .created)
            // Mia, Ben and Cem wait, in that order; twice is refused, and so is the borrower's own hold.
            var holds: [String: String] = [:]
            for card in ["S012", "S020", "S030"] {
                let placed = try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": card])
                #expect(placed.status == .created, "\(placed.json)")
                #expect(placed.string("state") == "waiting")
                holds[card] = placed.string("id")
            }
            let twice = try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S012"])
            #expect(twice.status == .conflict && twice.errorCode == "hold_exists")
            let own = try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S001"])
            #expect(own.status == .conflict && own.errorCode == "hold_already_borrowing")
            var queue = try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array
            #expect(queue.compactMap { $0["cardId"] as? String } == ["S012", "S020", "S030"])
            #expect(queue.compactMap { $0["position"] as? Int } == [1, 2, 3])

            // Ada cannot renew: others wait and no other copy is on the shelf.
            let renewal = try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/renew")
            #expect(renewal.status == .conflict && renewal.errorCode == "renewal_waited_for", "\(renewal.json)")

            // Ben moves up; Mia is suspended (keeps her place, passed over).
            #expect(try await f.owner.patch("\(f.lib)/holds/\(holds["S020"]!)", ["move": "up"]).status == .ok)
            #expect(try await f.owner.patch("\(f.lib)/holds/\(holds["S012"]!)", ["suspended": true]).status == .ok)
            queue = try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array
            #expect(queue.compactMap { $0["cardId"] as? String } == ["S020", "S012", "S030"])

            // The copy comes back: put aside for Ben, with a pickup day.
            let back = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")])
            #expect(back.status == .ok)
            let heldFor = try #require(back["heldFor"] as? [String: Any], "\(back.json)")
            #expect(heldFor["cardId"] as? String == "S020")
            #expect(heldFor["pickupBy"] as? String != nil)

            // Cem cannot take it without the librarian's word; the preview says who it is for.
            let preview = try await f.owner.post("\(f.lib)/checkouts/preview", ["cardId": "S030", "titleId": momo])
            #expect(preview.status == .conflict && preview.errorCode == "held_for_other", "\(preview.json)")
            #expect((preview.json["error"] as? [String: Any]).flatMap { $0["details"] as? [String: Any] }?["cardId"] as? String == "S020")
            let cem = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S030", "titleId": momo])
            #expect(cem.status == .conflict && cem.errorCode == "held_for_other")

            // Ben does not collect it by the end of his pickup day: it passes to Cem (Mia is suspended).
            clock.advance(days: 8)
            for id in try await RecurringJobs.tick(app: app) { await app.jobRunner.wait(id) }
            let ben = try await f.owner.get("\(f.lib)/members/\(try await memberID(f, "S020"))/holds").array
            #expect(ben.isEmpty)
            queue = try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array
            #expect(queue.first { $0["cardId"] as? String == "S030" }?["state"] as? String == "ready", "\(queue)")
            let activity = try await f.owner.get("\(f.lib)/activity?type=hold_expired").array
            #expect(activity.count == 1, "\(activity)")

            // Cem collects: the preview says it is his, the lending fulfils the hold.
            let cemPreview = try await f.owner.post("\(f.lib)/checkouts/preview", ["cardId": "S030", "titleId": momo])
            #expect(cemPreview.status == .ok && cemPreview["collectsHold"] as? Bool == true && cemPreview["waiting"] as? Int == 0,
                    "\(cemPreview.json)")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S030", "titleId": momo]).status == .created)
            queue = try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array
            #expect(queue.compactMap { $0["cardId"] as? String } == ["S012"])
            // Mia resumes and cancels: nothing left waiting.
            #expect(try await f.owner.patch("\(f.lib)/holds/\(holds["S012"]!)", ["suspended": false]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/holds/\(holds["S012"]!)/cancel").string("state") == "cancelled")
            #expect(try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array.isEmpty)
            #expect(try await f.owner.post("\(f.lib)/holds/\(holds["S012"]!)/cancel").errorCode == "hold_ended")
        }
    }

    @Test func aHeldCopyLentToSomeoneElseWithTheLibrariansWordPutsTheHoldBackFirst() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S001", "Ada")
            try await f.addMember("S012", "Mia")
            // The copy is on the shelf: Mia's hold sets it aside at once.
            let hold = try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S012"])
            #expect(hold.string("state") == "ready", "\(hold.json)")
            let barcode = hold.string("copyBarcode")
            #expect(!barcode.isEmpty)
            // Scanning that copy for Ada is refused, then allowed with lendHeld; Mia is first in line again.
            let refused = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "copyBarcode": barcode])
            #expect(refused.errorCode == "held_for_other")
            let lent = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "copyBarcode": barcode, "lendHeld": true])
            #expect(lent.status == .created, "\(lent.json)")
            let queue = try await f.owner.get("\(f.lib)/titles/\(momo)/holds").array
            #expect(queue.count == 1 && queue.first?["state"] as? String == "waiting" && queue.first?["position"] as? Int == 1)
            // A viewer sees the queue but cannot place or cancel a hold.
            let viewer = try await f.staff("vera", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/titles/\(momo)/holds").status == .ok)
            #expect(try await viewer.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S001"]).status == .forbidden)
            #expect(try await viewer.post("\(f.lib)/holds/\(hold.string("id"))/cancel").status == .forbidden)
            // A hold of another library is not found.
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Other"])
            #expect(try await f.owner.post("/api/v1/libraries/\(other.string("id"))/holds/\(hold.string("id"))/cancel").status == .notFound)
        }
    }

    @Test func theRenewalPolicyRefusesWithItsReason() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["maxRenewals": 1, "renewalDays": 7, "renewWindowDays": 3]).status == .ok)
            let settings = try await f.owner.get(f.lib)
            #expect(settings["renewalDays"] as? Int == 7 && settings["renewWindowDays"] as? Int == 3)
            let momo = try await f.addTitle("Momo", copies: 1)
            try await f.addMember("S001", "Ada")
            let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo, "days": 14])
            let early = try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/renew")
            #expect(early.status == .conflict && early.errorCode == "renewal_too_early", "\(early.json)")
            clock.advance(days: 12)
            let renewed = try await f.owner.post("\(f.lib)/loans/\(loan.string("id"))/renew")
            #expect(renewed.status == .ok, "\(renewed.json)")
            let due = try #require(ISO8601DateFormatter().date(from: renewed.string("dueAt")))
            let before = try #require(ISO8601DateFormatter().date(from: loan.string("dueAt")))
            #expect(abs(due.timeIntervalSince(before) - 7 * 86_400) < 3_700, "a renewal adds 7 days: \(before) → \(due)")
            // Renew all: the one loan has reached the limit, said per loan.
            let all = try await f.owner.post("\(f.lib)/members/\(try await memberID(f, "S001"))/renew")
            #expect(all.status == .ok)
            let outcome = try #require(all.array.first)
            #expect((outcome["refusal"] as? [String: Any])?["code"] as? String == "renewal_limit", "\(all.json)")
            // Out-of-range settings are refused by field.
            let bad = try await f.owner.patch(f.lib, ["renewWindowDays": 400])
            #expect(bad.status == .unprocessableEntity || bad.status == .badRequest)
        }
    }

    private func memberID(_ f: Fixture, _ card: String) async throws -> String {
        let found = try await f.owner.get("\(f.lib)/members?q=\(card)").array
        return try #require(found.first { ($0["cardId"] as? String) == card }?["id"] as? String)
    }
}
