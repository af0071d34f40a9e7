import Fluent
import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Background completion of titles' metadata, as queued jobs of kind `enrich` in `jobs`, taken by
/// `EnrichmentWorker`. Two shapes of job:
/// - one title (`subject_id`): a title added or edited by hand, or one whose filling in failed and waits
///   to be tried again;
/// - one batch of an import: the range of ids `first_id` … `last_id` (an import's ids are made in
///   order), walked a few titles at a time with a cursor (`done_through`), so an import of 100,000
///   titles queues a few dozen rows, not 100,000.
///
/// - A job is claimed with a lease by one conditional UPDATE (PostgreSQL: `FOR UPDATE SKIP LOCKED`,
///   so two app instances never take the same job; SQLite: the one in-process write queue).
/// - A crashed worker's job is due again when its lease ends; jobs survive restarts.
/// - A provider failure retries with exponential backoff (1 min, 2, 4 … capped at 6 h), silently; a
///   title of a batch that fails while others succeed becomes a job of its own, so the batch walks on;
///   a step in which every title failed (the providers out of reach) backs the whole batch off instead.
/// - A job that is done is removed: nothing is kept of work that finished well. One that failed for
///   good is kept (the Background work page counts it) until the daily prune.
/// - Only empty fields are filled, under a row lock, so what a user typed is never overwritten.
enum Enrichment {
    static let lease: TimeInterval = 120
    static let maxAttempts = 12
    /// How many titles of a batch one claim walks before the job is handed back to the queue.
    static let batchStep = 10

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

    /// Schedules the titles of one import batch, ids `first` … `last` in order (`count` of them need
    /// filling in), as one job. Call inside the batch's transaction.
    static func enqueue(first: UUID, last: UUID, count: Int, libraryID: UUID, now: Date, on db: any Database) async throws {
        try await db.sql.raw("""
            INSERT INTO jobs (id, library_id, kind, state, attempts, run_after, rows_read, titles_created, copies_added, created_at, first_id, last_id)
            VALUES (\(bind: UUID()), \(bind: libraryID), 'enrich', 'pending', 0, \(bind: now), 0, \(bind: count), 0, \(bind: now),
                    \(bind: first), \(bind: last))
            """).run()
    }

    struct Claim: Decodable, Sendable {
        var id: UUID
        /// The title of a one-title job; nil for a batch.
        var title_id: UUID?
        var library_id: UUID
        var attempts: Int
        var first_id: UUID?
        var last_id: UUID?
        var done_through: UUID?
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
                RETURNING id, subject_id AS title_id, library_id, attempts, first_id, last_id, done_through
                """).first(decoding: Claim.self)
        }
    }

    static func backoff(attempts: Int) -> TimeInterval {
        min(60 * pow(2, Double(max(0, attempts - 1))), 6 * 3600)
    }

    /// Finishes a claimed job: removed when done, else back to pending with backoff (failed after
    /// `maxAttempts`; a batch keeps its cursor). Only the job's owner finishes it: a worker whose lease
    /// ran out cannot undo what the next one did.
    static func finish(_ job: Claim, owner: String, error: String?, now: Date, gate: WriteGate, on db: any Database) async throws {
        guard let error else {
            try await gate.transaction(on: db) { db in
                try await db.sql.raw("DELETE FROM jobs WHERE id = \(bind: job.id) AND lease_owner = \(bind: owner)").run()
            }
            return
        }
        let state: State = job.attempts >= maxAttempts ? .failed : .pending
        let runAfter = now.addingTimeInterval(backoff(attempts: job.attempts))
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                UPDATE jobs SET state = \(bind: state.rawValue), run_after = \(bind: runAfter), last_error = \(bind: error),
                  lease_owner = NULL, lease_until = NULL, finished_at = \(bind: state == .pending ? nil : now)
                WHERE id = \(bind: job.id) AND lease_owner = \(bind: owner)
                """).run()
        }
    }

    /// The next titles of a claimed batch after its cursor, in id order.
    static func nextOfBatch(_ job: Claim, on db: any Database) async throws -> [UUID] {
        guard let first = job.first_id, let last = job.last_id else { return [] }
        struct Row: Decodable { var id: UUID }
        let after: SQLQueryString = job.done_through.map { " AND id > \(bind: $0)" } ?? ""
        return try await db.sql.raw("""
            SELECT id FROM titles WHERE id >= \(bind: first) AND id <= \(bind: last) AND library_no = \(LibraryNumber.of(job.library_id))
            """ + after + " ORDER BY id LIMIT \(literal: batchStep)").all(decoding: Row.self).map(\.id)
    }

    /// Hands a batch back after a step: its cursor moved to `through` with `filled` more titles done,
    /// or removed when the walk reached its end. Each title in `failures` is queued as a job of its own,
    /// tried once already, in the same transaction.
    static func step(_ job: Claim, owner: String, through: UUID?, filled: Int, ended: Bool, failures: [(UUID, String)],
                     now: Date, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            for (title, error) in failures {
                try await db.sql.raw("""
                    INSERT INTO jobs (id, library_id, kind, state, subject_id, attempts, run_after, rows_read, titles_created, copies_added,
                                      created_at, last_error)
                    VALUES (\(bind: UUID()), \(bind: job.library_id), 'enrich', 'pending', \(bind: title), 1,
                            \(bind: now.addingTimeInterval(backoff(attempts: 1))), 0, 0, 0, \(bind: now), \(bind: error))
                    ON CONFLICT (kind, subject_id) WHERE subject_id IS NOT NULL DO NOTHING
                    """).run()
            }
            if ended {
                try await db.sql.raw("DELETE FROM jobs WHERE id = \(bind: job.id) AND lease_owner = \(bind: owner)").run()
            } else {
                try await db.sql.raw("""
                    UPDATE jobs SET state = 'pending', attempts = 0, run_after = \(bind: now), done_through = \(bind: through),
                      rows_read = rows_read + \(bind: filled), lease_owner = NULL, lease_until = NULL
                    WHERE id = \(bind: job.id) AND lease_owner = \(bind: owner)
                    """).run()
            }
        }
    }

    /// What one run did, for tests and the log.
    struct Outcome: Sendable, Equatable {
        var filled: [String]
        var coverStored: Bool
        var error: String?
    }

    /// Fills in one title: looks the ISBN up (cache first), stores the cover, fills empty fields.
    static func run(titleID: UUID, app: Application, now: @Sendable () -> Date) async throws -> Outcome {
        let db = app.db
        let gate = app.writeGate
        guard let title = try await Title.find(titleID, on: db) else { return Outcome(filled: [], coverStored: false, error: nil) }
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
        let filled = try await fill(titleID, from: record, cover: cover, gate: gate, on: db)
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
        let id = try title.requireID(), library = title.libraryNo
        let taken = try await gate.transaction(on: db) { db -> Bool in
            try await Dialect.lockRow("titles", id: id, on: db)
            guard let t = try await Title.find(id, on: db), t.isbn13 == nil else { return true }
            if try await Title.query(on: db).filter(\.$libraryNo == library).filter(\.$isbn13 == isbn).first() != nil { return true }
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
            if !t.wishlist, let scheme = try await CategoryCallNumbers.scheme(of: titleID, on: db) {
                // The school's own scheme: made now with the record's Dewey class, or made before without
                // it ("J ANI") and now completed ("J 590 ANI").
                let made = scheme.callNumber(dewey: record.deweyNumber, authors: t.authors, title: t.title)
                let before = scheme.callNumber(dewey: nil, authors: t.authors, title: t.title)
                if let made, blank(t.callNumber) || (t.callNumber == before && made != before) { t.setCallNumber(made); filled.append("callNumber") }
            } else if blank(t.callNumber), !t.wishlist, let suggested = record.suggestedCallNumber {
                t.setCallNumber(suggested); filled.append("callNumber")
            }
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

    /// Claims and runs due jobs until none is left (or `limit` titles were tried). Answers how many
    /// titles were tried.
    @discardableResult
    static func drain(app: Application, owner: String, limit: Int = .max) async throws -> Int {
        var ran = 0
        while ran < limit, let job = try await claim(owner: owner, now: app.clock.now(), gate: app.writeGate, on: app.db) {
            if let titleID = job.title_id {
                let outcome = await attempt(titleID, app: app)
                try await finish(job, owner: owner, error: outcome.error, now: app.clock.now(), gate: app.writeGate, on: app.db)
                ran += 1
                continue
            }
            // A batch: a step of its titles, then back to the queue (or gone, at its end).
            let ids = try await nextOfBatch(job, on: app.db)
            var failures: [(UUID, String)] = []
            var filled = 0
            for id in ids {
                guard let title = try await Title.find(id, on: app.db), needed(title) else { continue }
                let outcome = await attempt(id, app: app)
                if let error = outcome.error { failures.append((id, error)) }
                filled += 1
            }
            if filled > 0, failures.count == filled {
                // Every title of the step failed: the providers are out of reach (a school network without
                // the internet), not these books. The batch waits as a whole, from the same place, rather
                // than leaving a row per title behind.
                try await finish(job, owner: owner, error: failures[0].1, now: app.clock.now(), gate: app.writeGate, on: app.db)
            } else {
                try await step(job, owner: owner, through: ids.last ?? job.done_through, filled: filled, ended: ids.count < batchStep,
                               failures: failures, now: app.clock.now(), gate: app.writeGate, on: app.db)
            }
            ran += filled
        }
        return ran
    }

    /// Runs one title's filling in, logging what it did; an error is its outcome, never thrown.
    private static func attempt(_ titleID: UUID, app: Application) async -> Outcome {
        let outcome: Outcome
        do {
            outcome = try await run(titleID: titleID, app: app, now: { app.clock.now() })
        } catch {
            outcome = Outcome(filled: [], coverStored: false, error: String(describing: error))
        }
        if let error = outcome.error {
            app.logger.info("enrichment of title \(titleID) will be retried: \(error)")
        } else if !outcome.filled.isEmpty {
            app.logger.info("enrichment of title \(titleID) filled \(outcome.filled.joined(separator: ", "))")
        }
        return outcome
    }

    struct Progress: Content {
        var pending: Int
        var running: Int
        var done: Int
        var failed: Int
    }

    /// What waits, runs and failed of the library's filling in; `done` counts the titles the batches
    /// still queued have filled (a finished job leaves nothing to count).
    static func progress(library: UUID, on db: any Database) async throws -> Progress {
        struct Row: Decodable { var state: String; var n: Int }
        let rows = try await db.sql.raw("""
            SELECT state, COUNT(*) AS n FROM jobs WHERE library_id = \(bind: library) AND kind = 'enrich' AND first_id IS NULL GROUP BY state
            """).all(decoding: Row.self)
        // A batch that failed for good (the providers out of reach through all its tries) counts its titles left as failed.
        struct Batches: Decodable { var waiting: Int?; var failed: Int?; var done: Int? }
        let batches = try await db.sql.raw("""
            SELECT CAST(SUM(CASE WHEN state <> 'failed' AND titles_created > rows_read THEN titles_created - rows_read ELSE 0 END) AS BIGINT) AS waiting,
                   CAST(SUM(CASE WHEN state = 'failed' AND titles_created > rows_read THEN titles_created - rows_read ELSE 0 END) AS BIGINT) AS failed,
                   CAST(SUM(rows_read) AS BIGINT) AS done
            FROM jobs WHERE library_id = \(bind: library) AND kind = 'enrich' AND first_id IS NOT NULL
            """).first(decoding: Batches.self)
        let count = { (s: State) in rows.first { $0.state == s.rawValue }?.n ?? 0 }
        return Progress(pending: count(.pending) + (batches?.waiting ?? 0), running: count(.running), done: count(.done) + (batches?.done ?? 0),
                        failed: count(.failed) + (batches?.failed ?? 0))
    }
}
