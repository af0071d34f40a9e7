import Foundation
import NIOCore
import NIOPosix
import ShelfmarkCore

/// Where this machine can be reached: its host name and the addresses of its network interfaces.
/// What the server certificate covers, what `serve` prints and what the overview's QR code holds.
public enum NetworkAddresses {
    /// The machine's host name, and its mDNS name (`name.local`, what phones resolve on a school's
    /// Wi-Fi without a DNS server), and localhost.
    public static func names() -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        var names: [String] = []
        if gethostname(&buffer, buffer.count) == 0 {
            let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if !host.isEmpty, host != "localhost" {
                names.append(host)
                if !host.contains(".") { names.append(host + ".local") }
            }
        }
        names.append("localhost")
        return names
    }

    /// Addresses of the interfaces that are up: LAN first (IPv4, then IPv6 that is not link-local),
    /// loopback last.
    public static func addresses() -> [String] {
        var lan4: [String] = [], lan6: [String] = []
        for device in (try? System.enumerateDevices()) ?? [] {
            guard let address = device.address, let ip = address.ipAddress else { continue }
            switch address {
            case .v4:
                if !isLoopback(ip) { lan4.append(ip) }
            case .v6:
                if !isLoopback(ip), !ip.lowercased().hasPrefix("fe80") { lan6.append(ip) }
            default: break
            }
        }
        var seen = Set<String>()
        return (lan4 + lan6 + ["127.0.0.1", "::1"]).filter { seen.insert($0).inserted }
    }

    /// Whether a host name or an address is this machine's own loopback (127.x, ::1, an IPv4-mapped
    /// 127.x, localhost): what no other device reaches. Decided on the parsed host (`HostName`).
    public static func isLoopback(_ host: String) -> Bool {
        HostName(parsing: host)?.isLoopback ?? false
    }

    /// Whether `host` (a `Host` header's value) names this machine exactly: loopback, one of its
    /// interfaces' addresses, its host name or `name.local`. Never by a prefix of the text.
    public static func isThisMachine(_ host: HostName) -> Bool {
        if host.isLoopback { return true }
        let own = (names() + addresses()).compactMap { HostName(parsing: $0, allowPort: false) }
        return own.contains { $0.sameHost(host) }
    }

    /// "https://192.168.1.20:8443", with brackets for IPv6 and no port when it is the scheme's own.
    public static func url(scheme: String, host: String, port: Int) -> String {
        let h = host.contains(":") ? "[\(host)]" : host
        let defaultPort = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        return "\(scheme)://\(h)\(defaultPort ? "" : ":\(port)")"
    }
}
