import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// What to do with a row whose ISBN the library already has (F1, F3).
enum ExistingISBNPolicy: String, Codable, Sendable, CaseIterable {
    /// Leave the existing title alone; the row is reported as skipped.
    case skip
    /// Add the row's copies to the existing title.
    case copies
}

struct ImportRowNote: Content {
    /// The line of the file the row starts on (the header is line 1), or the record's number (see `ImportReport.unit`).
    var line: Int
    var title: String?
    /// Why, in English (the API's and the command line's text).
    var reason: String
    /// Why, as a stable code with its values, so a page can say it in the reader's language
    /// (`Strings.message(_: ImportRowNote)`): `missing` (column), `invalid` (column, value, why …),
    /// `field_count`, `not_isbn`, `providers_late`, `not_found`, `already_in_library`, `input` (an `InputProblem`).
    var code: String? = nil
    var values: [String: String]? = nil

    init(line: Int, title: String?, reason: String, code: String? = nil, values: [String: String]? = nil) {
        (self.line, self.title, self.reason, self.code, self.values) = (line, title, reason, code, values)
    }

    /// A row whose value the catalog's checks refused (`code` "input", the problem as JSON in `values`).
    init(line: Int, title: String?, reason: String, problem: InputProblem?) {
        self.init(line: line, title: title, reason: reason)
        if let problem, let json = try? JSONEncoder().encode(problem) {
            (code, values) = ("input", ["problem": String(decoding: json, as: UTF8.self)])
        }
    }

    /// A MARC record that cannot be read (`code` "unreadable", `why` the kind with its values).
    init(line: Int, marc error: MARCError) {
        self.init(line: line, title: nil, reason: "cannot be read: \(error.description)")
        var values: [String: String]
        switch error {
        case .badLeader: values = ["why": "leader"]
        case .badDirectory: values = ["why": "directory"]
        case .fieldOutOfBounds(let tag): values = ["why": "field_bounds", "tag": tag]
        case .unsupportedCharacterSet(let set): values = ["why": "charset", "set": set]
        case .notMARC21: values = ["why": "not_marc21"]
        case .xml(let xmlLine, _): values = ["why": "xml", "line": String(xmlLine)]
        }
        (code, self.values) = ("unreadable", values)
    }

    /// Where a malformed CSV stopped being read (`code` "csv_quote").
    init(csv failure: CSVReader.Failure) {
        switch failure {
        case .unterminatedQuote(let line, let column):
            self.init(line: line, title: nil, reason: failure.description, code: "csv_quote",
                      values: ["kind": "unterminated", "line": String(line), "column": String(column)])
        case .strayQuote(let line, let column):
            self.init(line: line, title: nil, reason: failure.description, code: "csv_quote",
                      values: ["kind": "stray", "line": String(line), "column": String(column)])
        }
    }

    /// A row imported with a change (`code` "isbn_repaired", "asin_kept" or "isbn_dropped").
    init(line: Int, title: String?, warning: ImportWarning) {
        switch warning {
        case .isbnRepaired(let value, let isbn):
            self.init(line: line, title: title, reason: warning.description, code: "isbn_repaired",
                      values: ["value": ImportMapper.RowError.quote(value), "isbn": isbn])
        case .asinKept(let asin):
            self.init(line: line, title: title, reason: warning.description, code: "asin_kept", values: ["asin": asin])
        case .isbnDropped(let value, let reason):
            self.init(line: line, title: title, reason: warning.description, code: "isbn_dropped",
                      values: ["value": ImportMapper.RowError.quote(value), "isbn": Self.isbnCode(reason)])
        }
    }

    /// A row the mapper refused.
    init(line: Int, rowError: ImportMapper.RowError) {
        self.init(line: line, title: nil, reason: rowError.description)
        switch rowError {
        case .missing(let column):
            (code, values) = ("missing", ["column": column])
        case .invalid(let column, let value, let why):
            var values = ["column": column, "value": ImportMapper.RowError.quote(value)]
            switch why {
            case .notWholeNumber: values["why"] = "not_whole_number"
            case .moreThanTotal(let total): (values["why"], values["total"]) = ("more_than_total", String(total))
            case .isbn(let invalid): (values["why"], values["isbn"]) = ("isbn", Self.isbnCode(invalid))
            case .ratingOutOfRange: values["why"] = "rating"
            }
            (code, self.values) = ("invalid", values)
        case .wrongFieldCount(let expected, let found):
            (code, values) = ("field_count", ["expected": String(expected), "found": String(found)])
        }
    }

    /// `ISBN.Invalid` as text (`wrong_length:11`), and back.
    static func isbnCode(_ invalid: ISBN.Invalid) -> String {
        switch invalid {
        case .empty: "empty"
        case .badCharacters: "bad_characters"
        case .wrongLength(let n): "wrong_length:\(n)"
        case .badChecksum: "bad_checksum"
        case .notABookEAN: "not_a_book"
        }
    }

    static func isbnInvalid(_ code: String?) -> ISBN.Invalid? {
        switch code {
        case "empty": .empty
        case "bad_characters": .badCharacters
        case "bad_checksum": .badChecksum
        case "not_a_book": .notABookEAN
        case let code? where code.hasPrefix("wrong_length:"): Int(code.dropFirst("wrong_length:".count)).map { .wrongLength($0) }
        default: nil
        }
    }
}

/// The import report: what landed, what was skipped and why, what failed and why, by line.
/// How far an import got: rows read so far, and what the batches written so far brought in.
struct ImportProgress: Sendable, Equatable {
    var rowsRead: Int
    var titlesCreated: Int
    var copiesAdded: Int
}

struct ImportReport: Content {
    var format: String
    var encoding: String
    var rowsRead: Int
    var titlesCreated: Int
    var copiesAdded: Int
    var skipped: [ImportRowNote]
    var failed: [ImportRowNote]
    /// Set when the file itself is malformed: reading stopped there; the rows before it were imported.
    var stoppedAt: String?
    /// The same as a code with its values (`Strings.message(_: ImportRowNote)`), for a page in any language.
    var stop: ImportRowNote? = nil
    /// Rows imported with a change the reader should know of: an ISBN repaired, an ASIN kept in its
    /// place, a bad ISBN left out.
    var warnings: [ImportRowNote] = []
    /// What `line` counts in the notes: lines of the file (CSV, MARCXML) or records (MARC, JSON).
    var unit: Unit

    enum Unit: String, Codable, Sendable { case line, record }
}

/// Imports a file into a library (F1–F3): rows land in batches, one transaction each, so a row is
/// either wholly in or reported; metadata and covers follow through the enrichment jobs.
enum Importer {
    /// Batches start small, so the first rows show up at once, and double up to `largestBatch`: each
    /// commit rewrites the index pages its rows touched (the A–Z and search indexes take rows all over),
    /// so fewer, larger batches write less. 100,000 rows in the `sqlite3` shell: 2,000 per transaction
    /// 11.5 s, 8,000 7.9 s, 16,000 7.1 s, one transaction 6.8 s. In the app 16,000 gained little over
    /// 8,000 and cost 25 MB more at its peak; a batch also holds the write gate while it commits.
    static let firstBatch = 2_000
    /// A report names at most this many rows imported with a change (a file of 100,000 spreadsheet-mangled ISBNs stays readable).
    static let maxWarnings = 10_000
    static let largestBatch = 8_000

    static func run(_ data: Data, format requested: ImportFormat?, existing policy: ExistingISBNPolicy, library ctx: LibraryContext,
                    app: Application, now: Date, progress: ProgressSink? = nil) async throws -> ImportReport {
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        if Backup.looksLikeBackup(data) { throw ExchangeError.backupChosenAsImport }
        if requested == .marc || (requested == nil && MARC21Reader.looksLikeMARC(data)) {
            let items = MARC21Reader(data).map { ReadItem(line: $0.number, marc: $0.result) }
            guard !items.isEmpty else { throw ExchangeError.noMARCRecords }
            return try await runRecords(items, format: .marc, encoding: "MARC 21", stoppedAt: nil, policy: policy, library: ctx, app: app, now: now,
                                        progress: progress)
        }
        let headText = TextDecoding.decode(data.prefix(8_192)).text
        let head = headText.drop { $0.isWhitespace }
        if requested == .marcXML || (requested == nil && MARCXML.looksLikeMARCXML(head)) {
            let encoding = TextDecoding.decode(data).encoding
            let (records, failure) = MARCXMLReader.read(data)
            guard !records.isEmpty else { throw ExchangeError.marcXMLUnreadable(detail: failure?.description) }
            let items = records.map { ReadItem(line: $0.line, marc: $0.result) }
            return try await runRecords(items, format: .marcXML, encoding: encoding.rawValue, stoppedAt: failure?.description,
                                        stop: failure.map { ImportRowNote(line: 0, marc: $0) },
                                        policy: policy, library: ctx, app: app, now: now, progress: progress)
        }
        if requested == .libraryThingJSON || (requested == nil && LibraryThingJSON.looksLikeLibraryThing(head)) {
            let (text, encoding) = TextDecoding.decode(data)
            let books: [LibraryThingJSON.Item]
            do { books = try LibraryThingJSON.read(Data(text.utf8)) } catch {
                switch error {
                case .notJSON: throw ExchangeError.notJSON
                case .unexpectedShape: throw ExchangeError.notLibraryThingJSON
                }
            }
            let items = books.map { book in
                switch book.result {
                case .success(let r): ReadItem(line: book.number, record: r, failure: nil)
                case .failure(let e): ReadItem(line: book.number, record: nil, failure: ImportRowNote(line: book.number, rowError: e))
                }
            }
            return try await runRecords(items, format: .libraryThingJSON, encoding: encoding.rawValue, stoppedAt: nil,
                                        policy: policy, library: ctx, app: app, now: now, progress: progress)
        }
        return try await runCSV(CSVReader(bytes: [UInt8](data), separator: CSVReader.guessSeparator(headText)),
                                head: headText, bom: data.starts(with: [0xEF, 0xBB, 0xBF]),
                                format: requested, existing: policy, library: ctx, app: app, now: now, progress: progress)
    }

    /// Imports a file from disk. CSV-like files are read a megabyte at a time, so memory does not
    /// grow with the file; MARC, MARCXML and JSON are read whole.
    static func run(file url: URL, format requested: ImportFormat?, existing policy: ExistingISBNPolicy, library ctx: LibraryContext,
                    app: Application, now: Date) async throws -> ImportReport {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw ExchangeError.cannotOpen(path: url.path)
        }
        defer { try? handle.close() }
        let first = (try? handle.read(upToCount: 1 << 20)) ?? nil ?? Data()
        let (headText, _) = TextDecoding.decode(first.prefix(8_192))
        let trimmedHead = headText.drop { $0.isWhitespace }
        let whole = requested.map { [.marc, .marcXML, .libraryThingJSON].contains($0) } ?? (MARC21Reader.looksLikeMARC(first)
            || MARCXML.looksLikeMARCXML(trimmedHead) || LibraryThingJSON.looksLikeLibraryThing(trimmedHead))
        if whole || first.count < 1 << 20 {
            var data = first
            if whole, let rest = try? handle.readToEnd() { data.append(rest) }
            return try await run(data, format: requested, existing: policy, library: ctx, app: app, now: now)
        }
        let reader = CSVReader(first: [UInt8](first), next: {
            guard let piece = try? handle.read(upToCount: 1 << 20), !piece.isEmpty else { return nil }
            return [UInt8](piece)
        }, separator: CSVReader.guessSeparator(headText))
        return try await runCSV(reader, head: headText, bom: first.starts(with: [0xEF, 0xBB, 0xBF]),
                                format: requested, existing: policy, library: ctx, app: app, now: now)
    }

    /// The CSV family (F1–F3 CSVs, tab-separated LibraryThing, ISBN lists), row by row. `head` is the
    /// start of the file as text, for recognising the format.
    private static func runCSV(_ reader: CSVReader, head: String, bom: Bool, format requested: ImportFormat?, existing policy: ExistingISBNPolicy,
                               library ctx: LibraryContext, app: Application, now: Date, progress: ProgressSink? = nil) async throws -> ImportReport {
        var reader = reader
        guard let header = reader.next() else {
            if let failure = reader.failure { throw ExchangeError.csv(failure) }
            throw ExchangeError.emptyFile
        }
        let firstLines = head.split(whereSeparator: \.isNewline).prefix(5).map(String.init)
        guard let format = requested ?? ImportFormat.detect(header: header.fields, firstLines: Array(firstLines.dropFirst())) else {
            throw ExchangeError.unknownFormat
        }
        var report = ImportReport(format: format.displayName, encoding: TextDecoding.Encoding.utf8.rawValue, rowsRead: 0, titlesCreated: 0,
                                  copiesAdded: 0, skipped: [], failed: [], stoppedAt: nil, unit: .line)

        // Rows as records; a list of ISBNs has no header: its first line is a row too.
        var pending: [ImportRecord] = []
        var pipeline = Pipeline(format: format, policy: policy, library: ctx, app: app, now: now, progress: progress)
        let mapper: ImportMapper?
        if format == .isbnList {
            mapper = nil
            report.rowsRead += 1
            if let first = header.fields.first, let record = isbnRecord(first, line: header.line, report: &report) { pending.append(record) }
        } else {
            do {
                mapper = try ImportMapper(format: format, header: header.fields)
            } catch {
                switch error {
                case .missingColumns(let columns): throw ExchangeError.missingColumns(columns)
                }
            }
        }
        while let row = reader.next() {
            if row.fields.allSatisfy({ $0.trimmed.isEmpty }) { continue }
            report.rowsRead += 1
            if let mapper {
                do {
                    let record = try mapper.record(row)
                    if report.warnings.count < Importer.maxWarnings {
                        report.warnings += record.warnings.map { ImportRowNote(line: row.line, title: record.title, warning: $0) }
                    }
                    pending.append(record)
                } catch {
                    report.failed.append(ImportRowNote(line: row.line, rowError: error))
                }
            } else if let first = row.fields.first, let record = isbnRecord(first, line: row.line, report: &report) {
                pending.append(record)
            }
            if pending.count >= pipeline.batchLimit {
                try await pipeline.submit(&pending, into: &report)
            }
        }
        if let failure = reader.failure {
            report.stoppedAt = failure.description
            report.stop = ImportRowNote(csv: failure)
        }
        try await pipeline.submit(&pending, into: &report)
        try await pipeline.drain(into: &report)
        let encoding: TextDecoding.Encoding = reader.sawWindows1252 ? .windows1252 : bom ? .utf8BOM : .utf8
        report.encoding = encoding.rawValue
        return try await finish(report, activity: pipeline.activity, app: app)
    }

    private static func finish(_ report: ImportReport, activity: ImportActivity, app: Application) async throws -> ImportReport {
        var report = report
        let (titles, copies) = (report.titlesCreated, report.copiesAdded)
        try await app.writeGate.transaction(on: app.db) { db in
            try await activity.record(titles: titles, copies: copies, on: db)
        }
        await app.db.settleAfterBulkLoad(titles: titles, logger: app.logger)
        app.enrichmentWorker?.nudge()
        report.failed.sort { $0.line < $1.line }
        report.skipped.sort { $0.line < $1.line }
        return report
    }

    /// Formats read whole (MARC, MARCXML, LibraryThing JSON): each item is a record or why it is not;
    /// `line` is the record's number (MARC, JSON) or the line it starts on (MARCXML).
    struct ReadItem {
        var line: Int
        var record: ImportRecord?
        /// Why the record could not be read, as the report says it.
        var failure: ImportRowNote?

        init(line: Int, record: ImportRecord?, failure: ImportRowNote?) {
            self.line = line
            self.record = record
            self.failure = failure
        }

        init(line: Int, marc: Result<MARCRecord, MARCError>) {
            self.line = line
            do throws(MARCError) {
                record = try MARCMapping.importRecord(try marc.get(), line: line)
            } catch {
                failure = ImportRowNote(line: line, marc: error)
            }
        }
    }

    private static func runRecords(_ items: [ReadItem], format: ImportFormat, encoding: String, stoppedAt: String?, stop: ImportRowNote? = nil,
                                   policy: ExistingISBNPolicy, library ctx: LibraryContext, app: Application, now: Date,
                                   progress: ProgressSink? = nil) async throws -> ImportReport {
        var report = ImportReport(format: format.displayName, encoding: encoding, rowsRead: 0, titlesCreated: 0, copiesAdded: 0,
                                  skipped: [], failed: [], stoppedAt: stoppedAt, stop: stop, unit: format == .marcXML ? .line : .record)
        var pending: [ImportRecord] = []
        var pipeline = Pipeline(format: format, policy: policy, library: ctx, app: app, now: now, progress: progress)
        for item in items {
            report.rowsRead += 1
            if let record = item.record {
                pending.append(record)
            } else {
                report.failed.append(item.failure ?? ImportRowNote(line: item.line, title: nil, reason: "cannot be read"))
            }
            if pending.count >= pipeline.batchLimit {
                try await pipeline.submit(&pending, into: &report)
            }
        }
        try await pipeline.submit(&pending, into: &report)
        try await pipeline.drain(into: &report)
        return try await finish(report, activity: pipeline.activity, app: app)
    }

    private static func isbnRecord(_ raw: String, line: Int, report: inout ImportReport) -> ImportRecord? {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        do {
            var r = ImportRecord(line: line)
            r.isbn = try ISBN(trimmed).isbn13
            return r
        } catch {
            report.failed.append(ImportRowNote(line: line, title: nil, reason: "“\(trimmed)” is not an ISBN: \(error.description)", code: "not_isbn",
                                               values: ["value": ImportMapper.RowError.quote(trimmed), "isbn": ImportRowNote.isbnCode(error)]))
            return nil
        }
    }

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
        let lookup = app.metadataLookup, gate = app.writeGate, db = app.db
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
    private static func commit(_ records: [Prepared], format: ImportFormat, policy: ExistingISBNPolicy,
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
        let outcome = try await app.writeGate.transaction(on: app.db) { db -> (created: Int, copies: Int, skipped: [ImportRowNote], failed: [ImportRowNote]) in
            let sql = db.sql
            var inLibrary: [String: UUID] = [:]
            if !isbns.isEmpty {
                struct Existing: Decodable { var id: UUID; var isbn13: String }
                for t in try await sql.select().columns("id", "isbn13").from("titles")
                    .where("library_id", .equal, ctx.libraryID).where("isbn13", .in, isbns).all(decoding: Existing.self) {
                    inLibrary[t.isbn13] = t.id
                }
            }
            var created = 0, copies = 0
            var skipped: [ImportRowNote] = [], failed: [ImportRowNote] = []
            var seenHere: [String: UUID] = [:]  // the same ISBN twice in one batch (earlier batches are in `inLibrary`)
            var titles: [TitleRow] = []
            var copyCounts: [(UUID, Int)] = []
            var categories: [(UUID, [String])] = []
            var jobs: [JobInsert] = []
            var history: [ReadingLog.ImportedHistory] = []
            var ids = UUIDSource()
            for p in rows {
                let r = p.record
                let title = r.title ?? ""
                if let isbn = r.isbn, let existingID = inLibrary[isbn] ?? seenHere[isbn] {
                    if !r.reads.isEmpty {
                        history.append(.init(titleID: existingID, title: title, author: r.authors.first, pageCount: r.pageCount, reads: r.reads, rating: r.rating))
                    }
                    if policy == .copies, !r.wishlist {
                        let n = r.totalCopies ?? 1
                        if let pending = copyCounts.firstIndex(where: { $0.0 == existingID }) {
                            copyCounts[pending].1 += n
                        } else {
                            try await Catalog.addCopies(n, titleID: existingID, location: nil, library: ctx.libraryID, on: db)
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
                    continue  // not reached: records without a title were looked up above
                }
                titles.append(row)
                created += 1
                if !r.reads.isEmpty {
                    history.append(.init(titleID: row.id, title: title, author: r.authors.first, pageCount: r.pageCount, reads: r.reads, rating: r.rating))
                }
                if let isbn = r.isbn { seenHere[isbn] = row.id }
                if !r.categories.isEmpty, let names = try? Catalog.categoryNames(Array(r.categories.prefix(20))) { categories.append((row.id, names)) }
                if !r.wishlist {
                    let n = r.totalCopies ?? 1
                    if n > 0 { copyCounts.append((row.id, n)) }
                    copies += n
                }
                if row.needsEnrichment {
                    jobs.append(JobInsert(id: ids.next(), library_id: ctx.libraryID, title_id: row.id, run_after: now))
                }
            }
            // Many rows per statement: the titles, then their copies with consecutive accession numbers, then the jobs.
            try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: titles, values: { $0.values(library: ctx.libraryID) }, on: db)
            let copyTotal = copyCounts.reduce(0) { $0 + $1.1 }
            if copyTotal > 0 {
                var accession = try await Catalog.allocateAccessions(copyTotal, library: ctx.libraryID, on: db)
                var copyRows: [CopyRow] = []
                copyRows.reserveCapacity(copyTotal)
                for (titleID, n) in copyCounts {
                    for i in 0..<n {
                        copyRows.append(CopyRow(id: ids.next(), title_id: titleID, copy_number: i + 1, barcode: Copy.barcode(accession: accession),
                                                location: nil, condition: nil, status: CopyStatus.available.rawValue,
                                                created_at: now, updated_at: now))
                        accession += 1
                    }
                }
                try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: copyRows, values: { $0.values(library: ctx.libraryID) }, on: db)
            }
            for (titleID, names) in categories {
                try await Catalog.setCategories(names, titleID: titleID, library: ctx.libraryID, on: db)
            }
            try await BulkInsert.run("jobs", columns: JobInsert.columns, rows: jobs, values: \.values, on: db)
            try await ReadingLog.importHistory(history, user: ctx.user.id, library: ctx.libraryID, now: now, on: db)
            // The file's one activity entry lands with the first rows and counts them as they land, so
            // an import stopped half-way (a crash, a kill) still says what it brought in.
            try await activity.record(titles: activity.titlesBefore + created, copies: activity.copiesBefore + copies, on: db)
            return (created, copies, skipped, failed)
        }
        return BatchOutcome(created: outcome.created, copies: outcome.copies, skipped: outcome.skipped, failed: lookupFailures + outcome.failed)
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
            try await drain(into: &report)
            guard !records.isEmpty else { return }
            let (format, policy, library, app, now, deadline) = (format, policy, library, app, now, lookupDeadline)
            var activity = activity
            (activity.titlesBefore, activity.copiesBefore) = (report.titlesCreated, report.copiesAdded)
            var ids = UUIDSource()
            let batch = records.map { Prepared($0, library: library.libraryID, now: now, ids: &ids) }
            records.removeAll(keepingCapacity: true)
            batchLimit = min(batchLimit * 2, Importer.largestBatch)
            inFlight = Task { try await Importer.commit(batch, format: format, policy: policy, library: library, app: app, now: now, lookupDeadline: deadline, activity: activity) }
        }

        mutating func drain(into report: inout ImportReport) async throws {
            guard let task = inFlight else { return }
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
        }
    }
}

/// A title's enrichment job (`Enrichment.enqueue`'s row), for the bulk insert.
private struct JobInsert {
    static let columns = ["id", "library_id", "kind", "state", "subject_id", "attempts", "run_after", "rows_read", "titles_created",
                          "copies_added", "created_at"]
    var values: [BulkInsert.Value] {
        [.uuid(id), .uuid(library_id), .text("enrich"), .text("pending"), .uuid(title_id), .integer(0), .date(run_after),
         .integer(0), .integer(0), .integer(0), .date(run_after)]
    }

    var id: UUID
    var library_id: UUID
    var title_id: UUID
    var run_after: Date
}
