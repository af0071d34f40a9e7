import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// Imports a file into a library: rows land in batches, one transaction each, so a row is
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
                    app: Application, now: Date, progress: ProgressSink? = nil) async throws -> ImportReport {
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
            return try await run(data, format: requested, existing: policy, library: ctx, app: app, now: now, progress: progress)
        }
        let reader = CSVReader(first: [UInt8](first), next: {
            guard let piece = try? handle.read(upToCount: 1 << 20), !piece.isEmpty else { return nil }
            return [UInt8](piece)
        }, separator: CSVReader.guessSeparator(headText))
        return try await runCSV(reader, head: headText, bom: first.starts(with: [0xEF, 0xBB, 0xBF]),
                                format: requested, existing: policy, library: ctx, app: app, now: now, progress: progress)
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
        let (db, gate) = app.jobStorage
        try await gate.transaction(on: db) { db in
            try await activity.record(titles: titles, copies: copies, on: db)
        }
        await db.settleAfterBulkLoad(titles: titles, logger: app.logger)
        app.enrichmentWorker?.ring()
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

}
