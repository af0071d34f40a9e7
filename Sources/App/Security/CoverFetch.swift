import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import ShelfmarkCore
import ShelfmarkLookup
import Vapor
#if canImport(Glibc)
import Glibc
#endif

/// Where a cover URL came from, which decides what the server may fetch (SSRF defence).
enum CoverOrigin: Sendable {
    /// A provider's record: only the providers' own cover hosts are fetched.
    case provider
    /// Typed by a user or brought by an import: fetched only from public addresses.
    case user
}

/// Downloads cover images without letting a URL reach inside the network: every hop (redirects are
/// followed here, one at a time) is resolved and must be a public address, unless its host is one of
/// the configured provider endpoints (which the server's administrator chose). Bounded in size
/// (`CoverStore.maxBytes`), redirects (5) and time (10 s per request, 3 s to connect).
struct CoverFetcher: Sendable {
    let fetcher: HTTPFetcher
    /// Hosts of the configured provider endpoints, trusted as they are (a replay server on loopback in tests).
    let trustedHosts: Set<String>
    static let maxRedirects = 5

    /// Hosts the providers serve covers from (besides their configured endpoints).
    static let providerCoverHosts: Set<String> = ["books.google.com", "books.googleusercontent.com", "covers.openlibrary.org", "archive.org"]
    static let providerCoverSuffixes = [".googleusercontent.com", ".archive.org", ".google.com"]

    static func isProviderCoverHost(_ host: String, trusted: Set<String>) -> Bool {
        trusted.contains(host) || providerCoverHosts.contains(host) || providerCoverSuffixes.contains { host.hasSuffix($0) }
    }

    enum Refusal: Error, CustomStringConvertible {
        case notHTTP, notProviderHost(String), internalAddress(String), unresolvable(String), tooManyRedirects

        var description: String {
            switch self {
            case .notHTTP: "only http:// and https:// cover addresses are fetched"
            case .notProviderHost(let host): "\(host) is not a cover host of the configured providers"
            case .internalAddress(let host): "\(host) is not a public address"
            case .unresolvable(let host): "\(host) could not be resolved"
            case .tooManyRedirects: "too many redirects"
            }
        }
    }

    func get(_ url: String, origin: CoverOrigin) async throws -> HTTPFetcher.Response {
        var current = url
        for hop in 0...Self.maxRedirects {
            guard let parsed = URL(string: current), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let rawHost = parsed.host, !rawHost.isEmpty else { throw Refusal.notHTTP }
            let host = rawHost.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            if hop == 0, origin == .provider, !Self.isProviderCoverHost(host, trusted: trustedHosts) {
                throw Refusal.notProviderHost(host)
            }
            if !trustedHosts.contains(host) {
                let addresses = try await Self.resolve(host)
                guard !addresses.isEmpty else { throw Refusal.unresolvable(host) }
                guard addresses.allSatisfy(AddressPolicy.isPublic) else { throw Refusal.internalAddress(host) }
            }
            let response = try await fetcher.get(current, accept: "image/*", maxBytes: CoverStore.maxBytes)
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.location else { return response }
            guard let next = URL(string: location, relativeTo: parsed)?.absoluteString else { throw Refusal.notHTTP }
            current = next
        }
        throw Refusal.tooManyRedirects
    }

    /// Every address a host name resolves to (IPv4 and IPv6), as bytes in network order.
    static func resolve(_ host: String) async throws -> [[UInt8]] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &result) == 0 else { throw Refusal.unresolvable(host) }
            defer { freeaddrinfo(result) }
            var addresses: [[UInt8]] = []
            var entry = result
            while let info = entry {
                if let address = info.pointee.ai_addr {
                    switch info.pointee.ai_family {
                    case AF_INET:
                        var sin = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                        addresses.append(withUnsafeBytes(of: &sin) { Array($0) })
                    case AF_INET6:
                        var sin6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                        addresses.append(withUnsafeBytes(of: &sin6) { Array($0) })
                    default:
                        break
                    }
                }
                entry = info.pointee.ai_next
            }
            return addresses
        }
    }
}

extension Application {
    private struct CoverClientKey: StorageKey { typealias Value = HTTPClient }

    /// Makes the cover client (once, at configuration): it does not follow redirects by itself, since
    /// `CoverFetcher` checks each hop. Shut down with the application.
    func useCoverClient() {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow,
                                                     timeout: .init(connect: .seconds(3), read: .seconds(10)))
        configuration.httpVersion = .http1Only
        storage[CoverClientKey.self] = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        lifecycle.use(CoverClientShutdown())
    }

    private struct CoverClientShutdown: LifecycleHandler {
        func shutdownAsync(_ application: Application) async {
            try? await application.storage[CoverClientKey.self]?.shutdown()
        }
    }

    var coverFetcher: CoverFetcher {
        let client = storage[CoverClientKey.self] ?? http.client.shared
        let endpoints = metadataConfig.endpoints
        let trusted = Set([endpoints.googleBooks, endpoints.openLibrary, endpoints.openLibraryCovers].compactMap { URL(string: $0)?.host?.lowercased() })
        return CoverFetcher(fetcher: HTTPFetcher(client: client, requestTimeout: .seconds(10)), trustedHosts: trusted)
    }
}
