import Foundation

/// RFC 4180 CSV (and tab-separated text): quoted fields with commas, doubled quotes and line breaks
/// inside, CRLF or LF line ends, a UTF-8 byte-order mark. Reads row by row, so a huge file is never
/// held as rows in memory.
public struct CSVReader: Sequence, IteratorProtocol {
    public struct Row: Sendable, Equatable {
        /// The line the record starts on (1-based; the header is line 1).
        public var line: Int
        public var fields: [String]
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A quoted field opened on `line`, column `column`, never closes.
        case unterminatedQuote(line: Int, column: Int)
        /// A quote inside an unquoted field, or text right after a closing quote.
        case strayQuote(line: Int, column: Int)

        public var description: String {
            switch self {
            case .unterminatedQuote(let line, let column):
                "Line \(line), column \(column): a quoted field is never closed (a \" is missing)."
            case .strayQuote(let line, let column):
                "Line \(line), column \(column): a \" in the middle of a field; quote the whole field and double the quote (\"\")."
            }
        }
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    public let separator: Unicode.Scalar
    public private(set) var failure: Failure?

    public init(_ text: String, separator: Unicode.Scalar = ",") {
        var s = Array(text.unicodeScalars)
        if s.first == "\u{FEFF}" { s.removeFirst() }
        scalars = s
        self.separator = separator
    }

    /// The next record, or nil at the end (or after a failure, which `failure` then holds).
    public mutating func next() -> Row? {
        guard failure == nil, index < scalars.count else { return nil }
        let startLine = line
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var column = 1
        var quoted = false
        var afterQuote = false
        var fieldStartLine = line
        while index < scalars.count {
            let c = scalars[index]
            if quoted {
                index += 1
                if c == "\"" {
                    if index < scalars.count, scalars[index] == "\"" {
                        field.append("\"")
                        index += 1
                    } else {
                        quoted = false
                        afterQuote = true
                    }
                } else {
                    if c == "\n" { line += 1 }
                    field.append(c)
                }
                continue
            }
            if c == separator {
                fields.append(String(field))
                field = String.UnicodeScalarView()
                afterQuote = false
                column += 1
                index += 1
                continue
            }
            if c == "\r" || c == "\n" {
                index += 1
                if c == "\r", index < scalars.count, scalars[index] == "\n" { index += 1 }
                line += 1
                fields.append(String(field))
                return Row(line: startLine, fields: fields)
            }
            if c == "\"" {
                if field.isEmpty, !afterQuote {
                    quoted = true
                    fieldStartLine = line
                    index += 1
                    continue
                }
                failure = .strayQuote(line: line, column: column)
                return nil
            }
            if afterQuote {
                // Spaces after a closing quote are tolerated; anything else is malformed.
                if c == " " || c == "\t" { index += 1; continue }
                failure = .strayQuote(line: line, column: column)
                return nil
            }
            field.append(c)
            index += 1
        }
        if quoted {
            failure = .unterminatedQuote(line: fieldStartLine, column: column)
            return nil
        }
        fields.append(String(field))
        // A final line break leaves nothing behind; a last line without one is a record.
        if fields == [""] { return nil }
        return Row(line: startLine, fields: fields)
    }

    /// A tab-separated file is one whose first line has more tabs than commas.
    public static func guessSeparator(_ text: String) -> Unicode.Scalar {
        let firstLine = text.prefix { $0 != "\n" && $0 != "\r" }
        let tabs = firstLine.filter { $0 == "\t" }.count
        let commas = firstLine.filter { $0 == "," }.count
        let semicolons = firstLine.filter { $0 == ";" }.count
        if tabs > commas && tabs >= semicolons { return "\t" }
        if semicolons > commas { return ";" }
        return ","
    }
}

/// Writes RFC 4180 CSV: fields quoted when they hold a separator, quote or line break; CRLF lines.
public enum CSVWriter {
    public static func field(_ value: String) -> String {
        // Scalars, not Characters: "\r\n" is one Character and would match neither.
        guard value.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    public static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }
}

/// Text from the bytes of a file people export from other apps: UTF-8 (with or without a byte-order
/// mark), else Windows-1252 (a superset of Latin-1 that LibraryThing and older Excel write).
public enum TextDecoding {
    public enum Encoding: String, Sendable { case utf8 = "UTF-8", utf8BOM = "UTF-8 with BOM", windows1252 = "Windows-1252" }

    public static func decode(_ data: Data) -> (text: String, encoding: Encoding) {
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            return (String(decoding: data.dropFirst(3), as: UTF8.self), .utf8BOM)
        }
        if let text = String(data: data, encoding: .utf8) { return (text, .utf8) }
        return (windows1252(data), .windows1252)
    }

    /// Bytes 0x80–0x9F differ from Latin-1 (curly quotes, dashes, €); the rest map one to one.
    static let cp1252High: [UInt16] = [
        0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD, 0x017D, 0xFFFD,
        0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
    ]

    static func windows1252(_ data: Data) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(data.count)
        for byte in data {
            let value: UInt32 = (0x80...0x9F).contains(byte) ? UInt32(cp1252High[Int(byte) - 0x80]) : UInt32(byte)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }
}
