import Fluent
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Background completion of titles' metadata, as queued jobs of kind `enrich` in `jobs` (one per
/// title: `subject_id`), taken by `EnrichmentWorker`.
///
/// - A job is claimed with a lease by one conditional UPDATE (PostgreSQL: `FOR UPDATE SKIP LOCKED`,
///   so two app instances never take the same job; SQLite: the one in-process write queue).
/// - A crashed worker's job is due again when its lease ends; jobs survive restarts.
/// - A provider failure retries with exponential backoff (1 min, 2, 4 … capped at 6 h), silently.
/// - Only empty fields are filled, under a row lock, so what a user typed is never overwritten.
enum Enrichment {
    static let lease: TimeInterval = 120
    static let maxAttempts = 12

    enum State: String {
        case pending, running, done, failed
    }

    /// True when a title has an ISBN and something a provider could add: an empty field, or a
    /// cover that still lives on a provider's server.
    static func needed(_ t: Title) -> Bool {
        // A wish named by title and author only is matched to its book by a search.
        guard t.isbn13 != nil else { return t.wishlist && !t.title.isEmpty }
        let blank: (String?) -> Bool = { ($0 ?? "").trimmingCharacters(in: .whitespaces).isEmpty }
        return blank(t.summary) || blank(t.coverURL) || CoverStore.isRemote(t.coverURL) || blank(t.publisher)
            || blank(t.publishedDate) || t.pageCount == nil || blank(t.language) || t.authors.isEmpty
    }

    /// Schedules (or reschedules) the title's job to run now. Call inside the write's transaction.
    static func enqueue(titleID: UUID, libraryID: UUID, now: Date, on db: any Database) async throws {
        try await db.sql.raw("""
            INSERT INTO jobs (id, library_id, kind, state, subject_id, attempts, run_after, rows_read, titles_created, copies_added, created_at)
            VALUES (\(bind: UUID()), \(bind: libraryID), 'enrich', 'pending', \(bind: titleID), 0, \(bind: now), 0, 0, 0, \(bind: now))
            ON CONFLICT (kind, subject_id) WHERE subject_id IS NOT NULL DO UPDATE SET state = 'pending', attempts = 0,
              run_after = excluded.run_after, last_error = NULL, finished_at = NULL
            WHERE jobs.state <> 'running'
            """).run()
    }

    struct Claim: Decodable, Sendable {
        var id: UUID
        var title_id: UUID
        var library_id: UUID
        var attempts: Int
    }

    /// Takes one due job (pending and due, or running with an expired lease) for `owner`.
    static func claim(owner: String, now: Date, gate: WriteGate, on db: any Database) async throws -> Claim? {
        try await gate.transaction(on: db) { db in
            let lock = Dialect(db).skipLocked
            return try await db.sql.raw("""
                UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = \(bind: owner),
                  lease_until = \(bind: now.addingTimeInterval(lease))
                WHERE id = (
                  SELECT id FROM jobs
                  WHERE kind = 'enrich' AND ((state = 'pending' AND run_after <= \(bind: now)) OR (state = 'running' AND lease_until < \(bind: now)))
                  ORDER BY run_after LIMIT 1 \(lock))
                RETURNING id, subject_id AS title_id, library_id, attempts
                """).first(decoding: Claim.self)
        }
    }

    static func backoff(attempts: Int) -> TimeInterval {
        min(60 * pow(2, Double(max(0, attempts - 1))), 6 * 3600)
    }

    /// Finishes a claimed job: done, or back to pending with backoff (failed after `maxAttempts`).
    static func finish(_ job: Claim, owner: String, error: String?, now: Date, gate: WriteGate, on db: any Database) async throws {
        let state: State = error == nil ? .done : (job.attempts >= maxAttempts ? .failed : .pending)
        let runAfter = now.addingTimeInterval(error == nil ? 0 : backoff(attempts: job.attempts))
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                UPDATE jobs SET state = \(bind: state.rawValue), run_after = \(bind: runAfter), last_error = \(bind: error),
                  lease_owner = NULL, lease_until = NULL, finished_at = \(bind: state == .pending ? nil : now)
                WHERE id = \(bind: job.id) AND lease_owner = \(bind: owner)
                """).run()
        }
    }

    /// What one run did, for tests and the log.
    struct Outcome: Sendable, Equatable {
        var filled: [String]
        var coverStored: Bool
        var error: String?
    }

    /// Runs a claimed job: looks the ISBN up (cache first), stores the cover, fills empty fields.
    static func run(_ job: Claim, app: Application, now: @Sendable () -> Date) async throws -> Outcome {
        let db = app.db
        let gate = app.writeGate
        guard let title = try await Title.find(job.title_id, on: db) else { return Outcome(filled: [], coverStored: false, error: nil) }
        var raw = title.isbn13
        if raw == nil, title.wishlist {
            switch try await match(title, app: app, now: now) {
            case .success(let isbn): raw = isbn
            case .failure(let why): return Outcome(filled: [], coverStored: false, error: why.message)
            }
        }
        guard let raw, let isbn = try? ISBN(raw) else { return Outcome(filled: [], coverStored: false, error: nil) }
        let looked = try await LookupService.isbn(isbn, lookup: try await app.metadataLookup, now: now(), gate: gate, on: db)
        guard let record = looked.result.record else {
            if looked.result.isDefinitelyNotFound { return Outcome(filled: [], coverStored: false, error: nil) }
            let why = looked.result.outcomes.compactMap(\.message).joined(separator: "; ")
            return Outcome(filled: [], coverStored: false, error: why.isEmpty ? "no provider answered" : why)
        }
        // The cover: the title's own remote URL (to keep it offline), else the provider's.
        var cover: (remote: String?, local: String)?
        var coverError: String?
        let remote = CoverStore.isRemote(title.coverURL) ? title.coverURL : ((title.coverURL ?? "").isEmpty ? record.coverURL : nil)
        if let remote {
            do {
                // A cover the title was given (typed, imported) is fetched only from a public address; one
                // a provider's record names only from the providers' cover hosts.
                let origin: CoverOrigin = CoverStore.isRemote(title.coverURL) ? .user : .provider
                let id = try await CoverStore.fetch(remote, origin: origin, fetcher: app.coverFetcher, now: now(), gate: gate, on: db)
                cover = (CoverStore.isRemote(title.coverURL) ? title.coverURL : nil, CoverStore.localURL(id))
            } catch {
                coverError = "cover \(remote): \(error)"
            }
        }
        let filled = try await fill(job.title_id, from: record, cover: cover, gate: gate, on: db)
        return Outcome(filled: filled, coverStored: cover != nil, error: coverError)
    }

    struct MatchFailure: Error { var message: String }

    /// The ISBN of the book a wish names by title and author (`TitleMatch`): searched in the book
    /// sources and written to the wish, unless another book of the library has it; nil when none fits.
    static func match(_ title: Title, app: Application, now: @Sendable () -> Date) async throws -> Result<String?, MatchFailure> {
        let (db, gate) = (app.db, app.writeGate)
        let author = title.authors.first
        let result = await (try await app.metadataLookup).search(SearchQuery(text: ([title.title] + [author].compactMap { $0 }).joined(separator: " "),
                                                                             title: title.title, author: author, limit: 10))
        let candidates = result.candidates.map { TitleMatch.Candidate(title: $0.title ?? "", subtitle: $0.subtitle, authors: $0.authors ?? [], isbn13: $0.isbn13) }
        guard let index = TitleMatch.best(title: title.title, authors: title.authors, in: candidates), let isbn = candidates[index].isbn13 else {
            let answered = result.outcomes.isEmpty || result.outcomes.contains { $0.status == .found || $0.status == .notFound }
            return answered ? .success(nil) : .failure(MatchFailure(message: "no provider answered the search"))
        }
        let id = try title.requireID(), library = title.$library.id
        let taken = try await gate.transaction(on: db) { db -> Bool in
            try await Dialect.lockRow("titles", id: id, on: db)
            guard let t = try await Title.find(id, on: db), t.isbn13 == nil else { return true }
            if try await Title.query(on: db).filter(\.$library.$id == library).filter(\.$isbn13 == isbn).first() != nil { return true }
            t.isbn13 = isbn
            t.refreshDerived()
            try await t.update(on: db)
            return false
        }
        return .success(taken ? nil : isbn)
    }

    /// Sets only the fields that are empty in the database at the moment of writing.
    static func fill(_ titleID: UUID, from record: BookRecord, cover: (remote: String?, local: String)?, gate: WriteGate, on db: any Database) async throws -> [String] {
        try await gate.transaction(on: db) { db in
            try await Dialect.lockRow("titles", id: titleID, on: db)
            guard let t = try await Title.find(titleID, on: db) else { return [] }
            var filled: [String] = []
            func blank(_ s: String?) -> Bool { (s ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            func set(_ name: String, _ current: String?, _ value: String?, _ apply: (String) -> Void) {
                if blank(current), let value { apply(value); filled.append(name) }
            }
            set("subtitle", t.subtitle, record.subtitle) { t.subtitle = $0 }
            set("publisher", t.publisher, record.publisher) { t.publisher = $0 }
            set("publishedDate", t.publishedDate, record.publishedDate) { t.publishedDate = $0 }
            set("language", t.language, record.language) { t.language = $0 }
            set("description", t.summary, record.description) { t.summary = $0 }
            if t.pageCount == nil, let pages = record.pageCount { t.pageCount = pages; filled.append("pageCount") }
            if t.authors.isEmpty, let authors = record.authors { t.authors = Array(authors.prefix(20)); filled.append("authors") }
            if blank(t.callNumber), !t.wishlist, let suggested = record.suggestedCallNumber { t.setCallNumber(suggested); filled.append("callNumber") }
            if t.marcRecord == nil, !t.wishlist, let marc = record.marcXML { t.marcRecord = marc; filled.append("marcRecord") }
            if let cover, blank(t.coverURL) || (cover.remote != nil && t.coverURL == cover.remote) {
                t.coverURL = cover.local
                filled.append("coverUrl")
            }
            guard !filled.isEmpty else { return [] }
            if filled.contains("subtitle") || filled.contains("authors") { t.refreshDerived() }
            try await t.update(on: db)
            return filled
        }
    }

    /// Claims and runs due jobs until none is left (or `limit` ran). Answers how many ran.
    @discardableResult
    static func drain(app: Application, owner: String, limit: Int = .max) async throws -> Int {
        var ran = 0
        while ran < limit, let job = try await claim(owner: owner, now: app.clock.now(), gate: app.writeGate, on: app.db) {
            let outcome: Outcome
            do {
                outcome = try await run(job, app: app, now: { app.clock.now() })
            } catch {
                outcome = Outcome(filled: [], coverStored: false, error: String(describing: error))
            }
            try await finish(job, owner: owner, error: outcome.error, now: app.clock.now(), gate: app.writeGate, on: app.db)
            if let error = outcome.error {
                app.logger.info("enrichment of title \(job.title_id) will be retried: \(error)")
            } else if !outcome.filled.isEmpty {
                app.logger.info("enrichment of title \(job.title_id) filled \(outcome.filled.joined(separator: ", "))")
            }
            ran += 1
        }
        return ran
    }

    struct Progress: Content {
        var pending: Int
        var running: Int
        var done: Int
        var failed: Int
    }

    static func progress(library: UUID, on db: any Database) async throws -> Progress {
        struct Row: Decodable { var state: String; var n: Int }
        let rows = try await db.sql.raw("""
            SELECT state, COUNT(*) AS n FROM jobs WHERE library_id = \(bind: library) AND kind = 'enrich' GROUP BY state
            """).all(decoding: Row.self)
        let count = { (s: State) in rows.first { $0.state == s.rawValue }?.n ?? 0 }
        return Progress(pending: count(.pending), running: count(.running), done: count(.done), failed: count(.failed))
    }
}
