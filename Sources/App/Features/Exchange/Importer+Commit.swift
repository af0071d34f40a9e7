import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

extension Importer {
    /// Writes one batch in one transaction. Rows with only an ISBN get their title from the lookup
    /// (cache first) before the transaction starts.
    /// A record with its title row already checked and derived (done while the previous batch is
    /// written); nil for a record that has only an ISBN and needs the lookup first.
    struct Prepared: Sendable {
        var record: ImportRecord
        var insert: Result<TitleRow, PrepareFailure>?

        init(_ record: ImportRecord, library: UUID, now: Date, ids: inout UUIDSource) {
            self.record = record
            insert = record.title == nil ? nil : Self.make(record, library: library, now: now, ids: &ids)
        }

        static func make(_ r: ImportRecord, library: UUID, now: Date, ids: inout UUIDSource) -> Result<TitleRow, PrepareFailure> {
            do { return .success(try TitleRow(importing: r, id: ids.next(), now: now)) } catch {
                return .failure(PrepareFailure(message: error.answered.message, problem: error as? InputProblem))
            }
        }
    }

    struct PrepareFailure: Error, Sendable { var message: String; var problem: InputProblem? }

    /// At most this many provider lookups at once for the rows of a file that have only an ISBN.
    static let concurrentLookups = 8
    /// Lookups for one import start only within this time (cached answers are used after it): with
    /// hanging providers an import of an ISBN list ends in about this plus one lookup timeout.
    static let lookupBudget: Duration = .seconds(20)

    /// Looks the ISBNs up (cache first), `concurrentLookups` at a time; an ISBN not looked up before
    /// the deadline (and not cached) has no answer.
    static func lookUp(_ isbns: [ISBN], app: Application, now: Date, deadline: ContinuousClock.Instant) async throws -> [String: CachedLookup] {
        var unique: [ISBN] = []
        var seen = Set<String>()
        for isbn in isbns where seen.insert(isbn.isbn13).inserted { unique.append(isbn) }
        guard !unique.isEmpty else { return [:] }
        let lookup = try await app.metadataLookup, (db, gate) = app.jobStorage
        return try await withThrowingTaskGroup(of: (String, CachedLookup?).self) { group in
            var answers: [String: CachedLookup] = [:]
            var next = 0
            func start() {
                let isbn = unique[next]
                next += 1
                group.addTask {
                    if ContinuousClock.now >= deadline {
                        return (isbn.isbn13, try await LookupService.cached(isbn.isbn13, now: now, on: db))
                    }
                    return (isbn.isbn13, try await LookupService.isbn(isbn, lookup: lookup, now: now, gate: gate, on: db))
                }
            }
            while next < unique.count, next < concurrentLookups { start() }
            while let (key, answer) = try await group.next() {
                if let answer { answers[key] = answer }
                if next < unique.count { start() }
            }
            return answers
        }
    }

    /// Writes one batch in one transaction. Rows with only an ISBN get their title from the lookup
    /// (cache first) before the transaction starts.
    /// `planned` is the batch's plan as if none of its ISBNs were in the library yet, worked out beforehand
    /// (nil when some of its rows have only an ISBN, to be looked up first).
    static func commit(_ records: [Prepared], planned: BatchPlan? = nil, format: ImportFormat, policy: ExistingISBNPolicy,
                       library ctx: LibraryContext, app: Application, now: Date,
                       lookupDeadline: ContinuousClock.Instant, activity: ImportActivity) async throws -> BatchOutcome {
        var lookupFailures: [ImportRowNote] = []
        guard !records.isEmpty else { return BatchOutcome() }
        let looked = try await lookUp(records.filter { $0.insert == nil }.compactMap { $0.record.isbn.flatMap { try? ISBN($0) } },
                                      app: app, now: now, deadline: lookupDeadline)
        var batch: [Prepared] = []
        var ids = UUIDSource()
        for var p in records {
            if p.insert == nil {
                var r = p.record
                guard let raw = r.isbn, let isbn = try? ISBN(raw) else {
                    lookupFailures.append(ImportRowNote(line: r.line, rowError: .missing(column: "Title")))
                    continue
                }
                guard let answer = looked[isbn.isbn13] else {
                    lookupFailures.append(ImportRowNote(line: r.line, title: nil,
                                                       reason: "ISBN \(isbn.hyphenated): the book providers did not answer in time; import this line again later",
                                                       code: "providers_late", values: ["isbn": isbn.hyphenated]))
                    continue
                }
                guard let found = answer.result.record else {
                    lookupFailures.append(ImportRowNote(line: r.line, title: nil,
                                                       reason: "ISBN \(isbn.hyphenated): no title in the file and none found at the book providers",
                                                       code: "not_found", values: ["isbn": isbn.hyphenated]))
                    continue
                }
                r.title = found.title
                if r.authors.isEmpty { r.authors = found.authors ?? [] }
                r.publisher = r.publisher ?? found.publisher
                r.publishedDate = r.publishedDate ?? found.publishedDate
                r.pageCount = r.pageCount ?? found.pageCount
                r.language = r.language ?? found.language
                r.description = r.description ?? found.description
                r.coverURL = found.coverURL
                p = Prepared(r, library: ctx.libraryID, now: now, ids: &ids)
            }
            batch.append(p)
        }
        let rows = batch
        let isbns = rows.compactMap(\.record.isbn)
        let (jobDB, gate) = app.jobStorage
        let outcome = try await gate.transaction(on: jobDB) { db -> BatchPlan in
            let sql = db.sql
            var inLibrary: [String: UUID] = [:]
            if !isbns.isEmpty {
                struct Existing: Decodable { var id: UUID; var isbn13: String }
                for t in try await sql.select().columns("id", "isbn13").from("titles")
                    .where(LibraryNumber.rows(of: "titles", ctx.libraryID)).where("isbn13", .in, isbns).all(decoding: Existing.self) {
                    inLibrary[t.isbn13] = t.id
                }
            }
            let plan = inLibrary.isEmpty ? planned ?? BatchPlan(rows, inLibrary: [:], policy: policy)
                : BatchPlan(rows, inLibrary: inLibrary, policy: policy)
            let (titles, copyCounts) = (plan.titles, plan.newCopies)
            var ids = UUIDSource()
            // Many rows per statement: the titles, then their copies with consecutive accession numbers.
            let no = try await LibraryNumber.read(ctx.libraryID, on: db.sql)
            try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: titles, values: { $0.values(library: no) }, on: db)
            let copyTotal = copyCounts.reduce(0) { $0 + $1.1 }
            if copyTotal > 0 {
                let first = try await Catalog.allocateAccessions(copyTotal, library: ctx.libraryID, on: db).first
                let copyRows = CopyRow.fresh(copyCounts.map { ($0.0, $0.1, nil) }, firstAccession: first, now: now, ids: &ids)
                try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: copyRows, values: { $0.values(library: no) }, on: db)
            }
            // Copies for titles that were in the library (or earlier in this batch) before this row.
            for (titleID, n) in plan.moreCopies {
                try await Catalog.addCopies(n, titleID: titleID, location: nil, library: ctx.libraryID, on: db)
            }
            for (titleID, names) in plan.categories {
                try await Catalog.setCategories(names, titleID: titleID, library: ctx.libraryID, now: now, on: db)
            }
            try await TitleSeries.insert(plan.moreSeries, on: db)
            // The titles to fill in, as one job over their range of ids (made in order; a UUID compares as
            // its bytes, as both databases order them).
            if let first = plan.toFill.min(), let last = plan.toFill.max() {
                try await Enrichment.enqueue(first: first, last: last, count: plan.toFill.count, libraryID: ctx.libraryID, now: now, on: db)
            }
            try await ReadingLog.importHistory(plan.history, user: ctx.user.id, library: ctx.libraryID, now: now, on: db)
            // The file's one activity entry lands with the first rows and counts them as they land, so
            // an import stopped half-way (a crash, a kill) still says what it brought in.
            try await activity.record(titles: activity.titlesBefore + plan.created, copies: activity.copiesBefore + plan.copies, on: db)
            return plan
        }
        // The batch's rows are handed back to be freed once the next batch is on its way, not before.
        return BatchOutcome(created: outcome.created, copies: outcome.copies, skipped: outcome.skipped, failed: lookupFailures + outcome.failed,
                            spent: Spent(records: [records, rows], plans: [planned, outcome].compactMap { $0 }))
    }

    /// What a batch writes, worked out from its rows and the ISBNs the library already has: no database
    /// needed, so the common case (none of them there yet) is worked out while the batch before is written.
    struct BatchPlan: Sendable {
        var titles: [TitleRow] = []
        /// The new titles' copies, inserted with them.
        var newCopies: [(UUID, Int)] = []
        /// Copies for a title already in the library, or made by an earlier row of the batch that brought none.
        var moreCopies: [(UUID, Int)] = []
        var categories: [(UUID, [String])] = []
        var moreSeries: [TitleSeriesRow] = []
        var toFill: [UUID] = []
        var history: [ReadingLog.ImportedHistory] = []
        var created = 0, copies = 0
        var skipped: [ImportRowNote] = [], failed: [ImportRowNote] = []

        init(_ rows: [Prepared], inLibrary: [String: UUID], policy: ExistingISBNPolicy) {
            var seenHere: [String: UUID] = [:]  // the same ISBN twice in one batch (earlier batches are in `inLibrary`)
            var newCopyIndex: [UUID: Int] = [:], moreCopyIndex: [UUID: Int] = [:]
            for p in rows {
                let r = p.record
                let title = r.title ?? ""
                if let isbn = r.isbn, let existingID = inLibrary[isbn] ?? seenHere[isbn] {
                    if !r.reads.isEmpty {
                        history.append(.init(titleID: existingID, title: title, author: r.authors.first, pageCount: r.pageCount, reads: r.reads, rating: r.rating))
                    }
                    if policy == .copies, !r.wishlist {
                        let n = r.totalCopies ?? 1
                        if let pending = newCopyIndex[existingID] {
                            newCopies[pending].1 += n
                        } else if let pending = moreCopyIndex[existingID] {
                            moreCopies[pending].1 += n
                        } else {
                            moreCopyIndex[existingID] = moreCopies.count
                            moreCopies.append((existingID, n))
                        }
                        copies += n
                    } else {
                        skipped.append(ImportRowNote(line: r.line, title: title, reason: "ISBN \(isbn) is already in the library",
                                                     code: "already_in_library", values: ["isbn": isbn]))
                    }
                    continue
                }
                let row: TitleRow
                switch p.insert {
                case .success(let insert)?: row = insert
                case .failure(let failure)?:
                    failed.append(ImportRowNote(line: r.line, title: title, reason: failure.message, problem: failure.problem))
                    continue
                case nil:
                    continue  // not reached: records without a title were looked up first
                }
                titles.append(row)
                created += 1
                if !r.reads.isEmpty {
                    history.append(.init(titleID: row.id, title: title, author: r.authors.first, pageCount: r.pageCount, reads: r.reads, rating: r.rating))
                }
                if let isbn = r.isbn { seenHere[isbn] = row.id }
                if !r.categories.isEmpty, let names = try? Catalog.categoryNames(Array(r.categories.prefix(20))) { categories.append((row.id, names)) }
                for (n, entry) in row.moreSeries(importing: r).enumerated() {
                    moreSeries.append(TitleSeriesRow(title_id: row.id, position: n + 2, name: entry.name, number: entry.number))
                }
                if !r.wishlist {
                    let n = r.totalCopies ?? 1
                    if n > 0 {
                        newCopyIndex[row.id] = newCopies.count
                        newCopies.append((row.id, n))
                    }
                    copies += n
                }
                if row.needsEnrichment { toFill.append(row.id) }
            }
        }
    }

    /// A written batch's rows, kept until the next batch has started so that freeing them (tens of
    /// thousands of strings) does not hold up the database between two batches.
    final class Spent: Sendable {
        let records: [[Prepared]]
        let plans: [BatchPlan]
        init(records: [[Prepared]], plans: [BatchPlan]) { (self.records, self.plans) = (records, plans) }
    }

    /// The one `import` activity entry of a file, written with each batch (same id, counts so far).
    struct ImportActivity: Sendable {
        let id: UUID
        let format: ImportFormat
        let library: LibraryContext
        let at: Date
        var titlesBefore = 0
        var copiesBefore = 0

        func record(titles: Int, copies: Int, on db: any Database) async throws {
            let detail = ActivityDetail.imported(titles: titles, copies: copies, format: format)
            try await db.sql.raw("""
                INSERT INTO activities (id, library_id, at, type, title_id, title_text, author_text, member_card_id, info, detail, actor)
                VALUES (\(bind: id), \(bind: library.libraryID), \(bind: at), \(bind: ActivityType.importBooks.rawValue), NULL, NULL, NULL, NULL,
                        \(bind: detail.english), \(bind: detail.json), \(bind: library.user.username))
                ON CONFLICT (id) DO UPDATE SET info = excluded.info, detail = excluded.detail
                """).run()
        }
    }

    /// Told after each batch lands (an import run as a job shows it on its page). Passed down as a
    /// parameter: a task-local holding it crashed the release build in `swift_task_localValuePush`.
    typealias ProgressSink = @Sendable (ImportProgress) async -> Void

    struct BatchOutcome: Sendable {
        var created = 0
        var copies = 0
        var skipped: [ImportRowNote] = []
        var failed: [ImportRowNote] = []
        var spent: Spent?
    }

    /// Writes batches one after another while the caller reads and maps the next one (two cores: one
    /// parses, one writes). At most one batch is in flight, so batches land in file order.
    struct Pipeline {
        let format: ImportFormat
        let policy: ExistingISBNPolicy
        let library: LibraryContext
        let app: Application
        let now: Date
        private var inFlight: Task<BatchOutcome, any Error>?
        let activity: ImportActivity
        /// Provider lookups for this import start only until then (`Importer.lookupBudget`).
        let lookupDeadline = ContinuousClock.now + Importer.lookupBudget
        /// How many records the next batch takes: `firstBatch`, doubling with each batch up to `largestBatch`.
        private(set) var batchLimit = Importer.firstBatch

        let progress: ProgressSink?

        init(format: ImportFormat, policy: ExistingISBNPolicy, library: LibraryContext, app: Application, now: Date, progress: ProgressSink?) {
            (self.format, self.policy, self.library, self.app, self.now, self.progress) = (format, policy, library, app, now, progress)
            activity = ImportActivity(id: UUID(), format: format, library: library, at: now)
        }

        mutating func submit(_ records: inout [ImportRecord], into report: inout ImportReport) async throws {
            // The title rows are checked and derived while the batch before is still being written.
            var ids = UUIDSource()
            let (libraryID, preparedAt) = (library.libraryID, now)
            let batch = records.map { Prepared($0, library: libraryID, now: preparedAt, ids: &ids) }
            let planned = batch.allSatisfy { $0.insert != nil } ? BatchPlan(batch, inLibrary: [:], policy: policy) : nil
            records.removeAll(keepingCapacity: true)
            let spent = try await drain(into: &report)
            defer { withExtendedLifetime(spent) {} }
            guard !batch.isEmpty else { return }
            let (format, policy, library, app, now, deadline) = (format, policy, library, app, now, lookupDeadline)
            var activity = activity
            (activity.titlesBefore, activity.copiesBefore) = (report.titlesCreated, report.copiesAdded)
            batchLimit = min(batchLimit * 2, Importer.largestBatch)
            inFlight = Task { try await Importer.commit(batch, planned: planned, format: format, policy: policy, library: library, app: app, now: now, lookupDeadline: deadline, activity: activity) }
        }

        /// Waits for the batch in flight; what it hands back is freed by the caller when it likes.
        @discardableResult
        mutating func drain(into report: inout ImportReport) async throws -> Spent? {
            guard let task = inFlight else { return nil }
            inFlight = nil
            let outcome = try await task.value
            report.titlesCreated += outcome.created
            report.copiesAdded += outcome.copies
            report.skipped += outcome.skipped
            report.failed += outcome.failed
            // Between batches: a job shown on a page reports how far it got, and a server that is
            // stopping ends the import here (what landed stays, as after any batch).
            if let progress {
                await progress(ImportProgress(rowsRead: report.rowsRead, titlesCreated: report.titlesCreated, copiesAdded: report.copiesAdded))
            }
            try Task.checkCancellation()
            return outcome.spent
        }
    }
}
