@testable import App
import Foundation
import NIOCore
import NIOSSL
import ShelfmarkImaging
import ShelfmarkTLS
import Testing
import Vapor

/// HTTPS out of the box: Shelfmark's own certificates, the options, the plain listener's redirect.
@Suite struct HTTPSTests {
    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func theAuthorityIsMadeOnceAndTheServerCertificateFollowsTheAddresses() throws {
        let dir = try Self.folder().appendingPathComponent("tls")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        let authority = LocalAuthority(directory: dir)
        let first = try authority.issue(names: ["library-pc", "localhost"], addresses: ["192.168.1.20", "127.0.0.1"])
        #expect(first.madeAuthority && first.madeServerCertificate)
        #expect(first.fingerprint.count == 32 * 3 - 1 && first.fingerprint == LocalAuthority.fingerprint(first.authorityDER))
        // Readable by its owner only, the folder too.
        for file in ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? 0, radix: 8))")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: dir.path)[.posixPermissions] as? Int == 0o700)
        // NIOSSL reads what was written: a chain of two (server, authority) and its key.
        let chain = try NIOSSLCertificate.fromPEMBytes(Array(first.chainPEM.utf8))
        #expect(chain.count == 2)
        _ = try NIOSSLPrivateKey(bytes: Array(first.keyPEM.utf8), format: .pem)

        // The next start: nothing new.
        let again = try authority.issue(names: ["library-pc", "localhost"], addresses: ["192.168.1.20", "127.0.0.1"])
        #expect(!again.madeAuthority && !again.madeServerCertificate)
        #expect(again.chainPEM == first.chainPEM && again.fingerprint == first.fingerprint)
        // A new address from the router: a new server certificate from the same authority (the phone keeps trusting).
        let moved = try authority.issue(names: ["library-pc", "localhost"], addresses: ["192.168.1.37", "127.0.0.1"])
        #expect(!moved.madeAuthority && moved.madeServerCertificate)
        #expect(moved.fingerprint == first.fingerprint && moved.chainPEM != first.chainPEM)
        // Thirty days before it expires, it is renewed.
        let late = try authority.issue(names: ["library-pc", "localhost"], addresses: ["192.168.1.37", "127.0.0.1"], now: Date().addingTimeInterval(370 * 86400))
        #expect(late.madeServerCertificate && late.fingerprint == first.fingerprint)
    }

    @Test func aDamagedCertificateFileIsRefusedWithWhatToDo() throws {
        let dir = try Self.folder().appendingPathComponent("tls")
        defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
        _ = try LocalAuthority(directory: dir).issue(names: ["localhost"], addresses: ["127.0.0.1"])
        try Data("not a certificate".utf8).write(to: dir.appendingPathComponent("ca.pem"))
        #expect {
            try LocalAuthority(directory: dir).issue(names: ["localhost"], addresses: ["127.0.0.1"])
        } throws: { "\($0)".contains("Move the tls folder aside") }
    }

    @Test func theOptionsComeFromTheCommandLineAndTheSettings() throws {
        let (plain, rest) = try HTTPSOptions.extract(from: ["shelfmark", "serve", "--port", "8443"], environment: [:])
        #expect(plain == HTTPSOptions() && rest == ["shelfmark", "serve", "--port", "8443"])
        let (tls, rest2) = try HTTPSOptions.extract(from: ["shelfmark", "serve", "--tls", "--http-port", "8080", "--port", "8443"], environment: [:])
        #expect(tls == HTTPSOptions(enabled: true, httpPort: 8080) && rest2 == ["shelfmark", "serve", "--port", "8443"])
        let (own, _) = try HTTPSOptions.extract(from: ["shelfmark", "serve"], environment: ["SHELFMARK_TLS_CERT": "/etc/c.pem", "SHELFMARK_TLS_KEY": "/etc/k.pem"])
        #expect(own == HTTPSOptions(enabled: true, certificateFile: "/etc/c.pem", keyFile: "/etc/k.pem"))
        let (setting, _) = try HTTPSOptions.extract(from: ["shelfmark"], environment: ["SHELFMARK_TLS": "yes", "SHELFMARK_HTTP_PORT": "80"])
        #expect(setting == HTTPSOptions(enabled: true, httpPort: 80))
        #expect(throws: AppError.self) { try HTTPSOptions.extract(from: ["shelfmark", "serve", "--tls-cert", "c.pem"], environment: [:]) }
        #expect(throws: AppError.self) { try HTTPSOptions.extract(from: ["shelfmark", "serve", "--http-port", "99999"], environment: [:]) }
        #expect(throws: AppError.self) { try HTTPSOptions.extract(from: ["shelfmark", "serve", "--http-port"], environment: [:]) }
        #expect(throws: AppError.self) { try HTTPSOptions.extract(from: ["shelfmark"], environment: ["SHELFMARK_TLS": "maybe"]) }
    }

    @Test func theRedirectNamesOnlyAHostNeverWhatAHostileHeaderSays() {
        typealias R = PlainHTTPListener.Responder
        #expect(R.host("192.168.1.20:8080", fallback: "x") == "192.168.1.20")
        #expect(R.host("Library-PC.local", fallback: "x") == "library-pc.local")
        #expect(R.host("[fd00::2]:8080", fallback: "x") == "fd00::2")
        #expect(R.host("evil.example/\r\nSet-Cookie: a=b", fallback: "x") == "x")
        #expect(R.host("a b", fallback: "x") == "x")
        #expect(R.host(nil, fallback: "x") == "x")
        #expect(R.host(String(repeating: "a", count: 300), fallback: "x") == "x")
        #expect(NetworkAddresses.url(scheme: "https", host: "fd00::2", port: 443) == "https://[fd00::2]")
        #expect(NetworkAddresses.url(scheme: "https", host: "192.168.1.20", port: 8443) == "https://192.168.1.20:8443")
    }

    @Test func theAuthorityIsOfferedOnlyWhenShelfmarkMadeIt() async throws {
        try await withTestApp { app in
            let none = try await app.testing().sendRequest(.GET, HTTPS.authorityPath)
            #expect(none.status == .notFound)
            let dir = try Self.folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            app.httpsState = try HTTPSState.make(options: HTTPSOptions(enabled: true), dataDirectory: dir.path, port: 8443)
            let crt = try await app.testing().sendRequest(.GET, HTTPS.authorityPath)
            #expect(crt.status == .ok)
            #expect(crt.headers.contentType?.description == "application/x-x509-ca-cert")
            #expect(LocalAuthority.fingerprint(Array(crt.body.readableBytesView)) == app.httpsState?.fingerprint)
        }
    }

    @Test func plainHTTPServesThisComputerAndSendsEveryOtherDeviceToHTTPS() async throws {
        try await withTestApp { app in
            let dir = try Self.folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            let state = try HTTPSState.make(options: HTTPSOptions(enabled: true, httpPort: 8080), dataDirectory: dir.path, port: 8443)
            app.httpsState = state
            let responder = PlainHTTPListener.Responder(app: app, state: state)
            func get(_ path: String, from ip: String, host: String) async throws -> Response {
                let req = Request(application: app, method: .GET, url: URI(string: path), headers: ["Host": host],
                                  remoteAddress: try SocketAddress(ipAddress: ip, port: 50000), on: app.eventLoopGroup.next())
                return try await responder.respond(to: req).get()
            }
            // A phone on the network: sent to HTTPS at the address it asked for, path and query kept.
            let phone = try await get("/libraries/x/checkout?card=S1", from: "192.168.1.9", host: "192.168.1.20:8080")
            #expect(phone.status == .permanentRedirect)
            #expect(phone.headers.first(name: .location) == "https://192.168.1.20:8443/libraries/x/checkout?card=S1")
            // A hostile Host header: the redirect names a real address of this machine instead.
            let hostile = try await get("/", from: "192.168.1.9", host: "evil.example\r\nX: y")
            #expect(hostile.headers.first(name: .location)?.hasPrefix("https://") == true)
            #expect(hostile.headers.first(name: .location)?.contains("evil") == false)
            // The authority's certificate is served to the phone over plain HTTP (it trusts nothing yet).
            let crt = try await get(HTTPS.authorityPath, from: "192.168.1.9", host: "192.168.1.20:8080")
            #expect(crt.status == .ok)
            // This computer itself is served as it is, without Secure cookies or HSTS.
            let local = try await get("/api/v1/health", from: "127.0.0.1", host: "127.0.0.1:8080")
            #expect(local.status == .ok)
            #expect(local.headers.first(name: "Strict-Transport-Security") == nil)
        }
    }

    @Test func aNewInstallationServingTheNetworkIsSetUpFromItsOwnComputerOnly() async throws {
        try await withTestApp { app in
            let dir = try Self.folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            app.httpsState = try HTTPSState.make(options: HTTPSOptions(enabled: true, httpPort: 8080), dataDirectory: dir.path, port: 8443)
            // The test client has no address: another device. The API and the page refuse, saying where to go.
            let api = try await Client(app: app).post("/api/v1/setup", ["username": "intruder", "password": "a long password", "libraryName": "Mine"])
            #expect(api.status == .forbidden)
            #expect(api.errorCode == "setup_on_this_computer")
            #expect(((api.json["error"] as? [String: Any])?["message"] as? String)?.contains("http://127.0.0.1:8080/setup") == true)
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .acceptLanguage, value: "de")
            let page = try await app.testing().sendRequest(.GET, "/setup", headers: headers)
            #expect(page.status == .forbidden)
            #expect(page.body.string.contains("Richten Sie Shelfmark auf dem Computer ein"))
            // Without HTTPS of its own (on 127.0.0.1, or behind a proxy) setup works as before.
            app.httpsState = nil
            let ok = try await Client(app: app).post("/api/v1/setup", ["username": "teacher", "password": "a long password", "libraryName": "Room 12"])
            #expect(ok.status == .created)
        }
    }

    @Test func theOverviewShowsThePhoneAddressAsAQRCodeWithTheFingerprint() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let dir = try Self.folder()
            defer { try? FileManager.default.removeItem(at: dir) }
            var state = try HTTPSState.make(options: HTTPSOptions(enabled: true, httpPort: 8080), dataDirectory: dir.path, port: 8443)
            state.addresses = ["192.168.1.20", "127.0.0.1"]
            app.httpsState = state
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["username": "owner", "password": "correct horse"])
            let page = try await browser.get("/libraries/\(f.libraryID)/dashboard")
            let url = "https://192.168.1.20:8443/libraries/\(f.libraryID)/dashboard"
            #expect(page.html.contains("Open Shelfmark on a phone") && page.html.contains(url), "\(page.html)")
            #expect(page.html.contains(state.fingerprint) && page.html.contains(HTTPS.authorityPath))
            // The page's QR code is the one drawn for that address, and that one reads back as the address.
            let marker = "data:image/svg+xml;base64,"
            let start = try #require(page.html.range(of: marker)).upperBound
            let encoded = page.html[start...].prefix { $0 != "\"" }
            let drawn = try BarcodeRenderer.render(.qr, url)
            #expect(Data(base64Encoded: String(encoded)).map { String(decoding: $0, as: UTF8.self) } == drawn.svg)
            #expect(try BarcodeReader(symbologies: [.qr]).read(drawn.png).barcodes.map(\.text) == [url])
            // Listening on this computer only: no address for phones.
            state.hostname = "127.0.0.1"
            app.httpsState = state
            let local = try await browser.get("/libraries/\(f.libraryID)/dashboard")
            #expect(!local.html.contains("Open Shelfmark on a phone"))
        }
    }
}
