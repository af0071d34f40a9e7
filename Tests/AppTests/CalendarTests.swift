@testable import App
import Fluent
import Foundation
import Testing
import Vapor

/// A member's due dates in their phone's calendar, by a secret link that can be stopped:
/// one all-day event per open loan on its due day; a renewal moves it and raises its SEQUENCE; a
/// return removes it; the staff's feed has every loan; a stopped link is a 404.
@Suite struct CalendarTests {
    @Test func aMembersFeedFollowsTheirLoansAndStopsWhenStopped() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.patch(f.lib, ["timeZone": "Asia/Shanghai"]).status == .ok)
            let momo = try await f.addTitle("Momo; or, the grey men", copies: 2)
            let wolke = try await f.addTitle("Die Wolke", copies: 1)
            let wang = try await f.addMember("S001", "小明", "王")
            try await f.addMember("S002", "Seán", "Ó Briain")
            let first = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": momo])
            let second = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": wolke])
            _ = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S002", "titleId": momo])
            let link = try await f.owner.post("\(f.lib)/members/\(wang)/calendar")
            #expect(link.status == .created, "\(link.json)")
            let url = link.string("url")
            #expect(url.hasSuffix(".ics") && link.string("webcalUrl").hasPrefix("webcal://"))
            let path = String(url[url.range(of: "/api/v1/public/calendar/")!.lowerBound...])
            let anonymous = Client(app: app)
            var feed = try await Self.text(anonymous, path)
            #expect(feed.status == .ok && feed.type.hasPrefix("text/calendar"))
            var events = Self.events(feed.body)
            #expect(events.count == 2, "\(feed.body)")
            let momoEvent = try #require(events["loan-\(first.string("id").lowercased())@shelfmark"])
            #expect(momoEvent["SUMMARY"] == "Due back: Momo\\; or\\, the grey men")
            #expect(momoEvent["SEQUENCE"] == "0")
            // The due day in the library's zone (Shanghai), as an all-day date.
            let due = try #require(ISO8601DateFormatter().date(from: first.string("dueAt")))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "Asia/Shanghai")!
            let day = calendar.dateComponents([.year, .month, .day], from: due)
            #expect(momoEvent["DTSTART;VALUE=DATE"] == String(format: "%04d%02d%02d", day.year!, day.month!, day.day!))
            #expect(!feed.body.contains("Ó Briain"), "another member's loan is not in this feed")
            // CRLF lines of at most 75 octets, no bare line feed or carriage return.
            let lines = feed.body.components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { $0.utf8.count <= 75 && !$0.unicodeScalars.contains("\n") && !$0.unicodeScalars.contains("\r") })

            // A renewal moves the event and raises its SEQUENCE; a return removes it.
            let renewed = try await f.owner.post("\(f.lib)/loans/\(first.string("id"))/renew")
            #expect(renewed.status == .ok)
            _ = try await f.owner.post("\(f.lib)/returns", ["copyBarcode": second.string("copyBarcode")])
            feed = try await Self.text(anonymous, path)
            events = Self.events(feed.body)
            #expect(events.count == 1)
            let moved = try #require(events["loan-\(first.string("id").lowercased())@shelfmark"])
            #expect(moved["SEQUENCE"] == "1" && moved["DTSTART;VALUE=DATE"] != momoEvent["DTSTART;VALUE=DATE"])

            // The staff's feed has every open loan with who has it.
            let staff = try await f.owner.post("\(f.lib)/calendar")
            let staffPath = String(staff.string("url")[staff.string("url").range(of: "/api/v1/")!.lowerBound...])
            let staffFeed = try await Self.text(anonymous, staffPath)
            #expect(Self.events(staffFeed.body).count == 2 && staffFeed.body.contains("Seán Ó Briain (S002)"))

            // A new link stops the old; stopping stops it; a viewer cannot make one; a made-up token is a 404.
            let again = try await f.owner.post("\(f.lib)/members/\(wang)/calendar")
            #expect(try await Self.text(anonymous, path).status == .notFound)
            let againPath = String(again.string("url")[again.string("url").range(of: "/api/v1/")!.lowerBound...])
            #expect(try await Self.text(anonymous, againPath).status == .ok)
            #expect(try await f.owner.send(.DELETE, "\(f.lib)/members/\(wang)/calendar").status == .noContent)
            #expect(try await Self.text(anonymous, againPath).status == .notFound)
            let viewer = try await f.staff("vera", role: "viewer")
            #expect(try await viewer.post("\(f.lib)/members/\(wang)/calendar").status == .forbidden)
            #expect(try await Self.text(anonymous, "/api/v1/public/calendar/" + String(repeating: "a", count: 43) + ".ics").status == .notFound)
            #expect(try await Self.text(anonymous, "/api/v1/public/calendar/%3Cscript%3E").status == .notFound)
        }
    }

    static func text(_ client: Client, _ path: String) async throws -> (status: HTTPStatus, type: String, body: String) {
        let response = try await client.app.testing().sendRequest(.GET, path)
        return (response.status, response.headers.first(name: .contentType) ?? "", String(buffer: response.body))
    }

    /// Each VEVENT's properties by name (after unfolding), keyed by UID.
    static func events(_ feed: String) -> [String: [String: String]] {
        let unfolded = feed.replacingOccurrences(of: "\r\n ", with: "")
        var events: [String: [String: String]] = [:]
        var current: [String: String]?
        for line in unfolded.components(separatedBy: "\r\n") {
            if line == "BEGIN:VEVENT" { current = [:]; continue }
            if line == "END:VEVENT", let event = current { events[event["UID"] ?? ""] = event; current = nil; continue }
            guard current != nil, let colon = line.firstIndex(of: ":") else { continue }
            current?[String(line[..<colon])] = String(line[line.index(after: colon)...])
        }
        return events
    }
}
