import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import ShelfmarkTLS
import Vapor

/// HTTPS out of the box. `shelfmark serve --tls` serves HTTPS with the certificate and key
/// the user gives (`--tls-cert`, `--tls-key`), or else with Shelfmark's own (`ShelfmarkTLS.LocalAuthority`:
/// a certificate authority made on first run in the data directory's `tls/`, and a server certificate
/// for the machine's names and LAN addresses). `--http-port N` listens for plain HTTP too: the server
/// machine itself (loopback, already a secure context for browsers) is served there as it is; every
/// other client is redirected to HTTPS, except for the authority's certificate, which a phone downloads
/// before it trusts anything. The same as settings: `SHELFMARK_TLS`, `SHELFMARK_TLS_CERT`,
/// `SHELFMARK_TLS_KEY`, `SHELFMARK_HTTP_PORT`.
public struct HTTPSOptions: Sendable, Equatable {
    public var enabled = false
    public var certificateFile: String?
    public var keyFile: String?
    public var httpPort: Int?

    public init(enabled: Bool = false, certificateFile: String? = nil, keyFile: String? = nil, httpPort: Int? = nil) {
        (self.enabled, self.certificateFile, self.keyFile, self.httpPort) = (enabled, certificateFile, keyFile, httpPort)
    }

    /// Takes the HTTPS options out of the command line (Vapor's `serve` does not know them) and reads
    /// the settings; the command line wins.
    public static func extract(from arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (HTTPSOptions, [String]) {
        var options = HTTPSOptions()
        func setting(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let raw = setting("SHELFMARK_TLS")?.lowercased() {
            switch raw {
            case "1", "true", "yes": options.enabled = true
            case "0", "false", "no": options.enabled = false
            default: throw AppError.invalid("SHELFMARK_TLS", "SHELFMARK_TLS is true or false (got “\(raw)”).")
            }
        }
        options.certificateFile = setting("SHELFMARK_TLS_CERT")
        options.keyFile = setting("SHELFMARK_TLS_KEY")
        if let port = setting("SHELFMARK_HTTP_PORT") { options.httpPort = try Self.port(port, name: "SHELFMARK_HTTP_PORT") }

        var rest: [String] = []
        var i = 0
        func value(_ flag: String) throws -> String {
            i += 1
            guard i < arguments.count, !arguments[i].hasPrefix("-") else { throw AppError.invalid(flag, "\(flag) needs a value.") }
            return arguments[i]
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--tls": options.enabled = true
            case "--tls-cert": options.certificateFile = try value(arg)
            case "--tls-key": options.keyFile = try value(arg)
            case "--http-port": options.httpPort = try Self.port(try value(arg), name: arg)
            default: rest.append(arg)
            }
            i += 1
        }
        if options.certificateFile != nil || options.keyFile != nil { options.enabled = true }
        if options.enabled, (options.certificateFile == nil) != (options.keyFile == nil) {
            throw AppError.invalid("--tls-cert", "Give both the certificate (--tls-cert) and its key (--tls-key), or neither to use Shelfmark's own.")
        }
        return (options, rest)
    }

    static func port(_ text: String, name: String) throws -> Int {
        guard let n = Int(text), (1...65535).contains(n) else { throw AppError.invalid(name, "\(name) is a port number from 1 to 65535 (got “\(text)”).") }
        return n
    }
}

/// What the running server's HTTPS is: shown on the overview and the settings, printed at start.
struct HTTPSState: Sendable {
    var options: HTTPSOptions
    /// SHA-256 of the certificate a phone trusts: Shelfmark's authority, or the user's own certificate.
    var fingerprint: String
    /// Shelfmark's authority (DER), offered for download; nil with the user's own certificate.
    var authorityDER: [UInt8]?
    var names: [String]
    var addresses: [String]
    /// The HTTPS port `serve` listens on (from `--port`, else 8080 as Vapor's default).
    var port: Int
    var configuration: TLSConfiguration
    /// The host `serve` listens on (`--hostname`, else Vapor's default); the plain listener uses it too.
    var hostname = "0.0.0.0"

    /// Whether `serve` listens on the network (`--hostname 0.0.0.0` or an address of this machine), not
    /// on loopback only: only then are phones shown an address.
    var onNetwork: Bool { !NetworkAddresses.isLoopback(hostname) }

    /// "https://192.168.1.20:8443" for each LAN address (none when the server listens on loopback only).
    var lanURLs: [String] {
        guard onNetwork else { return [] }
        return addresses.filter { !NetworkAddresses.isLoopback($0) }.map { NetworkAddresses.url(scheme: "https", host: $0, port: port) }
    }

    static func make(options: HTTPSOptions, dataDirectory: String, port: Int) throws -> HTTPSState {
        let names = NetworkAddresses.names(), addresses = NetworkAddresses.addresses()
        if let certFile = options.certificateFile, let keyFile = options.keyFile {
            do {
                let chain = try NIOSSLCertificate.fromPEMFile(certFile)
                let key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
                guard let first = chain.first else { throw AppError.invalid("--tls-cert", "\(certFile) holds no certificate.") }
                let fingerprint = LocalAuthority.fingerprint(try first.toDERBytes())
                return HTTPSState(options: options, fingerprint: fingerprint, authorityDER: nil, names: names, addresses: addresses, port: port,
                                  configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
            } catch let error as AppError {
                throw error
            } catch {
                throw AppError.invalid("--tls-cert", "Cannot use the certificate \(certFile) with the key \(keyFile): \(error)")
            }
        }
        let issued = try LocalAuthority(directory: URL(fileURLWithPath: dataDirectory).appendingPathComponent("tls")).issue(names: names, addresses: addresses)
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(issued.chainPEM.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(issued.keyPEM.utf8), format: .pem)
        return HTTPSState(options: options, fingerprint: issued.fingerprint, authorityDER: issued.authorityDER, names: names, addresses: addresses, port: port,
                          configuration: .makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)))
    }

    /// What `serve` prints: where to open Shelfmark on this computer and on a phone, and what to trust.
    func banner() -> String {
        var lines = ["", "  Shelfmark serves HTTPS."]
        lines.append("  On this computer:  \(NetworkAddresses.url(scheme: "https", host: "localhost", port: port))"
            + (options.httpPort.map { "   (or \(NetworkAddresses.url(scheme: "http", host: "127.0.0.1", port: $0)))" } ?? ""))
        if !onNetwork {
            lines.append("  On a phone:        not reachable: serve listens on this computer only (--hostname 0.0.0.0 to serve the network)")
        } else if lanURLs.isEmpty {
            lines.append("  On a phone:        no network address found (is this computer on the Wi-Fi?)")
        } else {
            lines.append("  On a phone on the same network:  " + lanURLs.joined(separator: "   "))
        }
        if authorityDER != nil {
            lines.append("  Shelfmark's own certificate. A phone trusts it once: open \(HTTPS.authorityPath) at the address above,")
            lines.append("  install it as a certificate authority, and compare its SHA-256 fingerprint:")
        } else {
            lines.append("  Your certificate's SHA-256 fingerprint:")
        }
        lines.append("  \(fingerprint)")
        lines.append("")
        return lines.joined(separator: "\n")
    }
}

enum HTTPS {
    static let authorityPath = "/tls/shelfmark-ca.crt"

    /// Turns HTTPS on for `serve` when asked: the TLS configuration of the server, `Secure` cookies
    /// and HSTS, the authority's download, the plain HTTP listener, the printed addresses.
    static func configure(_ app: Application, options: HTTPSOptions) throws {
        guard options.enabled else { return }
        let dataDirectory = ProcessInfo.processInfo.environment["SHELFMARK_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data"
        let arguments = app.environment.arguments
        let port = serveOption(["--port", "-p"], in: arguments).flatMap { Int($0) } ?? app.http.server.configuration.port
        var state = try HTTPSState.make(options: options, dataDirectory: dataDirectory, port: port)
        state.hostname = serveOption(["--hostname", "-H"], in: arguments) ?? app.http.server.configuration.hostname
        app.httpsState = state
        app.http.server.configuration.tlsConfiguration = state.configuration
        app.transportSecurity.https = true
        let command = app.environment.arguments.dropFirst().first
        if command == nil || command == "serve" || command?.hasPrefix("-") == true {
            app.lifecycle.use(PlainHTTPListener(state: state))
        }
    }

    /// The value of one of `serve`'s options (`--port 8443`, `-H 0.0.0.0`): Vapor reads them itself when
    /// it starts the server, after `configure`.
    static func serveOption(_ names: Set<String>, in arguments: [String]) -> String? {
        for (i, arg) in arguments.enumerated() where names.contains(arg) && i + 1 < arguments.count {
            return arguments[i + 1]
        }
        return nil
    }

    /// The authority a phone installs to trust Shelfmark's own certificate (DER, as phones want it).
    @Sendable static func authority(req: Request) throws -> Response {
        guard let der = req.application.httpsState?.authorityDER else { throw Abort(.notFound) }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/x-x509-ca-cert")
        headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"shelfmark-ca.crt\"")
        return Response(status: .ok, headers: headers, body: .init(data: Data(der)))
    }
}

extension Application {
    private struct HTTPSStateKey: StorageKey { typealias Value = HTTPSState }
    private struct HTTPSOptionsKey: StorageKey { typealias Value = HTTPSOptions }

    /// What the command line and settings asked for (set by the executable before `configure`).
    public var httpsOptions: HTTPSOptions {
        get { storage[HTTPSOptionsKey.self] ?? HTTPSOptions() }
        set { storage[HTTPSOptionsKey.self] = newValue }
    }

    /// Set when the server serves HTTPS itself (`--tls`).
    var httpsState: HTTPSState? {
        get { storage[HTTPSStateKey.self] }
        set { storage[HTTPSStateKey.self] = newValue }
    }
}

extension Request {
    private struct PlainLoopbackKey: StorageKey { typealias Value = Bool }

    /// This request came over the plain HTTP listener from the server machine itself: no `Secure`
    /// cookies (the browser would drop them) and no HSTS.
    var isPlainLoopback: Bool {
        get { storage[PlainLoopbackKey.self] ?? false }
        set { storage[PlainLoopbackKey.self] = newValue }
    }

    /// A new installation that listens beyond loopback (HTTPS of its own, or plain HTTP on `0.0.0.0` or a
    /// LAN address) is set up from the machine it runs on only: until the owner exists, anyone on the
    /// school's Wi-Fi could otherwise claim it. One listening on loopback only is reached from this
    /// machine alone (or through a proxy on it).
    func requireSetupFromThisComputer() throws {
        guard application.listensBeyondLoopback, !PlainHTTPListener.Responder.isLoopback(remoteAddress) else { return }
        let local: String
        if let state = application.httpsState {
            local = state.options.httpPort.map { NetworkAddresses.url(scheme: "http", host: "127.0.0.1", port: $0) }
                ?? NetworkAddresses.url(scheme: "https", host: "localhost", port: state.port)
        } else {
            local = NetworkAddresses.url(scheme: "http", host: "127.0.0.1", port: application.http.server.configuration.port)
        }
        throw EdgeError.setupOnThisComputer(address: local + WebRoute.setup.path)
    }

    /// Whether this request travelled over HTTPS (ours, or a proxy's that the settings name).
    var isSecureTransport: Bool { application.transportSecurity.https && !isPlainLoopback }
}

/// The plain HTTP listener beside HTTPS: serves the machine itself, redirects everyone else.
final class PlainHTTPListener: LifecycleHandler, Sendable {
    let state: HTTPSState
    private let server = NIOLockedValueBox<HTTPServer?>(nil)

    init(state: HTTPSState) { self.state = state }

    func didBootAsync(_ app: Application) async throws {
        FileHandle.standardError.write(Data(state.banner().utf8))
        guard let port = state.options.httpPort else { return }
        var configuration = app.http.server.configuration
        configuration.tlsConfiguration = nil
        configuration.port = port
        configuration.supportVersions = [.one]
        configuration.hostname = state.hostname
        let plain = HTTPServer(application: app, responder: Responder(app: app, state: state), configuration: configuration, on: app.eventLoopGroup)
        // HTTPServer keeps its configuration in the application's storage: put back the HTTPS one after.
        let main = app.http.server.configuration
        try await plain.start(address: nil)
        app.http.server.configuration = main
        server.withLockedValue { $0 = plain }
    }

    func shutdownAsync(_ application: Application) async {
        let running = server.withLockedValue { s -> HTTPServer? in let r = s; s = nil; return r }
        await running?.shutdown()
    }

    struct Responder: Vapor.Responder {
        let app: Application
        let state: HTTPSState

        func respond(to request: Request) -> EventLoopFuture<Response> {
            if Self.isLoopback(request.remoteAddress) || request.url.path == HTTPS.authorityPath {
                request.isPlainLoopback = true
                return app.responder.current.respond(to: request)
            }
            let location = NetworkAddresses.url(scheme: "https", host: Self.host(request.headers.first(name: .host), fallback: state.lanURLs.isEmpty ? "localhost" : state.addresses[0]), port: state.port)
                + (request.url.string.hasPrefix("/") ? request.url.string : "/")
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .location, value: location)
            headers.replaceOrAdd(name: .contentType, value: "text/plain; charset=utf-8")
            return request.eventLoop.makeSucceededFuture(Response(status: .permanentRedirect, headers: headers, body: .init(string: "Shelfmark is at \(location)\n")))
        }

        static func isLoopback(_ address: SocketAddress?) -> Bool {
            address?.ipAddress.map(NetworkAddresses.isLoopback) ?? false
        }

        /// The host the client asked for, without its port; only a name or an address (a hostile Host
        /// header never reaches the Location header).
        static func host(_ header: String?, fallback: String) -> String {
            guard var h = header?.trimmingCharacters(in: .whitespaces), !h.isEmpty, h.count <= 255 else { return fallback }
            if h.hasPrefix("[") {
                guard let end = h.firstIndex(of: "]") else { return fallback }
                h = String(h[h.index(after: h.startIndex)..<end])
                return h.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) ? h : fallback
            }
            if let colon = h.lastIndex(of: ":") { h = String(h[..<colon]) }
            return h.allSatisfy({ $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "." || $0 == "-" }) && !h.isEmpty ? h.lowercased() : fallback
        }
    }
}

extension Application {
    /// Whether the server listens beyond this machine's loopback: HTTPS of its own (`--tls`), or a plain
    /// listener bound to `0.0.0.0`, `::` or an address of the network. False before it listens.
    var listensBeyondLoopback: Bool {
        if httpsState != nil { return true }
        guard let bound = http.server.shared.localAddress?.ipAddress else { return false }
        return !NetworkAddresses.isLoopback(bound)
    }
}
