@testable import App
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// A reader's life — reads, progress by page and by voice, privacy, members' logs, goals
/// and statistics, on the API and on the pages.
@Suite struct ReadingTests {
    enum ISO { static func string(from d: Date) -> String { d.formatted(.iso8601) } }
    static let iso = ISO.self

    /// Progress by page, percentage, "+N" and spoken phrase; the status follows; the last page
    /// finishes the read; reading it again is a re-read; an event sent twice counts once; a late
    /// event falls into place by its moment.
    @Test func progressMovesTheReadAndItsStatus() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], extra: ["pageCount": 320])
            let progress = "\(f.lib)/titles/\(titleID)/progress"

            let spoken = try await f.owner.post(progress, ["phrase": "page one hundred and fifty-seven"])
            #expect(spoken.status == .created, "\(spoken.json)")
            #expect(spoken.string("status") == "reading" && spoken["page"] as? Int == 157 && spoken["percent"] as? Int == 49)
            let readID = spoken.string("id")

            let german = try await f.owner.post(progress, ["phrase": "Seite hundertsiebzig", "language": "de"])
            #expect(german["page"] as? Int == 170 && german.string("id") == readID)
            let more = try await f.owner.post(progress, ["pagesRead": 10])
            #expect(more["page"] as? Int == 180)
            let percent = try await f.owner.post(progress, ["percent": 75])
            #expect(percent["page"] as? Int == 240 && percent["percent"] as? Int == 75)

            // Refusals say what was wrong and where.
            let beyond = try await f.owner.post(progress, ["page": 400])
            #expect(beyond.status == .unprocessableEntity && beyond.errorCode == "page_beyond_end" && beyond.errorField == "page")
            var german422 = HTTPHeaders(); german422.add(name: .acceptLanguage, value: "de")
            let unheard = try await f.owner.send(.POST, progress, ["phrase": "ich weiß nicht"], headers: german422)
            #expect(unheard.status == .unprocessableEntity && unheard.errorCode == "no_page_heard")
            #expect(unheard.errorMessage?.contains("Seitenzahl") == true, "\(unheard.errorMessage ?? "")")
            let two = try await f.owner.post(progress, ["page": 10, "percent": 5])
            #expect(two.status == .unprocessableEntity)
            let future = try await f.owner.post(progress, ["page": 10, "at": Self.iso.string(from: Date().addingTimeInterval(5 * 86_400))])
            #expect(future.status == .unprocessableEntity && future.errorField == "at")

            // The same event twice (an offline client retrying) is recorded once.
            let eventID = UUID().uuidString
            _ = try await f.owner.post("\(f.lib)/reads/\(readID)/progress", ["id": eventID, "page": 250])
            _ = try await f.owner.post("\(f.lib)/reads/\(readID)/progress", ["id": eventID, "page": 250])
            // A late event from yesterday does not move the position back.
            let late = try await f.owner.post("\(f.lib)/reads/\(readID)/progress",
                                              ["page": 20, "at": Self.iso.string(from: Date().addingTimeInterval(-86_400))])
            #expect(late["page"] as? Int == 250, "\(late.json)")
            let detail = try await f.owner.get("\(f.lib)/reads/\(readID)")
            let events = detail["events"] as? [[String: Any]] ?? []
            #expect(events.count == 6, "\(events.count)")
            #expect(events.first?["value"] as? Int == 20)   // oldest first

            // The last page finishes it.
            let done = try await f.owner.post(progress, ["page": 320])
            #expect(done.string("status") == "finished" && done.string("finishedAt") != "" && done["percent"] as? Int == 100)
            // Progress on a finished book is a re-read: a new read.
            let again = try await f.owner.post(progress, ["page": 12])
            #expect(again.string("id") != readID && again.string("status") == "reading")
            let reads = try await f.owner.get("\(f.lib)/reads?titleId=\(titleID)").array
            #expect(reads.count == 2)

            // Status by hand; a label alone.
            let stopped = try await f.owner.patch("\(f.lib)/reads/\(again.string("id"))", ["status": "did_not_finish"])
            #expect(stopped.string("status") == "did_not_finish" && stopped.string("finishedAt") != "")
            let label = try await f.owner.post("\(f.lib)/reads/\(again.string("id"))/progress", ["label": "ix"])
            #expect(label.string("pageLabel") == "ix" && label.string("status") == "reading")
            #expect(try await f.owner.patch("\(f.lib)/reads/\(readID)", ["status": "sleeping"]).status == .unprocessableEntity)

            // What a phrase says, without recording it.
            let heard = try await f.owner.post("\(f.lib)/reading/spoken", ["phrase": "第一百五十七页", "language": "zh"])
            #expect(heard["page"] as? Int == 157)
        }
    }

    /// Reading is private: another account (even the owner) does not see it; a viewer keeps their
    /// own; a member's log needs a role that lends; a member's log is kept apart from the user's.
    @Test func readersRatingsAreAveragedIntoTheTitlesRatingWithTheirNumber() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let title = try await f.addTitle("Krabat")
            #expect(try await f.owner.patch("\(f.lib)/titles/\(title)", ["rating": 4]).status == .ok)
            var detail = try await f.owner.get("\(f.lib)/titles/\(title)")
            #expect(detail["ratingAverage"] as? Double == 4 && detail["ratingCount"] as? Int == 0, "the library's own rating alone")
            for (card, rating) in [("S1", 5), ("S2", 3), ("S3", 0)] {
                let member = try await f.addMember(card, "Reader \(card)")
                var body: [String: Any] = ["titleId": title, "memberId": member, "status": "finished"]
                if rating > 0 { body["rating"] = rating }
                #expect(try await f.owner.post("\(f.lib)/reads", body).status == .created)
            }
            // A reader's rating of 2 for another library's copy of the book does not count here.
            let other = try await f.owner.post("/api/v1/libraries", ["name": "Elsewhere"])
            let otherLib = "/api/v1/libraries/\(other.string("id"))"
            let otherTitle = try await f.owner.post("\(otherLib)/titles", ["title": "Krabat", "copies": 1])
            #expect(try await f.owner.post("\(otherLib)/reads", ["titleId": otherTitle.string("id"), "status": "finished", "rating": 2]).status == .created)
            detail = try await f.owner.get("\(f.lib)/titles/\(title)")
            #expect(detail["ratingAverage"] as? Double == 4 && detail["ratingCount"] as? Int == 2, "(4 + 5 + 3) / 3, two readers: \(detail.json)")
            #expect(detail["rating"] as? Double == 4, "the library's own rating stays as it was set")
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            #expect(try await browser.get("/libraries/\(f.libraryID)/titles/\(title)").html.contains("readers' ratings: 2"))
        }
    }

    @Test func readingIsPrivateAndMembersLogsNeedStaff() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Krabat", authors: ["Otfried Preußler"], extra: ["pageCount": 200])
            let viewer = try await f.staff("vera", role: "viewer")
            let mine = try await viewer.post("\(f.lib)/titles/\(titleID)/progress", ["page": 30])
            #expect(mine.status == .created)
            let readID = mine.string("id")
            #expect(try await f.owner.get("\(f.lib)/reads/\(readID)").status == .notFound)
            #expect(try await f.owner.get("\(f.lib)/reads").array.isEmpty)
            #expect(try await f.owner.delete("\(f.lib)/reads/\(readID)").status == .notFound)
            #expect(try await viewer.get("\(f.lib)/reads").array.count == 1)

            let memberID = try await f.addMember("S001", "Mia")
            let denied = try await viewer.post("\(f.lib)/reads", ["titleId": titleID, "memberId": memberID, "status": "finished"])
            #expect(denied.status == .forbidden)
            let volunteer = try await f.staff("val", role: "volunteer")
            let logged = try await volunteer.post("\(f.lib)/reads", ["titleId": titleID, "memberId": memberID, "status": "finished"])
            #expect(logged.status == .created && logged.string("memberId") == memberID && logged.string("finishedAt") != "")
            #expect(try await f.owner.get("\(f.lib)/reads?memberId=\(memberID)").array.count == 1)
            #expect(try await volunteer.get("\(f.lib)/reads").array.isEmpty)
            #expect(try await viewer.get("\(f.lib)/reads?memberId=\(memberID)").status == .forbidden)
            // Another library's member is not found.
            #expect(try await f.owner.get("\(f.lib)/reads?memberId=\(UUID().uuidString)").status == .notFound)
            // Deleting the member deletes their log.
            #expect(try await f.owner.delete("\(f.lib)/members/\(memberID)").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/reads/\(logged.string("id"))?memberId=\(memberID)").status == .notFound)
        }
    }

    /// Books and pages per month, streaks, the goal's pace, ratings, top authors, longest and
    /// shortest book, each current read's pace.
    @Test func statisticsAndTheYearsGoal() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .current
            let now = clock.now
            let year = calendar.component(.year, from: now)
            let month = calendar.component(.month, from: now)
            let long = try await f.addTitle("Long", authors: ["Ann"], extra: ["pageCount": 500])
            let short = try await f.addTitle("Short", authors: ["Ann"], extra: ["pageCount": 100])
            let mid = try await f.addTitle("Mid", authors: ["Bob"], extra: ["pageCount": 300])
            let current = try await f.addTitle("Current", authors: ["Cy"], extra: ["pageCount": 400])
            // Two days of reading "Current": 40 pages a day.
            for (days, page) in [(2.0, 20), (1.0, 60), (0.0, 100)] {
                let r = try await f.owner.post("\(f.lib)/titles/\(current)/progress",
                                               ["page": page, "at": Self.iso.string(from: now.addingTimeInterval(-days * 86_400))])
                #expect(r.status == .created, "\(r.json)")
            }
            for (id, rating) in [(long, 5.0), (short, 2.0), (mid, 4.5)] {
                let r = try await f.owner.post("\(f.lib)/reads", ["titleId": id, "status": "finished", "rating": rating])
                #expect(r.status == .created, "\(r.json)")
            }
            let goal = try await f.owner.send(.PUT, "\(f.lib)/reading/goal", ["year": year, "books": 24, "pages": 6000])
            #expect(goal.status == .ok, "\(goal.json)")

            let stats = try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")
            #expect(stats.status == .ok)
            #expect(stats["books"] as? Int == 3)
            // 500 + 100 + 300 finished, and "Current" from page 0 to 100.
            #expect(stats["pages"] as? Int == 1_000, "\(stats["pages"] ?? "")")
            let months = stats["months"] as? [[String: Any]] ?? []
            #expect(months[month - 1]["books"] as? Int == 3)
            #expect(stats["currentStreak"] as? Int == 3)
            let goalJSON = stats["goal"] as? [String: Any] ?? [:]
            let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1))!
            let end = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1))!
            let expected = Int((24 * now.timeIntervalSince(start) / end.timeIntervalSince(start)).rounded(.down))
            #expect(goalJSON["booksAhead"] as? Int == 3 - expected)
            #expect((stats["ratings"] as? [Int]) == [0, 1, 0, 0, 2])   // 2 → 2★, 4.5 and 5 → 5★
            let authors = stats["topAuthors"] as? [[String: Any]] ?? []
            #expect(authors.first?["name"] as? String == "Ann" && authors.first?["books"] as? Int == 2)
            #expect((stats["longest"] as? [String: Any])?["title"] as? String == "Long")
            #expect((stats["shortest"] as? [String: Any])?["title"] as? String == "Short")
            let reading = stats["current"] as? [[String: Any]] ?? []
            #expect(reading.first?["pagesPerDay"] as? Double == 40)
            #expect(reading.first?["projectedFinish"] as? String != nil)
            // The figures follow each change at once (they are kept only while the reads stay the same).
            _ = try await f.owner.post("\(f.lib)/titles/\(current)/progress", ["page": 150])
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["pages"] as? Int == 1_050)
            // A late event moves pages between days: the pages kept per day (`reading_days`) stay
            // what the events say, and so does the pages each read covers.
            let late = try await f.owner.post("\(f.lib)/titles/\(current)/progress",
                                              ["page": 130, "at": Self.iso.string(from: now.addingTimeInterval(-1.5 * 86_400))])
            #expect(late.status == .created, "\(late.json)")
            try await Self.expectDaysMatchEvents(app)
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["pages"] as? Int == 1_050)
            // Deleting the read takes its 150 pages away from its days.
            let currentRead = try #require(try await f.owner.get("\(f.lib)/reads?titleId=\(current)").array.first?["id"] as? String)
            #expect(try await f.owner.delete("\(f.lib)/reads/\(currentRead)").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["pages"] as? Int == 900)
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["currentStreak"] as? Int == 1)
            try await Self.expectDaysMatchEvents(app)
            let dropped = try #require(try await f.owner.get("\(f.lib)/reads?titleId=\(short)").array.first?["id"] as? String)
            #expect(try await f.owner.delete("\(f.lib)/reads/\(dropped)").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["books"] as? Int == 2)
            // Another year is empty but answers; a year out of range is refused.
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year - 3)")["books"] as? Int == 0)
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=99999").status == .badRequest)
            // Neither books nor pages removes the goal.
            _ = try await f.owner.send(.PUT, "\(f.lib)/reading/goal", ["year": year])
            #expect(try await f.owner.get("\(f.lib)/reading/stats?year=\(year)")["goal"] == nil)
        }
    }

    /// Progress events for one read arriving at once, some of them late (earlier than others already
    /// kept): the pages kept per day still equal the events' gains, and the read covers its last page.
    @Test func progressArrivingAtOnceKeepsTheDaysRight() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], extra: ["pageCount": 400])
            let now = clock.now
            let first = try await f.owner.post("\(f.lib)/titles/\(titleID)/progress", ["page": 10, "at": Self.iso.string(from: now.addingTimeInterval(-48 * 3_600))])
            #expect(first.status == .created)
            let owner = f.owner, lib = f.lib
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 1...12 {
                    // Pages rise with time; every other one is sent as if it had been said earlier.
                    let hoursAgo = Double(13 - i) * 3 + (i % 2 == 0 ? 0.5 : 0)
                    group.addTask {
                        let r = try await owner.post("\(lib)/titles/\(titleID)/progress",
                                                     ["page": 10 + i * 20, "at": Self.iso.string(from: now.addingTimeInterval(-hoursAgo * 3_600))])
                        #expect(r.status == .created, "\(r.json)")
                    }
                }
                try await group.waitForAll()
            }
            try await Self.expectDaysMatchEvents(app)
            let read = try #require(try await f.owner.get("\(f.lib)/reads?titleId=\(titleID)").array.first)
            #expect(read["page"] as? Int == 250)
        }
    }

    /// The first progress events for a title nobody is reading yet, sent at once, make one
    /// read (on PostgreSQL 40 at once made 28 reads; two reads in 29 of 30 trials of two), with every
    /// event on it.
    @Test func firstEventsAtOnceMakeOneRead() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], extra: ["pageCount": 400])
            let owner = f.owner, lib = f.lib
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Ten at once: more than the test app's pool has connections (each waits holding one).
                for i in 1...10 {
                    group.addTask {
                        let r = try await owner.post("\(lib)/titles/\(titleID)/progress", ["page": i * 10])
                        #expect(r.status == .created, "\(r.json)")
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await Read.query(on: app.db).count() == 1)
            #expect(try await ProgressEvent.query(on: app.db).count() == 10)
        }
    }

    /// The pages kept per reader and day, and per read, equal the sums of the events' gains.
    static func expectDaysMatchEvents(_ app: Application, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        struct Day: Decodable, Hashable { var day: Int; var pages: Int }
        let kept = try await app.db.sql.raw("SELECT day, CAST(SUM(pages) AS BIGINT) AS pages FROM reading_days GROUP BY day HAVING SUM(pages) <> 0 ORDER BY day")
            .all(decoding: Day.self)
        let summed = try await app.db.sql.raw("""
            SELECT day, CAST(SUM(gain) AS BIGINT) AS pages FROM progress_events GROUP BY day HAVING SUM(gain) <> 0 ORDER BY day
            """).all(decoding: Day.self)
        #expect(kept == summed, sourceLocation: sourceLocation)
        struct Covered: Decodable { var n: Int }
        let wrong = try await app.db.sql.raw("""
            SELECT COUNT(*) AS n FROM reads r WHERE r.covered <> COALESCE((SELECT SUM(e.gain) FROM progress_events e WHERE e.read_id = r.id), 0)
            """).first(decoding: Covered.self)
        #expect(wrong?.n == 0, sourceLocation: sourceLocation)
    }

}
