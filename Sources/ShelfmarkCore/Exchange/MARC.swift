import Foundation

/// A MARC 21 bibliographic record: the 24-character leader and its fields in file order.
public struct MARCRecord: Sendable, Equatable {
    public var leader: String
    public var fields: [MARCField]

    public init(leader: String = MARCRecord.defaultLeader, fields: [MARCField]) {
        self.leader = leader
        self.fields = fields
    }

    /// New, language material, monograph, UTF-8; lengths are filled in when written.
    public static let defaultLeader = "00000nam a2200000 i 4500"

    public func fields(_ tag: String) -> [MARCField] { fields.filter { $0.tag == tag } }
    /// The first `code` subfield of the first `tag` field that has one.
    public func first(_ tag: String, _ code: Character) -> String? {
        for field in fields where field.tag == tag { if let v = field[code] { return v } }
        return nil
    }
    public func control(_ tag: String) -> String? { fields.first { $0.tag == tag }?.value }
}

public struct MARCField: Sendable, Equatable {
    public var tag: String
    /// Control fields (001–009) have a value and no indicators or subfields.
    public var value: String?
    public var indicator1: Character
    public var indicator2: Character
    public var subfields: [MARCSubfield]

    public static func control(_ tag: String, _ value: String) -> MARCField {
        MARCField(tag: tag, value: value, indicator1: " ", indicator2: " ", subfields: [])
    }

    public static func data(_ tag: String, _ ind1: Character = " ", _ ind2: Character = " ", _ subfields: [MARCSubfield]) -> MARCField {
        MARCField(tag: tag, value: nil, indicator1: ind1, indicator2: ind2, subfields: subfields)
    }

    public var isControl: Bool { value != nil }
    public subscript(code: Character) -> String? { subfields.first { $0.code == code }?.value }
    public func all(_ code: Character) -> [String] { subfields.filter { $0.code == code }.map(\.value) }
}

public struct MARCSubfield: Sendable, Equatable {
    public var code: Character
    public var value: String
    public init(_ code: Character, _ value: String) {
        self.code = code
        self.value = value
    }
}

/// Why a record could not be read. The reader goes on with the next record.
public enum MARCError: Error, Sendable, Equatable, CustomStringConvertible {
    case badLeader(String)
    case badDirectory(String)
    case fieldOutOfBounds(tag: String)
    case unsupportedCharacterSet(String)
    case notMARC21(String)
    case xml(line: Int, String)

    public var description: String {
        switch self {
        case .badLeader(let why): "the leader is not MARC 21: \(why)"
        case .badDirectory(let why): "the directory is broken: \(why)"
        case .fieldOutOfBounds(let tag): "field \(tag) points past the end of the record"
        case .unsupportedCharacterSet(let set):
            "it uses the MARC-8 \(set) character set, which Shelfmark does not convert; export it as UTF-8 (MARC leader position 9 = a) or MARCXML"
        case .notMARC21(let why): "not a MARC 21 bibliographic record: \(why)"
        case .xml(let line, let why): "XML error at line \(line): \(why)"
        }
    }
}

/// Reads MARC 21 "binary" (ISO 2709) records one by one: leader, directory, fields. Records are
/// ended by 0x1D; a damaged record is reported and reading goes on with the next one. Text is UTF-8
/// when the leader says so (position 9 = a) or when the bytes are valid UTF-8, else MARC-8 (ANSEL).
public struct MARC21Reader: Sequence, IteratorProtocol {
    public struct Item: Sendable {
        /// 1-based position of the record in the file.
        public var number: Int
        public var result: Result<MARCRecord, MARCError>
    }

    private let bytes: [UInt8]
    private var offset = 0
    private var number = 0

    public init(_ data: Data) {
        bytes = [UInt8](data)
    }

    /// The file starts like a MARC 21 record: five digits of length and the fixed "22" of the leader.
    public static func looksLikeMARC(_ data: Data) -> Bool {
        let head = [UInt8](data.prefix(24))
        guard head.count == 24 else { return false }
        return head[0..<5].allSatisfy { (0x30...0x39).contains($0) } && head[10] == 0x32 && head[11] == 0x32
            && data.contains(0x1E)
    }

    public mutating func next() -> Item? {
        // Skip line breaks and padding some tools put between records.
        while offset < bytes.count, bytes[offset] == 0x0A || bytes[offset] == 0x0D || bytes[offset] == 0x20 || bytes[offset] == 0x00 { offset += 1 }
        guard offset < bytes.count else { return nil }
        number += 1
        let start = offset
        // The record ends at the length the leader gives when that byte is the terminator, else at the next terminator.
        var end: Int
        if start + 5 <= bytes.count, let length = Int(String(decoding: bytes[start..<start + 5], as: UTF8.self)), length >= 24,
           start + length <= bytes.count, bytes[start + length - 1] == 0x1D {
            end = start + length
        } else {
            end = bytes[start...].firstIndex(of: 0x1D).map { $0 + 1 } ?? bytes.count
        }
        offset = end
        if end > start, bytes[end - 1] == 0x1D { end -= 1 }
        return Item(number: number, result: Self.parse(Array(bytes[start..<end])))
    }

    static func parse(_ record: [UInt8]) -> Result<MARCRecord, MARCError> {
        guard record.count >= 25 else { return .failure(.badLeader("the record is \(record.count) bytes long")) }
        let leaderBytes = record[0..<24]
        guard leaderBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return .failure(.badLeader("it holds control characters")) }
        var leader = String(decoding: leaderBytes, as: UTF8.self)
        guard let base = Int(String(decoding: record[12..<17], as: UTF8.self)), base > 24, base <= record.count else {
            return .failure(.badLeader("the base address of data “\(String(decoding: record[12..<17], as: UTF8.self))” is not usable"))
        }
        guard let directoryEnd = record[24..<base].firstIndex(of: 0x1E) else {
            return .failure(.badDirectory("it has no end mark"))
        }
        let directory = record[24..<directoryEnd]
        guard directory.count % 12 == 0 else { return .failure(.badDirectory("its length \(directory.count) is not a multiple of 12")) }
        let declaredUTF8 = leaderBytes[leaderBytes.startIndex + 9] == UInt8(ascii: "a")
        let data = record[base...]
        // Text encoding: as declared; a record that says MARC-8 but is valid UTF-8 with non-ASCII bytes is UTF-8.
        let utf8 = declaredUTF8 || (data.contains { $0 >= 0x80 } && String(validating: data, as: UTF8.self) != nil)
        func text<C: Collection>(_ raw: C) throws(MARCError) -> String where C.Element == UInt8 {
            if utf8 { return String(decoding: raw, as: UTF8.self) }
            return try MARC8.decode(Array(raw))
        }
        var fields: [MARCField] = []
        var i = directory.startIndex
        do throws(MARCError) {
            while i < directory.endIndex {
                let entry = directory[i..<i + 12]
                i += 12
                let tag = String(decoding: entry.prefix(3), as: UTF8.self)
                guard let length = Int(String(decoding: entry.dropFirst(3).prefix(4), as: UTF8.self)),
                      let start = Int(String(decoding: entry.dropFirst(7), as: UTF8.self)) else {
                    throw .badDirectory("the entry for field \(tag) has no numeric length and position")
                }
                let from = base + start, to = from + length
                guard length > 0, to <= record.count else { throw .fieldOutOfBounds(tag: tag) }
                var body = record[from..<to]
                if body.last == 0x1E { body = body.dropLast() }
                if tag.hasPrefix("00"), tag.count == 3 {
                    fields.append(.control(tag, try text(body)))
                    continue
                }
                guard body.count >= 2 else { fields.append(.data(tag, " ", " ", [])); continue }
                let ind1 = Character(Unicode.Scalar(body[body.startIndex]))
                let ind2 = Character(Unicode.Scalar(body[body.startIndex + 1]))
                var subfields: [MARCSubfield] = []
                for chunk in body.dropFirst(2).split(separator: 0x1F, omittingEmptySubsequences: true) {
                    guard let code = chunk.first, code >= 0x20, code < 0x7F else { continue }
                    subfields.append(MARCSubfield(Character(Unicode.Scalar(code)), try text(chunk.dropFirst())))
                }
                fields.append(.data(tag, ind1.isASCII ? ind1 : " ", ind2.isASCII ? ind2 : " ", subfields))
            }
        } catch {
            return .failure(error)
        }
        if !utf8 {
            // What we hand on is Unicode.
            leader = String(leader.prefix(9)) + "a" + String(leader.dropFirst(10))
        }
        return .success(MARCRecord(leader: leader, fields: fields))
    }
}

/// MARC-8 to Unicode for the Latin character sets (ASCII and ANSEL, with its combining marks written
/// before the letter they sit on). Records that switch to other scripts are refused, not mangled.
enum MARC8 {
    static let special: [UInt8: UInt32] = [
        0x88: 0x98, 0x89: 0x9C, 0x8D: 0x200D, 0x8E: 0x200C,
        0xA1: 0x0141, 0xA2: 0x00D8, 0xA3: 0x0110, 0xA4: 0x00DE, 0xA5: 0x00C6, 0xA6: 0x0152, 0xA7: 0x02B9, 0xA8: 0x00B7,
        0xA9: 0x266D, 0xAA: 0x00AE, 0xAB: 0x00B1, 0xAC: 0x01A0, 0xAD: 0x01AF, 0xAE: 0x02BC, 0xB0: 0x02BB, 0xB1: 0x0142,
        0xB2: 0x00F8, 0xB3: 0x0111, 0xB4: 0x00FE, 0xB5: 0x00E6, 0xB6: 0x0153, 0xB7: 0x02BA, 0xB8: 0x0131, 0xB9: 0x00A3,
        0xBA: 0x00F0, 0xBC: 0x01A1, 0xBD: 0x01B0, 0xC0: 0x00B0, 0xC1: 0x2113, 0xC2: 0x2117, 0xC3: 0x00A9, 0xC4: 0x266F,
        0xC5: 0x00BF, 0xC6: 0x00A1, 0xC7: 0x00DF, 0xC8: 0x20AC,
    ]
    static let combining: [UInt8: UInt32] = [
        0xE0: 0x0309, 0xE1: 0x0300, 0xE2: 0x0301, 0xE3: 0x0302, 0xE4: 0x0303, 0xE5: 0x0304, 0xE6: 0x0306, 0xE7: 0x0307,
        0xE8: 0x0308, 0xE9: 0x030C, 0xEA: 0x030A, 0xEB: 0xFE20, 0xEC: 0xFE21, 0xED: 0x0315, 0xEE: 0x030B, 0xEF: 0x0310,
        0xF0: 0x0327, 0xF1: 0x0328, 0xF2: 0x0323, 0xF3: 0x0324, 0xF4: 0x0325, 0xF5: 0x0333, 0xF6: 0x0332, 0xF7: 0x0326,
        0xF8: 0x031C, 0xF9: 0x032E, 0xFA: 0xFE22, 0xFB: 0xFE23, 0xFE: 0x0313,
    ]
    static let sets: [UInt8: String] = [
        0x32: "Hebrew", 0x4E: "Cyrillic", 0x51: "Cyrillic", 0x53: "Greek", 0x33: "Arabic", 0x34: "Arabic", 0x31: "CJK (EACC)",
        0x67: "Greek symbols", 0x62: "subscript", 0x70: "superscript",
    ]

    static func decode(_ bytes: [UInt8]) throws(MARCError) -> String {
        var out = String.UnicodeScalarView()
        var pendingMarks: [Unicode.Scalar] = []
        var i = 0
        func emit(_ value: UInt32) {
            guard let scalar = Unicode.Scalar(value) else { return }
            out.append(scalar)
            out.append(contentsOf: pendingMarks)
            pendingMarks.removeAll()
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B {
                // ESC ( B, ESC s: back to ASCII; ESC ( E / ESC ) E / ESC ) !E: ANSEL. Anything else: another script.
                var j = i + 1
                var intermediates: [UInt8] = []
                while j < bytes.count, [0x28, 0x29, 0x2C, 0x2D, 0x24, 0x21].contains(bytes[j]) { intermediates.append(bytes[j]); j += 1 }
                guard j < bytes.count else { break }
                let final = bytes[j]
                if final == 0x42 || final == 0x73 || final == 0x45 {
                    i = j + 1
                    continue
                }
                throw .unsupportedCharacterSet(sets[final] ?? "0x\(String(final, radix: 16)) escape")
            }
            if b < 0x80 {
                if b >= 0x20 || b == 0x0A || b == 0x09 { emit(UInt32(b)) }
            } else if let mark = combining[b] {
                pendingMarks.append(Unicode.Scalar(mark)!)
            } else if let value = special[b] {
                if value == 0x98 || value == 0x9C { i += 1; continue }  // non-sort marks: dropped
                emit(value)
            } else {
                emit(0xFFFD)
            }
            i += 1
        }
        out.append(contentsOf: pendingMarks)
        return String(out).precomposedStringWithCanonicalMapping
    }
}

/// Writes MARC 21 records as ISO 2709 in UTF-8 (leader position 9 = a).
public enum MARC21Writer {
    public static func data(_ record: MARCRecord) -> Data {
        var directory: [UInt8] = []
        var body: [UInt8] = []
        for field in record.fields {
            var bytes: [UInt8] = []
            if let value = field.value {
                bytes += Array(value.utf8)
            } else {
                bytes += Array(String(field.indicator1).utf8.prefix(1)) + Array(String(field.indicator2).utf8.prefix(1))
                for sub in field.subfields {
                    bytes.append(0x1F)
                    bytes += Array(String(sub.code).utf8.prefix(1))
                    bytes += Array(sub.value.utf8)
                }
            }
            bytes.append(0x1E)
            directory += Array(field.tag.utf8.prefix(3))
            directory += MARC21Writer.digits(bytes.count, 4) + MARC21Writer.digits(body.count, 5)
            body += bytes
        }
        directory.append(0x1E)
        let base = 24 + directory.count
        let length = base + body.count + 1
        var leader = Array(record.leader.utf8.prefix(24))
        while leader.count < 24 { leader.append(0x20) }
        leader.replaceSubrange(0..<5, with: MARC21Writer.digits(min(length, 99_999), 5))
        leader[9] = UInt8(ascii: "a")
        leader[10] = UInt8(ascii: "2")
        leader[11] = UInt8(ascii: "2")
        leader.replaceSubrange(12..<17, with: MARC21Writer.digits(base, 5))
        leader.replaceSubrange(20..<24, with: Array("4500".utf8))
        return Data(leader + directory + body + [0x1D])
    }

    /// `value` as exactly `width` ASCII digits, zero-padded on the left (as `%0*d`; the leader and
    /// directory never hold more: lengths are capped before they get here).
    static func digits(_ value: Int, _ width: Int) -> [UInt8] {
        var out = [UInt8](repeating: UInt8(ascii: "0"), count: width)
        var v = max(0, value)
        var i = width - 1
        while v > 0, i >= 0 {
            out[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            i -= 1
        }
        return out
    }
}

/// MARCXML (the Library of Congress MARC21 slim schema), in and out.
public enum MARCXML {
    public static let namespace = "http://www.loc.gov/MARC21/slim"

    public static func looksLikeMARCXML(_ text: Substring) -> Bool {
        let head = text.prefix(2_000)
        return head.hasPrefix("<") && (head.contains("<record") || head.contains(":record") || head.contains("MARC21/slim"))
    }

    public static func header() -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<collection xmlns=\"\(namespace)\">\n"
    }
    public static let footer = "</collection>\n"

    public static func record(_ record: MARCRecord) -> String {
        var out = "<record>\n  <leader>\(escape(record.leader))</leader>\n"
        for field in record.fields {
            if let value = field.value {
                out += "  <controlfield tag=\"\(escape(field.tag))\">\(escape(value))</controlfield>\n"
            } else {
                out += "  <datafield tag=\"\(escape(field.tag))\" ind1=\"\(escape(String(field.indicator1)))\" ind2=\"\(escape(String(field.indicator2)))\">\n"
                for sub in field.subfields {
                    out += "    <subfield code=\"\(escape(String(sub.code)))\">\(escape(sub.value))</subfield>\n"
                }
                out += "  </datafield>\n"
            }
        }
        return out + "</record>\n"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\r": out += "&#13;"
            default:
                // XML 1.0 has no place for other control characters.
                if c.value < 0x20 && c != "\n" && c != "\t" { continue }
                out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
