import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShelfmarkCore

/// One metadata source. Implementations answer `nil`/`[]` for "no such book" and throw
/// `ProviderFailure` when they could not answer at all (down, rate-limited, garbage).
public protocol MetadataProvider: Sendable {
    var id: ProviderID { get }
    func lookup(isbn: ISBN) async throws -> BookRecord?
    func search(_ query: SearchQuery) async throws -> [BookRecord]
}

/// A free-text search (or text read off a cover), optionally split into title and author.
public struct SearchQuery: Sendable, Equatable {
    public var text: String
    public var title: String?
    public var author: String?
    public var limit: Int

    public init(text: String, title: String? = nil, author: String? = nil, limit: Int = 10) {
        self.text = text
        self.title = title
        self.author = author
        self.limit = limit
    }

    /// Words the ranking matches candidates against.
    public var words: [String] {
        SearchText.tokens([text, title ?? "", author ?? ""].joined(separator: " "))
    }
}

/// Why a provider gave no answer. A lookup reports these per provider and never fails as a whole.
public enum ProviderFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case httpStatus(Int)
    case rateLimited
    case malformed(String)
    case timedOut
    case unreachable(String)

    public var description: String {
        switch self {
        case .httpStatus(let code): "answered HTTP \(code)"
        case .rateLimited: "rate limited (HTTP 429)"
        case .malformed(let why): "sent a response that could not be read (\(why))"
        case .timedOut: "did not answer in time"
        case .unreachable(let why): "could not be reached (\(why))"
        }
    }
}

/// Base URLs of the providers: the real services by default, a replay server in tests.
public struct ProviderEndpoints: Sendable, Equatable {
    public var googleBooks: String
    public var openLibrary: String
    public var openLibraryCovers: String
    /// The national libraries' SRU endpoints (the searchRetrieve URL without its query).
    public var sru: [ProviderID: String]

    /// The public SRU endpoints the catalogues document.
    public static let liveSRU: [ProviderID: String] = [
        .dnb: "https://services.dnb.de/sru/dnb",
        .libraryOfCongress: "http://lx2.loc.gov:210/LCDB",
        .k10plus: "https://sru.k10plus.de/opac-de-627",
    ]

    public static let live = ProviderEndpoints(
        googleBooks: "https://www.googleapis.com",
        openLibrary: "https://openlibrary.org",
        openLibraryCovers: "https://covers.openlibrary.org",
        sru: liveSRU
    )

    public init(googleBooks: String, openLibrary: String, openLibraryCovers: String, sru: [ProviderID: String] = ProviderEndpoints.liveSRU) {
        self.googleBooks = Self.trimmed(googleBooks)
        self.openLibrary = Self.trimmed(openLibrary)
        self.openLibraryCovers = Self.trimmed(openLibraryCovers)
        self.sru = sru.mapValues(Self.trimmed)
    }

    /// Every endpoint under one server, as the replay server lays them out.
    public static func replay(_ base: String) -> ProviderEndpoints {
        let b = trimmed(base)
        return ProviderEndpoints(googleBooks: b + "/google", openLibrary: b + "/openlibrary", openLibraryCovers: b + "/covers",
                                 sru: [.dnb: b + "/sru/dnb", .libraryOfCongress: b + "/sru/loc", .k10plus: b + "/sru/k10plus"])
    }

    private static func trimmed(_ url: String) -> String {
        var u = url
        while u.hasSuffix("/") { u.removeLast() }
        return u
    }
}

/// The HTTP GET the providers share: identifies Shelfmark, bounds the body, maps failures.
public struct HTTPFetcher: Sendable {
    public let client: HTTPClient
    public var userAgent: String
    /// A ceiling for one request; the lookup's own timeout normally ends it sooner.
    public var requestTimeout: TimeAmount

    public init(client: HTTPClient, userAgent: String = "Shelfmark/1.0 (self-hosted library catalog)", requestTimeout: TimeAmount = .seconds(30)) {
        self.client = client
        self.userAgent = userAgent
        self.requestTimeout = requestTimeout
    }

    public struct Response: Sendable {
        public var status: Int
        public var contentType: String?
        public var body: Data
        /// Where a redirect points (when the client does not follow redirects itself).
        public var location: String?
    }

    public func get(_ url: String, accept: String = "application/json", maxBytes: Int = 4 << 20) async throws -> Response {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: accept)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: requestTimeout)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw ProviderFailure.timedOut
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ProviderFailure.unreachable(String(describing: error))
        }
        do {
            if let declared = response.headers.first(name: "content-length").flatMap(Int.init), declared > maxBytes {
                throw ProviderFailure.malformed("the answer is larger than \(maxBytes) bytes")
            }
            let buffer = try await response.body.collect(upTo: maxBytes)
            return Response(status: Int(response.status.code), contentType: response.headers.first(name: "content-type"),
                            body: Data(buffer.readableBytesView), location: response.headers.first(name: "location"))
        } catch let failure as ProviderFailure {
            throw failure
        } catch {
            if Task.isCancelled { throw CancellationError() }
            throw ProviderFailure.unreachable("body: \(error)")
        }
    }

    /// GET and decode JSON; 404 answers `nil` (the provider's "no such thing").
    func getJSON<T: Decodable>(_ type: T.Type, _ url: String) async throws -> T? {
        let response = try await get(url)
        switch response.status {
        case 200: break
        case 404: return nil
        case 429: throw ProviderFailure.rateLimited
        default: throw ProviderFailure.httpStatus(response.status)
        }
        var body = response.body
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch let error as DecodingError {
            throw ProviderFailure.malformed(Self.describe(error))
        }
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let c): return c.codingPath.isEmpty ? "not JSON" : "bad value at \(path(c.codingPath))"
        case .keyNotFound(let key, let c): return "missing \(path(c.codingPath + [key]))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "unexpected type at \(path(c.codingPath))"
        @unknown default: return "unreadable"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

enum URLQuery {
    /// Percent-encodes a query value (spaces as %20, `+` and `&` escaped).
    static func encode(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~:")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
