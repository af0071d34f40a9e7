/// Which network addresses the server may fetch from on a user's behalf (SSRF defence): only public
/// unicast ones. Loopback, private, carrier-grade NAT, link-local (cloud metadata at 169.254.169.254),
/// documentation, multicast and reserved ranges are refused, in IPv4 and IPv6, including IPv4 addresses
/// wrapped in IPv6 (mapped, compatible, NAT64, 6to4).
public enum AddressPolicy {
    /// `bytes` is an address in network order: 4 bytes (IPv4) or 16 (IPv6).
    public static func isPublic(_ bytes: [UInt8]) -> Bool {
        switch bytes.count {
        case 4: return isPublicV4(bytes)
        case 16: return isPublicV6(bytes)
        default: return false
        }
    }

    /// An address written as text ("10.0.0.1", "::1", "[fe80::1]"); `nil` when it is not an IP address.
    public static func parse(_ text: String) -> [UInt8]? {
        var s = Substring(text)
        if s.hasPrefix("["), s.hasSuffix("]") { s = s.dropFirst().dropLast() }
        if let zone = s.firstIndex(of: "%") { s = s[..<zone] }
        if let v4 = parseV4(s) { return v4 }
        return parseV6(s)
    }

    static func isPublicV4(_ b: [UInt8]) -> Bool {
        let (a, c) = (b[0], b[1])
        switch a {
        case 0, 10, 127: return false                       // this network, private, loopback
        case 100 where (64...127).contains(c): return false // carrier-grade NAT
        case 169 where c == 254: return false               // link-local, cloud metadata
        case 172 where (16...31).contains(c): return false  // private
        case 192 where c == 168: return false               // private
        case 192 where c == 0 && b[2] == 0: return false    // IETF protocol assignments
        case 192 where c == 0 && b[2] == 2: return false    // documentation
        case 198 where c == 18 || c == 19: return false     // benchmarking
        case 198 where c == 51 && b[2] == 100: return false // documentation
        case 203 where c == 0 && b[2] == 113: return false  // documentation
        case 224...255: return false                        // multicast, reserved, broadcast
        default: return true
        }
    }

    static func isPublicV6(_ b: [UInt8]) -> Bool {
        let first10 = b[0..<10].allSatisfy { $0 == 0 }
        if first10, b[10] == 0xFF, b[11] == 0xFF { return isPublicV4(Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if b[0..<12].allSatisfy({ $0 == 0 }) { return false }                             // ::, ::1, ::a.b.c.d
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B { return isPublicV4(Array(b[12..<16])) } // 64:ff9b::/96
        if b[0] == 0x20, b[1] == 0x02 { return isPublicV4(Array(b[2..<6])) }              // 6to4
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return false }        // documentation
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x00, b[3] == 0x00 { return false }        // Teredo
        if b[0] == 0x01, b[1] == 0x00, b[2..<8].allSatisfy({ $0 == 0 }) { return false }  // discard prefix
        if b[0] & 0xFE == 0xFC { return false }                                            // unique local
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return false }                              // link-local
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return false }                              // site-local (deprecated)
        if b[0] == 0xFF { return false }                                                   // multicast
        return true
    }

    static func parseV4(_ s: Substring) -> [UInt8]? {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for p in parts {
            guard !p.isEmpty, p.count <= 3, p.allSatisfy(\.isASCII), let n = UInt8(p) else { return nil }
            out.append(n)
        }
        return out
    }

    static func parseV6(_ s: Substring) -> [UInt8]? {
        guard s.contains(":"), s.count <= 45 else { return nil }
        var text = s
        var tail: [UInt8] = []
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let v4 = parseV4(text[text.index(after: lastColon)...]) else { return nil }
            tail = v4
            text = text[...lastColon]
            if text.hasSuffix(":") && !text.hasSuffix("::") { text = text.dropLast() }
        }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var out: [UInt16] = []
            for g in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard !g.isEmpty, g.count <= 4, let n = UInt16(g, radix: 16) else { return nil }
                out.append(n)
            }
            return out
        }
        let wanted = (16 - tail.count) / 2
        var words: [UInt16]
        if let range = text.range(of: "::") {
            guard let head = groups(text[..<range.lowerBound]), let rest = groups(text[range.upperBound...]),
                  head.count + rest.count < wanted else { return nil }
            words = head + Array(repeating: 0, count: wanted - head.count - rest.count) + rest
        } else {
            guard let all = groups(text), all.count == wanted else { return nil }
            words = all
        }
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + tail
    }
}

/// A cover URL as a user, an import file or a backup may give it: a stored cover of this server
/// (`/api/v1/covers/<id>`) or an `http(s)://` address with a host. Any other scheme (`javascript:`,
/// `data:`, `file:`) is refused, so the value is safe to put into `src` and `href` attributes.
public enum CoverURL {
    public static let maxLength = 2_000
    public static let localPrefix = "/api/v1/covers/"

    public enum Problem: Error, Equatable, Sendable { case tooLong, notHTTP }

    /// The cleaned URL, `nil` for blank input.
    public static func validate(_ raw: String?) throws(Problem) -> String? {
        guard let text = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.utf8.count <= maxLength else { throw .tooLong }
        if text.hasPrefix(localPrefix) {
            let id = text.dropFirst(localPrefix.count)
            guard id.count == 36, id.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw .notHTTP }
            return text
        }
        guard let schemeEnd = text.range(of: "://") else { throw .notHTTP }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { throw .notHTTP }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@").last.map { $0.split(separator: ":").first ?? "" } ?? ""
        guard !host.isEmpty || authority.hasPrefix("[") else { throw .notHTTP }
        guard !text.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "<" || $0 == ">" || $0 == "\\" }) else { throw .notHTTP }
        return text
    }
}
