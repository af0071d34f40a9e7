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

    /// The text as UTF-8: separators, quotes and line breaks are ASCII, and no byte of a multi-byte
    /// UTF-8 sequence is ASCII, so the bytes can be split directly (one byte per byte of text).
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    public let separator: Unicode.Scalar
    private let sep: UInt8
    public private(set) var failure: Failure?

    public init(_ text: String, separator: Unicode.Scalar = ",") {
        var b = Array(text.utf8)
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        bytes = b
        self.separator = separator
        sep = separator.isASCII ? UInt8(separator.value) : UInt8(ascii: ",")
    }

    private static let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    /// The next record, or nil at the end (or after a failure, which `failure` then holds).
    public mutating func next() -> Row? {
        guard failure == nil, index < bytes.count else { return nil }
        let startLine = line
        var fields: [String] = []
        var column = 1
        while true {
            // One field, starting at `index`.
            if index < bytes.count, bytes[index] == Self.quote {
                let fieldStartLine = line
                index += 1
                var value: [UInt8] = []
                var closed = false
                while index < bytes.count {
                    let c = bytes[index]
                    index += 1
                    if c == Self.quote {
                        if index < bytes.count, bytes[index] == Self.quote {
                            value.append(Self.quote)
                            index += 1
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        if c == Self.lf { line += 1 }
                        value.append(c)
                    }
                }
                guard closed else {
                    failure = .unterminatedQuote(line: fieldStartLine, column: column)
                    return nil
                }
                // Spaces after a closing quote are tolerated; anything else is malformed.
                while index < bytes.count, bytes[index] == Self.space || (bytes[index] == Self.tab && sep != Self.tab) { index += 1 }
                fields.append(String(decoding: value, as: UTF8.self))
                if index < bytes.count, bytes[index] != sep, bytes[index] != Self.cr, bytes[index] != Self.lf {
                    failure = .strayQuote(line: line, column: column)
                    return nil
                }
            } else {
                let start = index
                while index < bytes.count {
                    let c = bytes[index]
                    if c == sep || c == Self.cr || c == Self.lf { break }
                    if c == Self.quote {
                        failure = .strayQuote(line: line, column: column)
                        return nil
                    }
                    index += 1
                }
                fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
            }
            // After a field: a separator, a line end, or the end of the text.
            if index >= bytes.count {
                // A final line break leaves nothing behind; a last line without one is a record.
                if fields == [""] { return nil }
                return Row(line: startLine, fields: fields)
            }
            let c = bytes[index]
            index += 1
            if c == sep {
                column += 1
                continue
            }
            if c == Self.cr, index < bytes.count, bytes[index] == Self.lf { index += 1 }
            line += 1
            return Row(line: startLine, fields: fields)
        }
    }

    /// A tab-separated file is one whose first line has more tabs than commas.
    public static func guessSeparator(_ text: String) -> Unicode.Scalar {
        // Bytes, not Characters: "\r\n" is one Character and matches neither line end.
        let firstLine = text.utf8.prefix { $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        let tabs = firstLine.filter { $0 == UInt8(ascii: "\t") }.count
        let commas = firstLine.filter { $0 == UInt8(ascii: ",") }.count
        let semicolons = firstLine.filter { $0 == UInt8(ascii: ";") }.count
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
