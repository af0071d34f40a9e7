/// A check run on a multipart/form-data body before it reaches the multipart parser: MultipartKit
/// 4.7.1 looks each byte of a part's header name up in a 128-entry table, so a byte ≥ 0x80 where a
/// header name is expected crashes the process (found by the fuzzer: one request ended the server).
/// Header names are ASCII tokens (RFC 7230); a body with anything else there is refused as malformed.
/// Header values (a filename in UTF-8) are not affected.
public enum MultipartCheck {
    /// Whether every header line of every part has an ASCII name (the bytes before its `:`, or the
    /// whole line when it has none).
    public static func headerNamesAreASCII(_ body: some Collection<UInt8>, boundary: String) -> Bool {
        let bytes = Array(body)
        let delimiter = Array(("--" + boundary).utf8)
        guard !delimiter.isEmpty, delimiter.count > 2 else { return false }
        var i = 0
        while let found = find(delimiter, in: bytes, from: i) {
            var p = found + delimiter.count
            if p + 1 < bytes.count, bytes[p] == 0x2D, bytes[p + 1] == 0x2D { i = p + 2; continue }  // closing delimiter
            // The rest of the delimiter line (transport padding), then header lines up to an empty one.
            while p < bytes.count, bytes[p] != 0x0A {
                if bytes[p] >= 0x80 { return false }
                p += 1
            }
            p += 1
            while p < bytes.count {
                var end = p
                while end < bytes.count, bytes[end] != 0x0A { end += 1 }
                var line = bytes[p..<end]
                if line.last == 0x0D { line = line.dropLast() }
                if line.isEmpty { break }  // end of this part's headers
                let name = line.prefix { $0 != 0x3A }
                if name.contains(where: { $0 >= 0x80 }) { return false }
                p = end + 1
            }
            i = p
        }
        return true
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard needle.count <= haystack.count, start <= haystack.count - needle.count else { return nil }
        var i = start
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
