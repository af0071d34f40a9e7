import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// What a level list did: how many lines, how many titles got their level, and each line not taken.
struct LevelImportReport: Content {
    var rowsRead: Int
    var titlesUpdated: Int
    /// Lines whose ISBN the catalog does not have.
    var skipped: [ImportRowNote]
    /// Lines that are not an ISBN and a level.
    var failed: [ImportRowNote]
}

/// Reading levels in bulk: a spreadsheet of ISBN → level (a publisher's AR or Lexile list, a
/// teacher's guided reading levels) sets the level of every title the catalog has with that ISBN, in
/// one transaction; each line not taken is named with its line number and why.
enum ReadingLevels {
    static let maxBytes = 2 << 20
    static let maxRows = 100_000
    static let isbnColumns: Set<String> = ["isbn", "isbn13", "isbn 13", "isbn-13", "isbn10", "ean", "ean13"]
    static let levelColumns: Set<String> = ["level", "reading level", "readinglevel", "lexile", "ar", "atos", "ar level", "book level",
                                            "guided reading", "niveau", "leseniveau", "antolin", "leibhéal", "阅读级别"]

    static func importLevels(_ data: Data, in scope: Scope) async throws -> LevelImportReport {
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        guard data.count <= maxBytes else { throw ExchangeError.levelListTooLarge(maxMB: maxBytes >> 20) }
        if Backup.looksLikeBackup(data) { throw ExchangeError.backupChosenAsImport }
        let text = TextDecoding.decode(data).text
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(String(text.prefix(4_096))))
        guard let first = reader.next() else {
            if let failure = reader.failure { throw ExchangeError.csv(failure) }
            throw ExchangeError.emptyFile
        }
        // A header names the columns; a file without one has the ISBN first and the level second.
        let names = first.fields.map { $0.trimmed.lowercased() }
        var (isbnAt, levelAt) = (names.firstIndex(where: isbnColumns.contains), names.firstIndex(where: levelColumns.contains))
        var rows: [CSVReader.Row] = []
        if isbnAt == nil, levelAt == nil, first.fields.count >= 2, (try? ISBN(first.fields[0].trimmed)) != nil {
            (isbnAt, levelAt) = (0, 1)
            rows.append(first)
        }
        guard let isbnAt, let levelAt else {
            throw ExchangeError.missingColumns([isbnAt == nil ? "ISBN" : nil, levelAt == nil ? "Level" : nil].compactMap { $0 })
        }
        var report = LevelImportReport(rowsRead: 0, titlesUpdated: 0, skipped: [], failed: [])
        var levels: [(line: Int, isbn: String, level: String)] = []
        func take(_ row: CSVReader.Row) {
            guard !row.fields.allSatisfy({ $0.trimmed.isEmpty }) else { return }
            report.rowsRead += 1
            let rawISBN = row.fields.indices.contains(isbnAt) ? row.fields[isbnAt].trimmed : ""
            let level = row.fields.indices.contains(levelAt) ? row.fields[levelAt].trimmed : ""
            let isbn: ISBN
            do { isbn = try ISBN(rawISBN) } catch {
                report.failed.append(ImportRowNote(line: row.line, title: nil, reason: "“\(rawISBN)” is not an ISBN: \(error.description)", code: "not_isbn",
                                                   values: ["value": ImportMapper.RowError.quote(rawISBN), "isbn": ImportRowNote.isbnCode(error)]))
                return
            }
            guard !level.isEmpty else {
                report.failed.append(ImportRowNote(line: row.line, title: nil, reason: "The level is missing.", code: "missing", values: ["column": "Level"]))
                return
            }
            guard level.count <= 40 else {
                report.failed.append(ImportRowNote(line: row.line, title: nil, reason: "The level is longer than 40 characters.",
                                                   problem: .tooLong(field: "readingLevel", max: 40)))
                return
            }
            levels.append((row.line, isbn.isbn13, level))
        }
        for row in rows { take(row) }
        while let row = reader.next() {
            take(row)
            guard report.rowsRead <= maxRows else { throw ExchangeError.levelListTooLarge(maxMB: maxBytes >> 20) }
        }
        if let failure = reader.failure { report.failed.append(ImportRowNote(csv: failure)) }
        let (library, now, read, taking) = (scope.library.libraryID, scope.now, report, levels)
        return try await scope.gate.transaction(on: scope.db) { db in
            var report = read
            var titles: [String: [UUID]] = [:]
            let wanted = Array(Set(taking.map(\.isbn)))
            for start in stride(from: 0, to: wanted.count, by: 500) {
                let chunk = wanted[start..<min(start + 500, wanted.count)]
                let list = SQLList(chunk.map { SQLBind($0) })
                for row in try await db.sql.raw("SELECT id, isbn13 FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND wishlist = \(bind: false) AND isbn13 IN (\(list))").all() {
                    titles[try row.decode(column: "isbn13", as: String.self), default: []].append(try row.decode(column: "id", as: UUID.self))
                }
            }
            var updated = Set<UUID>()
            for entry in taking {
                guard let ids = titles[entry.isbn] else {
                    report.skipped.append(ImportRowNote(line: entry.line, title: nil, reason: "The catalog has no book with ISBN \(entry.isbn).",
                                                        code: "isbn_not_in_catalog", values: ["isbn": entry.isbn]))
                    continue
                }
                let level = ReadingLevel.parse(entry.level)
                for id in ids {
                    try await db.sql.update("titles").set("reading_level", to: entry.level).set("level_scheme", to: level?.scheme.rawValue)
                        .set("level_value", to: level?.value).set("level_points", to: level?.points).set("updated_at", to: now)
                        .where("id", .equal, id).run()
                    updated.insert(id)
                }
            }
            report.titlesUpdated = updated.count
            return report
        }
    }
}
