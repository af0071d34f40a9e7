/// A JSON array of strings (`["Ann Lee","Bo"]`), as the SQLite driver stores `[String]` columns,
/// read and written without a JSONDecoder or JSONEncoder: an export reads one per row and an import
/// writes one per row, and Foundation's coders cost more than the database work.
public enum JSONStringArray {
    /// The strings as compact JSON text: `"` and `\` escaped, control characters as `\n`, `\t`
    /// … or `\u00XX`, everything else (including `/` and non-ASCII) as it is. `JSONDecoder` and
    /// `parse` read it back to the same strings.
    public static func encode(_ strings: [String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(strings.reduce(2) { $0 + $1.utf8.count + 3 })
        let hex = Array("0123456789abcdef".utf8)
        for (k, string) in strings.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            for b in string.utf8 {
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\")); out.append(b)
                case 0x0A: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "t"))
                case 0..<0x20:
                    out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
                default: out.append(b)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The strings, or nil when the text is not a JSON array of strings (the caller may then fall
    /// back to a full decoder). Escapes are honoured: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
    /// `\t` and `\uXXXX`, including surrogate pairs.
    public static func parse(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var i = 0
        let n = bytes.count
        func skipSpace() { while i < n, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 } }
        skipSpace()
        guard i < n, bytes[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        var out: [String] = []
        skipSpace()
        if i < n, bytes[i] == UInt8(ascii: "]") {
            i += 1
            skipSpace()
            return i == n ? out : nil
        }
        while true {
            skipSpace()
            guard i < n, bytes[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            let start = i
            var plain = true
            while i < n, bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") { plain = false; i += 2 } else if bytes[i] < 0x20 { return nil } else { i += 1 }
            }
            guard i < n else { return nil }
            if plain {
                out.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self))
            } else {
                guard let s = unescape(UnsafeBufferPointer(rebasing: bytes[start..<i])) else { return nil }
                out.append(s)
            }
            i += 1
            skipSpace()
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "]") else { return nil }
            i += 1
            skipSpace()
            return i == n ? out : nil
        }
    }

    private static func unescape(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        var scalars = String.UnicodeScalarView()
        var bytes: [UInt8] = []
        func flush() {
            if !bytes.isEmpty { scalars.append(contentsOf: String(decoding: bytes, as: UTF8.self).unicodeScalars); bytes.removeAll() }
        }
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for k in at..<at + 4 {
                let c = b[k]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        var i = 0
        while i < b.count {
            let c = b[i]
            guard c == UInt8(ascii: "\\") else { bytes.append(c); i += 1; continue }
            guard i + 1 < b.count else { return nil }
            let e = b[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(e)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                guard var v = hex4(i) else { return nil }
                i += 4
                if (0xD800..<0xDC00).contains(v) {
                    // A high surrogate must be followed by an escaped low one.
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u"),
                          let low = hex4(i + 2), (0xDC00..<0xE000).contains(low) else { return nil }
                    i += 6
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(v) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(v) else { return nil }
                flush()
                scalars.append(scalar)
            default: return nil
            }
        }
        flush()
        return String(scalars)
    }
}
