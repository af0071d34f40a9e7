import Foundation
import ShelfmarkCore
import Vapor

/// What to do with a row whose ISBN the library already has.
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
