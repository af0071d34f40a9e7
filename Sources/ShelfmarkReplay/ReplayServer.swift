import Foundation
import Vapor

/// A local stand-in for Google Books, Open Library and its cover server, answering from recorded
/// responses committed in `Fixtures/`. Tests, `make bench` and offline demos point Shelfmark's
/// provider base URLs at it. Each provider has knobs: added latency and a fault to inject.
///
/// Layout: `{base}/google/books/v1/volumes`, `{base}/openlibrary/api/books`,
/// `{base}/openlibrary/search.json`, `{base}/covers/…`; control at `{base}/_replay/…`.
public final class ReplayServer: Sendable {
    public enum Provider: String, Codable, Sendable, CaseIterable {
        case google, openlibrary, covers
        /// National libraries' SRU catalogues at `{base}/sru/{dnb,loc,k10plus}`.
        case dnb, loc, k10plus
    }

    public enum Fault: String, Codable, Sendable, CaseIterable {
        case none
        case notFound = "404"
        case rateLimited = "429"
        case unavailable = "503"
        case malformedJSON = "malformed"
        /// Sends the head and half the body, then stalls for `stallSeconds` before the rest.
        case slowBody = "slow-body"
        /// Answers nothing for `stallSeconds`.
        case hang
    }

    public struct Behaviour: Codable, Sendable, Equatable {
        public var latencyMs: Int
        public var fault: Fault
        public var stallSeconds: Double

        public init(latencyMs: Int = 0, fault: Fault = .none, stallSeconds: Double = 30) {
            self.latencyMs = latencyMs
            self.fault = fault
            self.stallSeconds = stallSeconds
        }
    }

    actor State {
        var behaviours: [Provider: Behaviour] = [:]
        var counts: [Provider: Int] = [:]
        var arrivals: [Provider: [ContinuousClock.Instant]] = [:]

        func behaviour(_ p: Provider) -> Behaviour { behaviours[p] ?? Behaviour() }
        func set(_ p: Provider, _ b: Behaviour) { behaviours[p] = b }
        func hit(_ p: Provider) -> Behaviour {
            counts[p, default: 0] += 1
            arrivals[p, default: []].append(.now)
            return behaviour(p)
        }
        func count(_ p: Provider) -> Int { counts[p] ?? 0 }
        func reset() { behaviours = [:]; counts = [:]; arrivals = [:] }
        /// When each request to `p` arrived, as the time since the first one.
        func offsets(_ p: Provider) -> [Duration] {
            guard let first = arrivals[p]?.first else { return [] }
            return arrivals[p, default: []].map { $0 - first }
        }
    }

    let app: Application
    let state = State()
    public let port: Int
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    private init(app: Application, port: Int) {
        self.app = app
        self.port = port
    }

    /// Starts on 127.0.0.1 (port 0 picks a free one).
    public static func start(port: Int = 0, behaviour: Behaviour = Behaviour()) async throws -> ReplayServer {
        let app = try await Application.make(Environment(name: "replay", arguments: ["replay"]))
        app.logger.logLevel = .error
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = port
        let fixtures = try Fixtures()
        let box = StateBox()
        app.routes.defaultMaxBodySize = "64kb"
        try routes(app, fixtures: fixtures, box: box)
        try await app.server.start(address: .hostname("127.0.0.1", port: port))
        guard let bound = app.http.server.shared.localAddress?.port else {
            try await app.asyncShutdown()
            throw Abort(.internalServerError, reason: "replay server did not bind")
        }
        let server = ReplayServer(app: app, port: bound)
        box.server = server
        for p in Provider.allCases { await server.state.set(p, behaviour) }
        return server
    }

    public func set(_ provider: Provider, _ behaviour: Behaviour) async { await state.set(provider, behaviour) }
    public func setAll(_ behaviour: Behaviour) async { for p in Provider.allCases { await state.set(p, behaviour) } }
    public func requests(_ provider: Provider) async -> Int { await state.count(provider) }
    /// When each request to `provider` arrived, as the time since the first (tests read how many ran at once).
    public func arrivals(_ provider: Provider) async -> [Duration] { await state.offsets(provider) }

    public func shutdown() async {
        await app.server.shutdown()
        try? await app.asyncShutdown()
    }

    /// Blocks until the server's channel closes (for the standalone executable).
    public func run() async throws {
        try await app.server.onShutdown.get()
    }

    final class StateBox: @unchecked Sendable {
        weak var server: ReplayServer?
    }

    // MARK: - Routes

    private static func routes(_ app: Application, fixtures: Fixtures, box: StateBox) throws {
        @Sendable func serve(_ provider: Provider, _ req: Request, _ body: @escaping @Sendable (String) throws -> Data) async throws -> Response {
            guard let server = box.server else { throw Abort(.serviceUnavailable) }
            let b = await server.state.hit(provider)
            if b.latencyMs > 0 { try await Task.sleep(for: .milliseconds(b.latencyMs)) }
            let type = switch provider {
            case .covers: "image/png"
            case .dnb, .loc, .k10plus: "application/xml;charset=UTF-8"
            default: "application/json; charset=UTF-8"
            }
            return try await server.respond(b, contentType: type) {
                try body(server.baseURL)
            }
        }

        app.get("google", "books", "v1", "volumes") { req async throws -> Response in
            let q = req.query[String.self, at: "q"] ?? ""
            return try await serve(.google, req) { base in
                if q.hasPrefix("isbn:") {
                    let digits = q.dropFirst(5).filter(\.isNumber)
                    return fixtures.data("google/isbn-\(digits).json", base: base) ?? Data(#"{"kind": "books#volumes", "totalItems": 0}"#.utf8)
                }
                let words = Fixtures.words(q.replacingOccurrences(of: "intitle:", with: " ").replacingOccurrences(of: "inauthor:", with: " "))
                let limit = req.query[Int.self, at: "maxResults"] ?? 10
                return try fixtures.filtered("google/search-volumes.json", listKey: "items", base: base, words: words, limit: limit,
                                             text: { item in
                                                 let info = item["volumeInfo"] as? [String: Any] ?? [:]
                                                 return [info["title"] as? String ?? "", info["subtitle"] as? String ?? "",
                                                         (info["authors"] as? [String] ?? []).joined(separator: " ")].joined(separator: " ")
                                             }, total: "totalItems")
            }
        }

        app.get("openlibrary", "api", "books") { req async throws -> Response in
            let keys = (req.query[String.self, at: "bibkeys"] ?? "").split(separator: ",")
            return try await serve(.openlibrary, req) { base in
                var merged: [String: Any] = [:]
                for key in keys {
                    let digits = key.filter(\.isNumber)
                    if let data = fixtures.data("openlibrary/isbn-\(digits).json", base: base),
                       let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                        merged.merge(object) { a, _ in a }
                    }
                }
                return try JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys])
            }
        }

        app.get("openlibrary", "search.json") { req async throws -> Response in
            let text = ["q", "title", "author"].compactMap { req.query[String.self, at: $0] }.joined(separator: " ")
            let limit = req.query[Int.self, at: "limit"] ?? 100
            return try await serve(.openlibrary, req) { base in
                try fixtures.filtered("openlibrary/search-docs.json", listKey: "docs", base: base, words: Fixtures.words(text), limit: limit,
                                      text: { doc in
                                          [doc["title"] as? String ?? "", (doc["author_name"] as? [String] ?? []).joined(separator: " ")].joined(separator: " ")
                                      }, total: "numFound")
            }
        }

        // SRU searchRetrieve: an ISBN query answers the recording for that ISBN; any other query the
        // recordings whose text holds every quoted word; nothing matched is an empty answer.
        for provider in [Provider.dnb, .loc, .k10plus] {
            app.get("sru", PathComponent(stringLiteral: provider.rawValue)) { req async throws -> Response in
                let query = req.query[String.self, at: "query"] ?? ""
                return try await serve(provider, req) { _ in
                    fixtures.sru(provider.rawValue, query: query)
                }
            }
        }

        app.get("covers", "**") { req async throws -> Response in
            let path = req.parameters.getCatchall().joined(separator: "/")
            if path.contains("missing") {
                return Response(status: .notFound, body: .init(string: "not found"))
            }
            return try await serve(.covers, req) { _ in fixtures.cover }
        }

        app.put("_replay", ":provider") { req async throws -> HTTPStatus in
            guard let server = box.server, let p = req.parameters.get("provider").flatMap(Provider.init(rawValue:)) else { throw Abort(.notFound) }
            await server.state.set(p, try req.content.decode(Behaviour.self))
            return .noContent
        }

        app.get("_replay", "requests") { _ async throws -> [String: Int] in
            guard let server = box.server else { throw Abort(.serviceUnavailable) }
            var out: [String: Int] = [:]
            for p in Provider.allCases { out[p.rawValue] = await server.state.count(p) }
            return out
        }
    }

    private func respond(_ b: Behaviour, contentType: String, body: @Sendable () throws -> Data) async throws -> Response {
        var headers = HTTPHeaders()
        headers.contentType = HTTPMediaType(type: "application", subType: "json", parameters: ["charset": "UTF-8"])
        switch b.fault {
        case .none:
            headers.replaceOrAdd(name: .contentType, value: contentType)
            return Response(status: .ok, headers: headers, body: .init(data: try body()))
        case .notFound:
            return Response(status: .notFound, headers: headers, body: .init(string: Self.googleError(404, "notFound", "The volume ID could not be found.")))
        case .rateLimited:
            headers.add(name: "Retry-After", value: "30")
            return Response(status: .tooManyRequests, headers: headers, body: .init(string: Self.googleError(429, "rateLimitExceeded", "Rate Limit Exceeded")))
        case .unavailable:
            return Response(status: .serviceUnavailable, headers: headers, body: .init(string: Self.googleError(503, "backendFailed", "Service temporarily unavailable.")))
        case .malformedJSON:
            return Response(status: .ok, headers: headers, body: .init(string: #"{"kind": "books#volumes", "totalItems": 1, "items": [{"volumeInfo": {"title": "Trunc"#))
        case .slowBody:
            let data = try body()
            let half = data.count / 2
            let stall = b.stallSeconds
            headers.replaceOrAdd(name: .contentType, value: contentType)
            return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
                // A stream ends with .end or .error whatever happens (a client that gave up during the
                // stall): Vapor asserts on a writer dropped without either.
                do {
                    try await writer.write(.buffer(ByteBuffer(bytes: data.prefix(half))))
                    try await Task.sleep(for: .milliseconds(Int(stall * 1000)))
                    try await writer.write(.buffer(ByteBuffer(bytes: data.dropFirst(half))))
                    try await writer.write(.end)
                } catch {
                    try? await writer.write(.error(error))
                }
            }))
        case .hang:
            try await Task.sleep(for: .milliseconds(Int(b.stallSeconds * 1000)))
            headers.replaceOrAdd(name: .contentType, value: contentType)
            return Response(status: .ok, headers: headers, body: .init(data: try body()))
        }
    }

    static func googleError(_ code: Int, _ reason: String, _ message: String) -> String {
        #"{"error": {"code": \#(code), "message": "\#(message)", "errors": [{"message": "\#(message)", "domain": "global", "reason": "\#(reason)"}]}}"#
    }
}

/// The committed recordings, read once at start. `{{base}}` in a recording becomes the server's
/// own URL, so that cover links lead back to it.
struct Fixtures: Sendable {
    let files: [String: String]
    let cover: Data

    init() throws {
        guard let root = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Abort(.internalServerError, reason: "replay fixtures are missing from the bundle")
        }
        var files: [String: String] = [:]
        for dir in ["google", "openlibrary"] {
            let folder = root.appendingPathComponent(dir)
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
                files["\(dir)/\(name)"] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            }
        }
        let sruFolder = root.appendingPathComponent("sru")
        for name in try FileManager.default.contentsOfDirectory(atPath: sruFolder.path) where name.hasSuffix(".xml") {
            files["sru/\(name)"] = try String(contentsOf: sruFolder.appendingPathComponent(name), encoding: .utf8)
        }
        self.files = files
        self.cover = try Data(contentsOf: root.appendingPathComponent("covers/cover.png"))
    }

    func data(_ name: String, base: String) -> Data? {
        files[name].map { Data($0.replacingOccurrences(of: "{{base}}", with: base).utf8) }
    }

    /// An SRU answer from the recordings `sru/{source}-{isbn}.xml`.
    func sru(_ source: String, query: String) -> Data {
        let recordings = files.filter { $0.key.hasPrefix("sru/\(source)-") }.sorted { $0.key < $1.key }
        var records: [String] = []
        if let isbn = query.firstMatch(of: /(?:num|isbn|isb)\s*=\s*"?(\d{13})/) {
            if let text = recordings.first(where: { $0.key == "sru/\(source)-\(isbn.output.1).xml" })?.value { records = Self.marcRecords(text) }
        } else {
            let quoted = query.matches(of: /"([^"]*)"/).map { String($0.output.1) }
            let words = Self.words(quoted.joined(separator: " "))
            for (_, text) in recordings {
                let have = Set(Self.words(text))
                if !words.isEmpty, words.allSatisfy({ have.contains($0) }) { records += Self.marcRecords(text) }
            }
        }
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<searchRetrieveResponse xmlns=\"http://www.loc.gov/zing/srw/\">"
        out += "<version>1.1</version><numberOfRecords>\(records.count)</numberOfRecords>"
        if !records.isEmpty {
            out += "<records>"
            for (i, record) in records.enumerated() {
                out += "<record><recordSchema>marcxml</recordSchema><recordPacking>xml</recordPacking><recordData>\(record)</recordData>"
                out += "<recordPosition>\(i + 1)</recordPosition></record>"
            }
            out += "</records>"
        }
        out += "</searchRetrieveResponse>\n"
        return Data(out.utf8)
    }

    /// The MARC `<record …>…</record>` elements of a recorded answer (the SRU envelope's own
    /// `<record>` holds no `xmlns` and is skipped).
    static func marcRecords(_ text: String) -> [String] {
        text.matches(of: /<record xmlns="http:\/\/www\.loc\.gov\/MARC21\/slim"[\s\S]*?<\/record>/).map { String($0.output) }
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().folding(options: .diacriticInsensitive, locale: nil)
            .split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
    }

    /// A search answer: the recorded list's entries whose text holds every query word.
    func filtered(_ name: String, listKey: String, base: String, words: [String], limit: Int,
                  text: ([String: Any]) -> String, total: String) throws -> Data {
        guard let data = data(name, base: base), var object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Abort(.internalServerError, reason: "fixture \(name) missing")
        }
        let list = (object[listKey] as? [[String: Any]] ?? []).filter { entry in
            let have = Set(Self.words(text(entry)))
            return !words.isEmpty && words.allSatisfy { w in have.contains { $0.hasPrefix(w) } }
        }
        object[listKey] = Array(list.prefix(max(0, limit)))
        object[total] = list.count
        if list.isEmpty, listKey == "items" { object.removeValue(forKey: "items") }
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }
}
