import AsyncHTTPClient
import Foundation
import ShelfmarkCore
@testable import ShelfmarkLookup
import ShelfmarkReplay
import Testing

/// Runs `body` with a replay server and a lookup pointed at it.
/// The default timeout is generous: while the whole suite starts on two cores a first request can take many
/// seconds (no test here waits for it to run out); the timeout tests set their own.
private func withReplay(timeout: Duration = .seconds(30), _ body: (ReplayServer, MetadataLookup) async throws -> Void) async throws {
    let server = try await ReplayServer.start()
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let lookup = MetadataLookup(providers: ProviderEndpoints.replay(server.baseURL).providers(http: HTTPFetcher(client: client)), timeout: timeout)
    do {
        try await body(server, lookup)
    } catch {
        try? await client.shutdown()
        await server.shutdown()
        throw error
    }
    try await client.shutdown()
    await server.shutdown()
}

private let signals = try! ISBN("9780306406157")

@Suite struct RecordTests {
    @Test func htmlDescriptionsBecomeParagraphsOfPlainText() {
        #expect(HTMLText.plain("<b>Bold</b> start.<br><br>Next &amp; last&nbsp;line &#8212; &quot;done&quot;") ==
                "Bold start.\n\nNext & last line — \"done\"")
        #expect(HTMLText.plain("<p>One</p><p>Two</p>") == "One\n\nTwo")
        #expect(HTMLText.plain("Fish & chips &unknown; 3 < 4") == "Fish & chips &unknown; 3 < 4")
        #expect(HTMLText.plain("plain text") == "plain text")
    }

    @Test func mergeTakesEachFieldFromTheFirstProviderThatHasIt() throws {
        let google = BookRecord(title: "Signals and Shelves", authors: ["Maren Okafor"], publisher: "  ", pageCount: 312, description: "From Google")
        let openLibrary = BookRecord(title: "Signals and shelves", authors: ["Someone Else"], publisher: "Plenum Press", pageCount: 310,
                                     coverURL: "https://covers.example/1.jpg", links: ["open_library": "https://openlibrary.org/books/OL1M"])
        let merged = try #require(BookRecord.merge([(.googleBooks, google), (.openLibrary, openLibrary)]))
        #expect(merged.title == "Signals and Shelves")
        #expect(merged.authors == ["Maren Okafor"])
        #expect(merged.publisher == "Plenum Press")  // a blank value does not count as having it
        #expect(merged.pageCount == 312)
        #expect(merged.coverURL == "https://covers.example/1.jpg")
        #expect(merged.fieldSources?["publisher"] == "open_library")
        #expect(merged.fieldSources?["title"] == "google_books")
        #expect(merged.links?["open_library"] == "https://openlibrary.org/books/OL1M")
        // A record without a title is no answer at all.
        #expect(BookRecord.merge([(.googleBooks, BookRecord(publisher: "X"))]) == nil)
    }

    @Test func googleAnswersAreTakenOnlyWhenTheyAreThisBook() throws {
        func volume(_ id: String, _ ids: [(String, String)]) throws -> GoogleBooksProvider.Volume {
            let identifiers = ids.map { #"{"type": "\#($0.0)", "identifier": "\#($0.1)"}"# }.joined(separator: ",")
            let json = #"{"id": "\#(id)", "volumeInfo": {"title": "T", "industryIdentifiers": [\#(identifiers)]}}"#
            return try JSONDecoder().decode(GoogleBooksProvider.Volume.self, from: Data(json.utf8))
        }
        let isbn = try ISBN("9780316452502")
        func pick(_ items: [GoogleBooksProvider.Volume]) -> String? { GoogleBooksProvider.pick(items, for: isbn)?.id }
        // Listed ISBN matches: taken, even when another volume comes first.
        #expect(pick([try volume("other", [("ISBN_13", "9780306406157")]), try volume("a", [("ISBN_13", "9780316452502")])]) == "a")
        // The ISBN-10 form matches too.
        #expect(pick([try volume("b", [("ISBN_10", "0316452505")])]) == "b")
        // The only answer, with no ISBN at all (Google's `OTHER` ids): taken.
        #expect(pick([try volume("c", [("OTHER", "UOM:39015004307750")])]) == "c")
        // A different book's ISBN: never taken.
        #expect(pick([try volume("d", [("ISBN_13", "9780306406157")])]) == nil)
        // Several answers, none with the ISBN: none taken.
        #expect(pick([try volume("e", [("OTHER", "x")]), try volume("f", [("OTHER", "y")])]) == nil)
    }

    @Test func googleCoversAreTheLargestOverHTTPS() {
        #expect(GoogleBooksProvider.cover(["thumbnail": "http://books.google.com/books/content?id=X&img=1&zoom=1&edge=curl&source=gbs_api",
                                           "smallThumbnail": "http://books.google.com/s"])
                == "https://books.google.com/books/content?id=X&img=1&zoom=1&source=gbs_api")
        #expect(GoogleBooksProvider.cover(["small": "http://127.0.0.1:8/s.png", "large": "http://127.0.0.1:8/l.png"]) == "http://127.0.0.1:8/l.png")
        #expect(GoogleBooksProvider.cover([:]) == nil)
    }
}

@Suite struct ProviderTests {
    @Test func bothProvidersAreAskedAndMergedFieldByField() async throws {
        try await withReplay { server, lookup in
            let result = await lookup.lookup(signals)
            let r = try #require(result.record)
            #expect(r.title == "Signals and Shelves")
            #expect(r.subtitle == "A Field Guide to Small Libraries")
            #expect(r.authors == ["Maren Okafor", "Tomás Ruiz"])
            #expect(r.publisher == "Plenum Press")            // only Open Library has it
            #expect(r.pageCount == 312)                        // Google first
            #expect(r.publishedDate == "2019-04-02")
            #expect(r.language == "en")
            #expect(r.coverURL == server.baseURL + "/covers/b/id/9000001-L.jpg")
            #expect(r.description?.hasPrefix("Everything a volunteer needs") == true)
            #expect(r.description?.contains("<") == false)
            #expect(r.description?.contains("checklists & templates") == true)
            #expect(r.isbn13 == "9780306406157")
            #expect(r.isbn10 == "0306406152")
            #expect(r.categories == ["Language Arts & Disciplines / Library & Information Science"])
            #expect(r.links?["google_books"]?.contains("sHeLfMaRk01AAJ") == true)
            #expect(r.links?["open_library"] == "https://openlibrary.org/books/OL90000001M/Signals_and_shelves")
            #expect(result.outcomes.map(\.status) == [.found, .found])
            #expect(await server.requests(.google) == 1)
            #expect(await server.requests(.openlibrary) == 1)
        }
    }

    @Test func aBookOnlyOneProviderKnowsComesFromThatProvider() async throws {
        try await withReplay { _, lookup in
            let weapons = await lookup.lookup(try ISBN("978-0-316-03057-1"))
            #expect(weapons.record?.title == "Use of Weapons")
            #expect(weapons.record?.authors == ["Iain M. Banks"])
            #expect(weapons.outcomes.map(\.status) == [.notFound, .found])
            let children = await lookup.lookup(try ISBN("0316452505"))
            #expect(children.record?.title == "Children of Time")
            #expect(children.record?.coverURL?.hasSuffix("/covers/google/49T5twEACAAJ.png") == true)
            #expect(children.outcomes.map(\.status) == [.found, .notFound])
        }
    }

    @Test func anUnknownISBNIsADefiniteNotFound() async throws {
        try await withReplay { _, lookup in
            let result = await lookup.lookup(try ISBN("9781111111113"))
            #expect(result.record == nil)
            #expect(result.isDefinitelyNotFound)
        }
    }

    @Test(arguments: [ReplayServer.Fault.notFound, .rateLimited, .unavailable, .malformedJSON])
    func aFailingProviderLeavesTheOtherOnesAnswer(fault: ReplayServer.Fault) async throws {
        try await withReplay { server, lookup in
            await server.set(.google, .init(fault: fault))
            let result = await lookup.lookup(signals)
            let r = try #require(result.record)
            #expect(r.title == "Signals and shelves")       // Open Library's spelling now
            #expect(r.publisher == "Plenum Press")
            #expect(r.fieldSources?["title"] == "open_library")
            let google = result.outcomes[0]
            #expect(google.provider == .googleBooks)
            // A 404 from the volumes endpoint is "no such book"; the rest are failures with a reason.
            #expect(google.status == (fault == .notFound ? .notFound : .failed))
            switch fault {
            case .rateLimited: #expect(google.message?.contains("429") == true)
            case .unavailable: #expect(google.message?.contains("503") == true)
            case .malformedJSON: #expect(google.message?.contains("could not be read") == true)
            default: break
            }
            #expect(!result.isDefinitelyNotFound || fault == .notFound)
        }
    }

    @Test func bothProvidersDownIsASoftNotFoundThatIsNotDefinite() async throws {
        try await withReplay { server, lookup in
            await server.set(.google, .init(fault: .unavailable))
            await server.set(.openlibrary, .init(fault: .malformedJSON))
            let result = await lookup.lookup(signals)
            #expect(result.record == nil)
            #expect(result.outcomes.map(\.status) == [.failed, .failed])
            #expect(!result.isDefinitelyNotFound)  // so it is not cached as "no such book"
        }
    }

    @Test(arguments: [ReplayServer.Fault.hang, .slowBody])
    func aSlowProviderDoesNotHoldTheAnswerBeyondTheTimeout(fault: ReplayServer.Fault) async throws {
        // The timeout leaves the healthy provider time to answer while the whole suite starts at once
        // on two cores (at 4 s it once timed out too, in a fresh-clone run); the stalled one would hold
        // the lookup for 60 s, so ending within 40 s is the timeout at work, however slow the machine.
        try await withReplay(timeout: .seconds(15)) { server, lookup in
            await server.set(.google, .init(fault: fault, stallSeconds: 60))
            let started = ContinuousClock.now
            let result = await lookup.lookup(signals)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(40), "a stalled provider held the lookup for \(elapsed)")
            #expect(result.record?.publisher == "Plenum Press", "\(result.outcomes) after \(elapsed)")
            #expect(result.outcomes[0].status == .timedOut)
            #expect(result.outcomes[1].status == .found, "\(result.outcomes) after \(elapsed)")
        }
    }

    @Test func unreachableProvidersFailSoftly() async throws {
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        // Port 9 on loopback: nothing listens, the connection is refused.
        let lookup = MetadataLookup(providers: ProviderEndpoints.replay("http://127.0.0.1:9").providers(http: HTTPFetcher(client: client)),
                                    timeout: .seconds(3))
        let result = await lookup.lookup(signals)
        #expect(result.record == nil)
        #expect(result.outcomes.allSatisfy { $0.status == .failed || $0.status == .timedOut })
        try await client.shutdown()
    }

    @Test func searchRanksCandidatesAndMergesTheSameBookFromBothProviders() async throws {
        try await withReplay { _, lookup in
            let result = await lookup.search(SearchQuery(text: "children of time"))
            let first = try #require(result.candidates.first)
            #expect(first.title == "Children of Time")
            #expect(first.isbn13 == "9780316452502")
            // Both providers had it: merged into one candidate, with Open Library's extra fields.
            #expect(result.candidates.filter { $0.isbn13 == "9780316452502" }.count == 1)
            #expect(first.links?["open_library"] != nil && first.links?["google_books"] != nil)
            #expect(result.candidates.contains { $0.title == "Children of Ruin" } == false)  // "time" does not match

            let byAuthor = await lookup.search(SearchQuery(text: "", title: "time war", author: "gladstone"))
            #expect(byAuthor.candidates.first?.title == "This Is How You Lose the Time War")

            let none = await lookup.search(SearchQuery(text: "zzzz qqqq"))
            #expect(none.candidates.isEmpty)
            #expect(none.outcomes.allSatisfy { $0.status == .notFound })
        }
    }
}
