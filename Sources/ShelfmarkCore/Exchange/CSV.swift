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

    /// The bytes read so far and not yet consumed. Separators, quotes and line breaks are ASCII, and
    /// no byte of a multi-byte UTF-8 sequence is ASCII, so the bytes can be split directly.
    private var bytes: [UInt8]
    private var index = 0
    private var line = 1
    /// Where more bytes come from; nil once everything is in `bytes`.
    private var more: (() -> [UInt8]?)?
    public let separator: Unicode.Scalar
    private let sep: UInt8
    public private(set) var failure: Failure?
    /// Set when a field was not valid UTF-8 and was read as Windows-1252 (Latin-1) instead.
    public private(set) var sawWindows1252 = false

    public init(_ text: String, separator: Unicode.Scalar = ",") {
        self.init(bytes: Array(text.utf8), separator: separator)
    }

    /// Bytes in UTF-8, or Windows-1252 field by field where they are not valid UTF-8.
    public init(bytes: [UInt8], separator: Unicode.Scalar = ",") {
        var b = bytes
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { b.removeFirst(3) }
        self.bytes = b
        self.separator = separator
        sep = separator.isASCII ? UInt8(separator.value) : UInt8(ascii: ",")
    }

    /// Streams: `first` is the start of the file, `next` gives the following pieces (nil at the
    /// end). Only the record being read and one piece are held, so memory does not grow with the file.
    public init(first: [UInt8], next: @escaping () -> [UInt8]?, separator: Unicode.Scalar = ",") {
        // Enough bytes to see a byte-order mark whole.
        var start = first
        var exhausted = false
        while start.count < 3, !exhausted {
            if let piece = next() { start += piece } else { exhausted = true }
        }
        self.init(bytes: start, separator: separator)
        more = exhausted ? nil : next
    }

    private static let quote = UInt8(ascii: "\""), cr = UInt8(ascii: "\r"), lf = UInt8(ascii: "\n")
    private static let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    private enum Step { case row(Row), needMore, end }

    /// The next record, or nil at the end (or after a failure, which `failure` then holds).
    public mutating func next() -> Row? {
        while failure == nil {
            let (start, startLine) = (index, line)
            switch parse(atEnd: more == nil) {
            case .row(let row): return row
            case .end: return nil
            case .needMore:
                (index, line) = (start, startLine)
                if let chunk = more?() {
                    bytes.removeFirst(index)
                    index = 0
                    bytes += chunk
                } else {
                    more = nil
                }
            }
        }
        return nil
    }

    private mutating func text(_ slice: ArraySlice<UInt8>) -> String {
        if let s = String(validating: slice, as: UTF8.self) { return s }
        sawWindows1252 = true
        return TextDecoding.windows1252(slice)
    }

    /// Reads one record from `index`. Without `atEnd`, running out of bytes asks for more (the
    /// caller rewinds to the record's start and calls again with the buffer extended).
    private mutating func parse(atEnd: Bool) -> Step {
        guard index < bytes.count else { return atEnd ? .end : .needMore }
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
                        } else if index >= bytes.count, !atEnd {
                            return .needMore  // a doubled quote may straddle the pieces
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
                    if !atEnd { return .needMore }
                    failure = .unterminatedQuote(line: fieldStartLine, column: column)
                    return .end
                }
                // Spaces after a closing quote are tolerated; anything else is malformed.
                while index < bytes.count, bytes[index] == Self.space || (bytes[index] == Self.tab && sep != Self.tab) { index += 1 }
                if index >= bytes.count, !atEnd { return .needMore }
                fields.append(text(value[...]))
                if index < bytes.count, bytes[index] != sep, bytes[index] != Self.cr, bytes[index] != Self.lf {
                    failure = .strayQuote(line: line, column: column)
                    return .end
                }
            } else {
                let start = index
                while index < bytes.count {
                    let c = bytes[index]
                    if c == sep || c == Self.cr || c == Self.lf { break }
                    if c == Self.quote {
                        failure = .strayQuote(line: line, column: column)
                        return .end
                    }
                    index += 1
                }
                if index >= bytes.count, !atEnd { return .needMore }
                fields.append(text(bytes[start..<index]))
            }
            // After a field: a separator, a line end, or the end of the text.
            if index >= bytes.count {
                // A final line break leaves nothing behind; a last line without one is a record.
                if fields == [""] { return .end }
                return .row(Row(line: startLine, fields: fields))
            }
            let c = bytes[index]
            if c == Self.cr, index + 1 >= bytes.count, !atEnd { return .needMore }  // is an LF next?
            index += 1
            if c == sep {
                column += 1
                continue
            }
            if c == Self.cr, index < bytes.count, bytes[index] == Self.lf { index += 1 }
            line += 1
            return .row(Row(line: startLine, fields: fields))
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
    /// One field, quoted when it holds a comma, a quote or a line break (RFC 4180).
    public static func field(_ value: String) -> String {
        var bytes: [UInt8] = []
        append(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func line(_ fields: [String]) -> String {
        var bytes: [UInt8] = []
        appendLine(fields, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends one field's UTF-8, quoted when it must be. Bytes, not Characters: "\r\n" is one
    /// Character and would match neither "\r" nor "\n"; and an export writes millions of fields.
    ///
    /// A field that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be taken for a
    /// formula by spreadsheets (CSV injection): it is written with a leading apostrophe, which
    /// spreadsheets show as text and hide, as OWASP recommends.
    public static func append(_ value: String, to out: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            let formula = bytes.first.map { [0x3D, 0x2B, 0x2D, 0x40, 0x09, 0x0D].contains($0) } ?? false
            guard formula || bytes.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
                out.append(contentsOf: bytes)
                return
            }
            out.append(0x22)
            if formula { out.append(0x27) }
            for byte in bytes {
                if byte == 0x22 { out.append(0x22) }
                out.append(byte)
            }
            out.append(0x22)
        }
    }

    /// Appends fields separated by commas and the CRLF that ends a record.
    public static func appendLine(_ fields: [String], to out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(0x2C) }
            append(field, to: &out)
        }
        out.append(0x0D)
        out.append(0x0A)
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

    static func windows1252<Bytes: Collection<UInt8>>(_ data: Bytes) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(data.count)
        for byte in data {
            let value: UInt32 = (0x80...0x9F).contains(byte) ? UInt32(cp1252High[Int(byte) - 0x80]) : UInt32(byte)
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }
}
