/// A host as a `Host` header, a URL or a setting names it: a DNS name, an IPv4 address or an IPv6
/// address (in brackets when a port follows), with an optional port. The one parser for every place
/// that decides something by a host (whether it is this machine, whether it is private), so that
/// `127.evil.example` is a name like any other and never "an address starting with 127".
public struct HostName: Sendable, Hashable, CustomStringConvertible {
    /// The name in lower case, or the address as written (without brackets).
    public let name: String
    /// The address in network order (4 or 16 bytes) when the host is an IP literal.
    public let address: [UInt8]?
    public let port: Int?

    public static let maxLength = 253

    /// `nil` when `text` is not a host: empty, too long, a label that is not letters, digits and
    /// hyphens, a bracket that is not around an IPv6 address, a port that is not 1…65535.
    public init?(parsing text: String, allowPort: Bool = true) {
        guard !text.isEmpty, text.utf8.count <= Self.maxLength + 48, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F }) else { return nil }
        var host = Substring(text), portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                portText = rest.dropFirst()
            }
            host = host[host.index(after: host.startIndex)..<close]
            guard host.contains(":"), let bytes = AddressPolicy.parseV6(host) else { return nil }
            self.init(name: String(host).lowercased(), address: bytes, portText: portText, allowPort: allowPort)
            return
        }
        let colons = host.filter { $0 == ":" }.count
        if colons > 1 {
            // A bare IPv6 address (a socket's peer, a setting): no port can follow without brackets.
            guard let bytes = AddressPolicy.parseV6(host) else { return nil }
            self.init(name: String(host).lowercased(), address: bytes, portText: nil, allowPort: allowPort)
            return
        }
        if colons == 1, let colon = host.firstIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        if let v4 = AddressPolicy.parseV4(host) {
            self.init(name: String(host), address: v4, portText: portText, allowPort: allowPort)
            return
        }
        var lower = host.lowercased()
        if lower.hasSuffix(".") { lower.removeLast() }   // the root's dot: "localhost." is localhost
        guard Self.isDNSName(lower) else { return nil }
        self.init(name: lower, address: nil, portText: portText, allowPort: allowPort)
    }

    private init?(name: String, address: [UInt8]?, portText: Substring?, allowPort: Bool) {
        var port: Int?
        if let portText {
            guard allowPort, !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(portText), (1...65_535).contains(n) else { return nil }
            port = n
        }
        self.name = name
        self.address = address
        self.port = port
    }

    /// Letters, digits and hyphens in labels of 1…63, no label starting or ending with a hyphen, and a
    /// name that is not all digits and dots (that would be a malformed address, not a name).
    static func isDNSName(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= maxLength else { return false }
        let labels = s.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.utf8.count), label.utf8.allSatisfy({ ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }),
                  label.first != "-", label.last != "-" else { return false }
        }
        return !s.allSatisfy { $0.isNumber || $0 == "." }
    }

    /// This machine's loopback, whoever asks: `localhost` (and names under `.localhost`, RFC 6761),
    /// 127.0.0.0/8, ::1 and an IPv4-mapped 127.x. Decided on the parsed value, never on a prefix of text.
    public var isLoopback: Bool {
        if let a = address {
            if a.count == 4 { return a[0] == 127 }
            if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return true }
            if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xFF && a[11] == 0xFF { return a[12] == 127 }
            return false
        }
        return name == "localhost" || name.hasSuffix(".localhost")
    }

    /// An address no other network routes to: loopback, private, link-local and the like (what only the
    /// installation's administrator may point a mail server at). A name is not decided here: what it
    /// resolves to is checked when it is used.
    public var isPrivateAddress: Bool {
        if isLoopback { return true }
        guard let address else { return false }
        return !AddressPolicy.isPublic(address)
    }

    /// Whether two hosts are the same machine's name or address (ports aside): addresses by their bytes.
    public func sameHost(_ other: HostName) -> Bool {
        if let a = address, let b = other.address { return a == b }
        return address == nil && other.address == nil && name == other.name
    }

    /// The host as a URL writes it: brackets around IPv6, the port when there is one.
    public var description: String {
        let host = address?.count == 16 ? "[\(name)]" : name
        return port.map { "\(host):\($0)" } ?? host
    }
}
