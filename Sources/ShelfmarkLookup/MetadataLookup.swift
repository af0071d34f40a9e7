import Foundation
import ShelfmarkCore

/// What one provider did for one question.
public struct ProviderOutcome: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        case found
        case notFound = "not_found"
        case failed
        case timedOut = "timed_out"
    }

    public var provider: ProviderID
    public var status: Status
    public var message: String?
    public var milliseconds: Int

    public init(provider: ProviderID, status: Status, message: String? = nil, milliseconds: Int) {
        self.provider = provider
        self.status = status
        self.message = message
        self.milliseconds = milliseconds
    }
}

/// The answer to "what is this ISBN?": the merged record (or none) and what each provider did.
public struct LookupResult: Codable, Sendable, Equatable {
    public var isbn13: String
    public var record: BookRecord?
    public var outcomes: [ProviderOutcome]

    public init(isbn13: String, record: BookRecord?, outcomes: [ProviderOutcome]) {
        self.isbn13 = isbn13
        self.record = record
        self.outcomes = outcomes
    }

    /// A definite "no such book": every provider answered, none knew it. Only this is worth
    /// caching as a negative; a failure or a timeout says nothing about the book.
    public var isDefinitelyNotFound: Bool {
        record == nil && outcomes.allSatisfy { $0.status == .notFound }
    }
}

public struct SearchResult: Codable, Sendable, Equatable {
    public var candidates: [BookRecord]
    public var outcomes: [ProviderOutcome]
}

/// Asks every provider at once, waits at most `timeout`, and merges field by field in provider
/// order. Never throws for provider trouble: a provider that fails or is late is reported in the
/// outcomes and the others' answer stands.
public struct MetadataLookup: Sendable {
    public var providers: [any MetadataProvider]
    public var timeout: Duration

    public init(providers: [any MetadataProvider], timeout: Duration = .seconds(10)) {
        self.providers = providers
        self.timeout = timeout
    }

    public func lookup(_ isbn: ISBN) async -> LookupResult {
        let answers = await ask { try await $0.lookup(isbn: isbn) }
        let found = answers.compactMap { answer in answer.value.flatMap { $0 }.map { (answer.provider, $0) } }
        var record = BookRecord.merge(found)
        if record != nil {
            record?.isbn13 = isbn.isbn13
            record?.isbn10 = isbn.isbn10
        }
        let outcomes = answers.map { answer -> ProviderOutcome in
            var outcome = answer.outcome
            if outcome.status == .found, answer.value.flatMap({ $0 }) == nil { outcome.status = .notFound }
            return outcome
        }
        return LookupResult(isbn13: isbn.isbn13, record: record, outcomes: outcomes)
    }

    public func search(_ query: SearchQuery) async -> SearchResult {
        let answers = await ask { try await $0.search(query) }
        var outcomes = answers.map(\.outcome)
        for i in outcomes.indices where outcomes[i].status == .found && (answers[i].value ?? []).isEmpty {
            outcomes[i].status = .notFound
        }
        let lists = answers.map { ($0.provider, $0.value ?? []) }
        return SearchResult(candidates: Self.rank(lists, query: query), outcomes: outcomes)
    }

    /// Candidates from all providers, the same ISBN merged into one, best first: the share of the
    /// query's words found in title and authors, then agreement between providers, then
    /// completeness (ISBN, cover); ties keep provider order.
    static func rank(_ lists: [(ProviderID, [BookRecord])], query: SearchQuery) -> [BookRecord] {
        struct Entry { var parts: [(ProviderID, BookRecord)]; var order: Int }
        var entries: [Entry] = []
        var byKey: [String: Int] = [:]
        // The same book: the same ISBN, or the same title and first author (providers list
        // different editions' ISBNs for one work).
        func keys(_ r: BookRecord) -> [String] {
            var k: [String] = []
            if let isbn = r.isbn13 { k.append("isbn:" + isbn) }
            if let title = r.title {
                k.append("work:" + SearchText.fold(title) + "|" + SearchText.fold(r.authors?.first ?? ""))
            }
            return k
        }
        var order = 0
        // Interleave providers so that each one's best comes early in the tie-break order.
        let longest = lists.map(\.1.count).max() ?? 0
        for position in 0..<longest {
            for (provider, list) in lists where position < list.count {
                let record = list[position]
                let recordKeys = keys(record)
                if let index = recordKeys.lazy.compactMap({ byKey[$0] }).first,
                   !entries[index].parts.contains(where: { $0.0 == provider }) {
                    entries[index].parts.append((provider, record))
                    for key in recordKeys where byKey[key] == nil { byKey[key] = index }
                } else {
                    for key in recordKeys where byKey[key] == nil { byKey[key] = entries.count }
                    entries.append(Entry(parts: [(provider, record)], order: order))
                }
                order += 1
            }
        }
        let words = Set(query.words)
        func score(_ r: BookRecord, providers: Int) -> Double {
            let have = Set(SearchText.tokens([r.title ?? "", r.subtitle ?? "", (r.authors ?? []).joined(separator: " ")].joined(separator: " ")))
            let matched = words.isEmpty ? 0 : Double(words.filter { w in have.contains(w) || have.contains { $0.hasPrefix(w) } }.count) / Double(words.count)
            return matched * 10 + Double(providers - 1) * 0.5 + (r.isbn13 != nil ? 0.3 : 0) + (r.coverURL != nil ? 0.2 : 0)
        }
        let scored = entries.compactMap { entry -> (BookRecord, Double, Int)? in
            // Order parts by provider priority before merging.
            let parts = entry.parts.sorted { a, b in
                (lists.firstIndex { $0.0 == a.0 } ?? 0) < (lists.firstIndex { $0.0 == b.0 } ?? 0)
            }
            guard let merged = BookRecord.merge(parts) else { return nil }
            return (merged, score(merged, providers: parts.count), entry.order)
        }
        return scored.sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.2 < b.2 }.prefix(max(1, query.limit)).map(\.0)
    }

    struct Answer<T: Sendable>: Sendable {
        var provider: ProviderID
        var value: T?
        var outcome: ProviderOutcome
    }

    /// Runs `work` on every provider concurrently; returns in provider order once all have answered
    /// or the timeout has passed, whichever comes first. A late provider's request is cancelled and
    /// not waited for, so a provider that ignores cancellation cannot hold the answer up.
    func ask<T: Sendable>(_ work: @escaping @Sendable (any MetadataProvider) async throws -> T) async -> [Answer<T>] {
        let start = ContinuousClock.now
        let timeout = self.timeout
        let (stream, continuation) = AsyncStream<(Int, Answer<T>?)>.makeStream()
        var tasks: [Task<Void, Never>] = []
        for (index, provider) in providers.enumerated() {
            tasks.append(Task {
                let answer = await Self.run(provider, work)
                continuation.yield((index, answer))
            })
        }
        tasks.append(Task {
            try? await Task.sleep(for: timeout)
            continuation.yield((-1, nil))
        })
        var collected: [Int: Answer<T>] = [:]
        for await (index, answer) in stream {
            if index == -1 { break }
            if let answer { collected[index] = answer }
            if collected.count == providers.count { break }
        }
        for task in tasks { task.cancel() }
        continuation.finish()
        return providers.enumerated().map { index, provider in
            collected[index] ?? Answer(provider: provider.id, value: nil,
                                       outcome: ProviderOutcome(provider: provider.id, status: .timedOut,
                                                                message: "\(provider.id.displayName) did not answer within \(timeout)",
                                                                milliseconds: start.millisecondsSince))
        }
    }

    private static func run<T: Sendable>(_ provider: any MetadataProvider, _ work: @Sendable (any MetadataProvider) async throws -> T) async -> Answer<T>? {
        let began = ContinuousClock.now
        func outcome(_ status: ProviderOutcome.Status, _ message: String? = nil) -> ProviderOutcome {
            ProviderOutcome(provider: provider.id, status: status, message: message, milliseconds: began.millisecondsSince)
        }
        do {
            let value = try await work(provider)
            return Answer(provider: provider.id, value: value, outcome: outcome(.found))
        } catch let failure as ProviderFailure {
            return Answer(provider: provider.id, value: nil,
                          outcome: outcome(failure == .timedOut ? .timedOut : .failed, "\(provider.id.displayName) \(failure)"))
        } catch {
            if Task.isCancelled { return nil }
            return Answer(provider: provider.id, value: nil, outcome: outcome(.failed, "\(provider.id.displayName) failed: \(error)"))
        }
    }
}

extension ContinuousClock.Instant {
    var millisecondsSince: Int {
        let d = ContinuousClock.now - self
        return Int(d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000)
    }
}

extension ProviderEndpoints {
    /// The providers in `order` (first wins a field): by default Google Books, then Open Library.
    public func providers(http: HTTPFetcher, order: [ProviderID] = ProviderID.defaultOrder) -> [any MetadataProvider] {
        var seen = Set<ProviderID>()
        return order.filter { seen.insert($0).inserted }.compactMap { id -> (any MetadataProvider)? in
            switch id {
            case .googleBooks: GoogleBooksProvider(baseURL: googleBooks, http: http)
            case .openLibrary: OpenLibraryProvider(baseURL: openLibrary, coversURL: openLibraryCovers, http: http)
            case .dnb, .libraryOfCongress, .k10plus: sru[id].map { SRUProvider(id: id, baseURL: $0, http: http) }
            }
        }
    }
}
