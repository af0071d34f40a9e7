import Foundation
import NIOCore
import SQLiteNIO

extension DatabaseMove {
    /// A column's type on PostgreSQL as the move reads and writes it. SQLite keeps a value in whatever
    /// storage class it was written with (a UUID as text or a blob, a time as a number or text, an
    /// array as JSON text); PostgreSQL's type says what it means.
    enum Kind: Sendable, Equatable {
        case uuid, bool, timestamp, integer, double, bytes, texts, text

        init(udt: String) {
            switch udt {
            case "uuid": self = .uuid
            case "bool": self = .bool
            case "timestamptz", "timestamp": self = .timestamp
            case "int2", "int4", "int8": self = .integer
            case "float4", "float8": self = .double
            case "bytea": self = .bytes
            case "_text", "_varchar": self = .texts
            default: self = .text
            }
        }

        /// The column as PostgreSQL gives it back for `Value(postgres:kind:)`: text the move can read
        /// without PostgreSQL's output settings in the way (time as microseconds, bytes as hex).
        func postgresText(_ column: String) -> String {
            let c = "\"" + column.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return switch self {
            case .uuid, .integer, .double, .text: "\(c)::text"
            case .bool: "CASE WHEN \(c) THEN 't' WHEN NOT \(c) THEN 'f' END"
            case .timestamp: "(extract(epoch FROM \(c)) * 1000000)::bigint::text"
            case .bytes: "encode(\(c), 'hex')"
            case .texts: "array_to_json(\(c))::text"
            }
        }
    }

    /// One value as it means on both databases, so a row read from each compares equal when it is.
    enum Value: Sendable, Equatable {
        case null
        case uuid(UUID)
        case bool(Bool)
        /// A time, in microseconds since 1970 (PostgreSQL keeps microseconds).
        case micros(Int64)
        case integer(Int64)
        case double(Double)
        case bytes([UInt8])
        case texts([String])
        case text(String)

        /// Why a value cannot go into its column.
        struct Unfit: Error { let reason: String }

        /// SQLite's stored value read as the column's type on PostgreSQL.
        init(sqlite data: SQLiteData, kind: Kind) throws {
            if case .null = data { self = .null; return }
            switch kind {
            case .uuid:
                switch data {
                case .blob(let buffer) where buffer.readableBytes == 16:
                    let b = Array(buffer.readableBytesView)
                    self = .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
                case .text(let text):
                    guard let id = UUID(uuidString: text) else { throw Unfit(reason: "“\(text.prefix(40))” is not a UUID") }
                    self = .uuid(id)
                default: throw Unfit(reason: "\(data) is not a UUID")
                }
            case .bool:
                switch data {
                case .integer(let i): self = .bool(i != 0)
                case .float(let d): self = .bool(d != 0)
                case .text(let t) where ["1", "t", "true"].contains(t.lowercased()): self = .bool(true)
                case .text(let t) where ["0", "f", "false"].contains(t.lowercased()): self = .bool(false)
                default: throw Unfit(reason: "\(data) is not true or false")
                }
            case .timestamp:
                guard let date = Date(sqliteData: data) else { throw Unfit(reason: "\(data) is not a time") }
                let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
                guard micros.isFinite, abs(micros) < 9.2e18 else { throw Unfit(reason: "\(data) is not a time PostgreSQL can keep") }
                self = .micros(Int64(micros))
            case .integer:
                switch data {
                case .integer(let i): self = .integer(Int64(i))
                case .float(let d) where d.rounded() == d && abs(d) < 9.2e18: self = .integer(Int64(d))
                case .text(let t) where Int64(t) != nil: self = .integer(Int64(t)!)
                default: throw Unfit(reason: "\(data) is not a whole number")
                }
            case .double:
                switch data {
                case .integer(let i): self = .double(Double(i))
                case .float(let d): self = .double(d)
                case .text(let t) where Double(t) != nil: self = .double(Double(t)!)
                default: throw Unfit(reason: "\(data) is not a number")
                }
            case .bytes:
                switch data {
                case .blob(let buffer): self = .bytes(Array(buffer.readableBytesView))
                case .text(let t): self = .bytes(Array(t.utf8))
                default: throw Unfit(reason: "\(data) is not bytes")
                }
            case .texts:
                let json: [UInt8]
                switch data {
                case .text(let t): json = Array(t.utf8)
                case .blob(let buffer): json = Array(buffer.readableBytesView)
                default: throw Unfit(reason: "\(data) is not a list of texts")
                }
                guard let texts = try? JSONDecoder().decode([String].self, from: Data(json)) else {
                    throw Unfit(reason: "“\(String(decoding: json.prefix(40), as: UTF8.self))” is not a list of texts")
                }
                self = .texts(texts)
            case .text:
                switch data {
                case .text(let t): self = .text(t)
                case .integer(let i): self = .text(String(i))
                case .float(let d): self = .text(String(d))
                case .blob(let buffer):
                    guard let text = String(validating: Array(buffer.readableBytesView), as: UTF8.self) else { throw Unfit(reason: "bytes that are not text") }
                    self = .text(text)
                case .null: self = .null
                }
            }
            if let text = textContent, text.contains("\u{0}") {
                throw Unfit(reason: "its text holds a NUL character, which PostgreSQL's text cannot")
            }
        }

        /// PostgreSQL's answer to `Kind.postgresText`.
        init(postgres text: String?, kind: Kind) throws {
            guard let text else { self = .null; return }
            let value: Value? = switch kind {
            case .uuid: UUID(uuidString: text).map(Value.uuid)
            case .bool: text == "t" ? .bool(true) : text == "f" ? .bool(false) : nil
            case .timestamp: Int64(text).map(Value.micros)
            case .integer: Int64(text).map(Value.integer)
            case .double: Double(text).map(Value.double)
            case .bytes: Self.hex(text).map(Value.bytes)
            case .texts: (try? JSONDecoder().decode([String].self, from: Data(text.utf8))).map(Value.texts)
            case .text: .text(text)
            }
            guard let value else { throw Unfit(reason: "PostgreSQL answered “\(text.prefix(40))” for a \(kind)") }
            self = value
        }

        private var textContent: String? {
            switch self {
            case .text(let t): t
            case .texts(let all): all.joined()
            default: nil
            }
        }

        private static func hex(_ text: String) -> [UInt8]? {
            let digits = Array(text.utf8)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            var i = 0
            while i < digits.count {
                guard let byte = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(byte)
                i += 2
            }
            return bytes
        }

        /// The value as a field of `COPY … FROM STDIN` in text format: `\N` for NULL, backslash escapes.
        var copyField: String {
            switch self {
            case .null: return "\\N"
            case .uuid(let id): return id.uuidString.lowercased()
            case .bool(let b): return b ? "t" : "f"
            case .micros(let micros): return Self.timestamp(micros)
            case .integer(let i): return String(i)
            case .double(let d):
                if d.isNaN { return "NaN" }
                if d.isInfinite { return d > 0 ? "Infinity" : "-Infinity" }
                return String(d)
            case .bytes(let bytes):
                // `\\x…`: COPY reads `\\` as one backslash, and bytea reads `\x…` as hex.
                return "\\\\x" + bytes.map { String(format: "%02x", $0) }.joined()
            case .texts(let texts):
                let literal = "{" + texts.map { "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\"" }
                    .joined(separator: ",") + "}"
                return Self.escaped(literal)
            case .text(let t): return Self.escaped(t)
            }
        }

        static func escaped(_ text: String) -> String {
            guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
            var out = ""
            out.reserveCapacity(text.utf8.count + 8)
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\\": out += "\\\\"
                case "\t": out += "\\t"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }

        /// Microseconds since 1970 as PostgreSQL reads a `timestamptz` (UTC).
        static func timestamp(_ micros: Int64) -> String {
            let (seconds, fraction) = micros.quotientAndRemainder(dividingBy: 1_000_000)
            let (s, f) = fraction < 0 ? (seconds - 1, fraction + 1_000_000) : (seconds, fraction)
            var time = time_t(s)
            var parts = tm()
            gmtime_r(&time, &parts)
            let year = Int(parts.tm_year) + 1900
            // Years before 1 are written as PostgreSQL writes them (`BC`); a library's dates never are.
            let era = year <= 0 ? " BC" : ""
            return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%06d+00", year <= 0 ? 1 - year : year, parts.tm_mon + 1, parts.tm_mday,
                          parts.tm_hour, parts.tm_min, parts.tm_sec, Int(f)) + era
        }

        /// Feeds the value into a row's digest: a tag, then its content, so no two values read alike.
        func digest(into hash: inout UInt64) {
            func feed(_ bytes: some Sequence<UInt8>) { for b in bytes { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 } }
            func feed(_ number: UInt64) { withUnsafeBytes(of: number.littleEndian) { feed($0) } }
            switch self {
            case .null: feed([0])
            case .uuid(let id): feed([1]); withUnsafeBytes(of: id.uuid) { feed($0) }
            case .bool(let b): feed([2, b ? 1 : 0])
            case .micros(let m): feed([3]); feed(UInt64(bitPattern: m))
            case .integer(let i): feed([4]); feed(UInt64(bitPattern: i))
            case .double(let d): feed([5]); feed(d.isNaN ? Double.nan.bitPattern : (d == 0 ? 0 : d.bitPattern))
            case .bytes(let b): feed([6]); feed(UInt64(b.count)); feed(b)
            case .texts(let all): feed([7]); feed(UInt64(all.count)); for t in all { feed(UInt64(t.utf8.count)); feed(t.utf8) }
            case .text(let t): feed([8]); feed(UInt64(t.utf8.count)); feed(t.utf8)
            }
        }
    }

    /// A table's rows as one order-free fingerprint: how many, and the sum of each row's mixed hash
    /// (a row lost, added or changed anywhere changes it).
    struct Fingerprint: Sendable, Equatable {
        var rows = 0
        var sum: UInt64 = 0

        mutating func add(_ values: [Value]) {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for value in values { value.digest(into: &hash) }
            // splitmix64's finaliser: sums of FNV hashes alone mix too little.
            hash ^= hash >> 30; hash &*= 0xbf58_476d_1ce4_e5b9
            hash ^= hash >> 27; hash &*= 0x94d0_49bb_1331_11eb
            hash ^= hash >> 31
            rows += 1
            sum &+= hash
        }
    }
}
