import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import ShelfmarkCore

/// Where messages go: an SMTP server and how to reach it.
public struct SMTPServer: Sendable, Equatable {
    public enum Security: String, Sendable, Codable, CaseIterable {
        /// Plain connection upgraded with STARTTLS (port 587); refused when the server does not offer it.
        case starttls
        /// TLS from the first byte (port 465).
        case tls
        /// No encryption (a relay on the same machine or network); no password is ever sent this way.
        case none
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// The name this client gives in EHLO.
    public var clientName: String
    /// PEM files of certificate authorities to trust besides the system's (a school's own mail server).
    public var extraTrustRoots: [String]
    /// How long one reply may take (the connection, each command, the message's end).
    public var timeout: TimeAmount

    public init(host: String, port: Int, security: Security, username: String? = nil, password: String? = nil,
                clientName: String = "shelfmark.localdomain", extraTrustRoots: [String] = [], timeout: TimeAmount = .seconds(20)) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.clientName = clientName
        self.extraTrustRoots = extraTrustRoots
        self.timeout = timeout
    }
}

/// A server's answer: its code and its text (every line of a multi-line reply).
public struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var lines: [String]
    public var description: String { "\(code) " + lines.joined(separator: " / ") }
    public var isPositive: Bool { (200..<400).contains(code) }
    /// A 4xx answer: try again later.
    public var isTransient: Bool { (400..<500).contains(code) }
}

/// What went wrong talking to the server, with the server's own words where it said any.
public enum SMTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The connection could not be made (name unknown, refused, unreachable, TLS handshake failed).
    case connect(String)
    /// No answer in time at `stage`.
    case timeout(stage: String)
    /// The server answered `stage` with a refusal.
    case rejected(stage: String, reply: SMTPReply)
    /// STARTTLS was asked for and the server does not offer it.
    case tlsUnavailable
    /// A user name was given and the server offers neither AUTH PLAIN nor AUTH LOGIN (or no AUTH at all).
    case authUnavailable
    /// The server closed the connection, or said something that is not SMTP.
    case closed(String)
    /// A sender or recipient that is not an address a message can be sent to (a line break, a space, an
    /// angle bracket): refused before anything is written, so it cannot become a second SMTP command.
    case notAnAddress(String)

    public var description: String {
        switch self {
        case .connect(let why): "could not connect: \(why)"
        case .timeout(let stage): "no answer to \(stage) in time"
        case .rejected(let stage, let reply): "\(stage) refused: \(reply)"
        case .tlsUnavailable: "the server does not offer STARTTLS"
        case .authUnavailable: "the server offers no sign-in this client can use (AUTH PLAIN or LOGIN)"
        case .closed(let why): "connection lost: \(why)"
        case .notAnAddress(let text): "not an address: \(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined().prefix(200))"
        }
    }
}

/// One SMTP conversation (RFC 5321): connect, EHLO, STARTTLS or implicit TLS, AUTH PLAIN or LOGIN,
/// then any number of messages over the same connection, then QUIT. A refused recipient or message
/// is answered with the server's reply and the session goes on (RSET); a lost connection ends it.
/// Used by one task at a time.
public final class SMTPSession: @unchecked Sendable {
    private let channel: any Channel
    private let reader: NIOLoopBound<SMTPReplyReader>
    private let server: SMTPServer
    public private(set) var capabilities: [String] = []
    public private(set) var greeting: SMTPReply?

    private init(channel: any Channel, reader: NIOLoopBound<SMTPReplyReader>, server: SMTPServer) {
        self.channel = channel
        self.reader = reader
        self.server = server
    }

    /// Connects and signs in; throws what stopped it.
    public static func open(_ server: SMTPServer, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> SMTPSession {
        let tls = try tlsContext(server)
        let hostIsAddress = (try? SocketAddress(ipAddress: server.host, port: 0)) != nil
        let sniName: String? = hostIsAddress ? nil : server.host
        let implicitTLS = server.security == .tls
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: group)
                .connectTimeout(server.timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if implicitTLS {
                            try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: sniName))
                        }
                        try channel.pipeline.syncOperations.addHandler(SMTPReplyReader())
                    }
                }
                .connect(host: server.host, port: server.port).get()
        } catch {
            throw SMTPError.connect("\(server.host):\(server.port): " + Self.connectionProblem(error))
        }
        let reader = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: SMTPReplyReader.self), eventLoop: channel.eventLoop)
        }.get()
        let session = SMTPSession(channel: channel, reader: reader, server: server)
        do {
            try await session.start(tls: tls, sniName: sniName)
        } catch {
            _ = try? await channel.close()
            throw error
        }
        return session
    }

    private func start(tls: NIOSSLContext, sniName: String?) async throws {
        let hello = try await reply(stage: "greeting")
        greeting = hello
        guard hello.code == 220 else { throw SMTPError.rejected(stage: "greeting", reply: hello) }
        try await ehlo()
        if server.security == .starttls {
            guard capabilities.contains(where: { $0.uppercased() == "STARTTLS" }) else { throw SMTPError.tlsUnavailable }
            try await command("STARTTLS", stage: "STARTTLS", expect: [220])
            let channel = self.channel
            do {
                try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: sniName), position: .first)
                }.get()
            } catch {
                throw SMTPError.connect(Self.describe(error))
            }
            try await ehlo()
        }
        if let user = server.username, !user.isEmpty {
            guard server.security != .none else { throw SMTPError.authUnavailable }
            let mechanisms = capabilities.first { $0.uppercased().hasPrefix("AUTH") }
                .map { $0.uppercased().split(whereSeparator: { $0 == " " || $0 == "=" }).dropFirst().map(String.init) } ?? []
            let password = server.password ?? ""
            if mechanisms.contains("PLAIN") {
                let token = Data(([0] + Array(user.utf8) + [0] + Array(password.utf8))).base64EncodedString()
                try await command("AUTH PLAIN \(token)", stage: "AUTH", expect: [235], secret: true)
            } else if mechanisms.contains("LOGIN") {
                try await command("AUTH LOGIN", stage: "AUTH", expect: [334])
                try await command(Data(user.utf8).base64EncodedString(), stage: "AUTH", expect: [334], secret: true)
                try await command(Data(password.utf8).base64EncodedString(), stage: "AUTH", expect: [235], secret: true)
            } else {
                throw SMTPError.authUnavailable
            }
        }
    }

    private func ehlo() async throws {
        let answer = try await command("EHLO \(server.clientName)", stage: "EHLO", expect: [250])
        capabilities = Array(answer.lines.dropFirst())
    }

    /// Sends one message; answers the server's acceptance (its queue id is usually in the text).
    @discardableResult
    public func send(from: String, to: [String], message: [UInt8]) async throws -> SMTPReply {
        for address in [from] + to where !MailAddress.isValid(address) { throw SMTPError.notAnAddress(address) }
        let utf8 = (([from] + to).contains { !$0.allSatisfy(\.isASCII) })
            && capabilities.contains { $0.uppercased() == "SMTPUTF8" }
        do {
            try await command("MAIL FROM:<\(from)>" + (utf8 ? " SMTPUTF8" : ""), stage: "MAIL FROM", expect: [250])
            for recipient in to {
                try await command("RCPT TO:<\(recipient)>", stage: "RCPT TO", expect: [250, 251])
            }
            try await command("DATA", stage: "DATA", expect: [354])
            var body = MailMessage.dotStuffed(message)
            if !body.suffix(2).elementsEqual([13, 10]) { body += [13, 10] }
            body += Array(".\r\n".utf8)
            try await write(body)
            let accepted = try await reply(stage: "end of message")
            guard accepted.code == 250 else { throw SMTPError.rejected(stage: "message", reply: accepted) }
            return accepted
        } catch let error as SMTPError {
            if case .rejected = error { _ = try? await command("RSET", stage: "RSET", expect: [250]) }
            throw error
        }
    }

    /// QUIT and close; never throws.
    public func close() async {
        _ = try? await command("QUIT", stage: "QUIT", expect: [221])
        _ = try? await channel.close()
    }

    // MARK: The wire

    @discardableResult
    private func command(_ line: String, stage: String, expect: Set<Int>, secret: Bool = false) async throws -> SMTPReply {
        // An SMTP command is one line: what would smuggle in a second is refused, never sent.
        guard !line.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) else {
            throw SMTPError.notAnAddress(secret ? stage : String(line.prefix(200)))
        }
        try await write(Array((line + "\r\n").utf8))
        let answer = try await reply(stage: stage)
        guard expect.contains(answer.code) else { throw SMTPError.rejected(stage: stage, reply: answer) }
        return answer
    }

    private func write(_ bytes: [UInt8]) async throws {
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: bytes))
        } catch {
            throw SMTPError.closed(Self.describe(error))
        }
    }

    private func reply(stage: String) async throws -> SMTPReply {
        let reader = self.reader, timeout = server.timeout, channel = self.channel
        let future = channel.eventLoop.flatSubmit { reader.value.next(on: channel.eventLoop, timeout: timeout, stage: stage) }
        do {
            return try await future.get()
        } catch let error as SMTPError {
            if case .timeout = error { _ = try? await channel.close() }
            throw error
        } catch {
            throw SMTPError.closed(Self.describe(error))
        }
    }

    static func tlsContext(_ server: SMTPServer) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.additionalTrustRoots = server.extraTrustRoots.map { .file($0) }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SMTPError.connect("TLS settings: \(describe(error))")
        }
    }

    /// Why a connection could not be made, in a few plain words (NIO's own text names its internals).
    static func connectionProblem(_ error: any Error) -> String {
        let text = String(describing: error).lowercased()
        if text.contains("refused") { return "connection refused" }
        if text.contains("timed out") || text.contains("timeout") { return "no answer (timed out)" }
        if text.contains("resolve") || text.contains("lookup") || text.contains("nodename") || text.contains("name or service") { return "no such host" }
        if text.contains("unreachable") { return "network unreachable" }
        if text.contains("certificate") || text.contains("handshake") || text.contains("ssl") || text.contains("tls") { return "TLS handshake failed: " + describe(error) }
        return describe(error)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? SMTPError { return error.description }
        return String(describing: error).prefix(300).description
    }
}

/// Reads the server's replies off the connection (on its event loop): lines `250-…` continue a reply,
/// `250 …` ends it. Each finished reply goes to the oldest waiting `next`, or waits for one.
final class SMTPReplyReader: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private struct Waiter {
        var promise: EventLoopPromise<SMTPReply>
        var timer: Scheduled<Void>
    }

    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var ready: [SMTPReply] = []
    private var waiters: [Waiter] = []
    private var ended: SMTPError?
    /// A reply line is at most 512 octets (RFC 5321 4.5.3.1.5); a server that sends far more is not SMTP.
    private static let maxPending = 64 * 1024

    func next(on loop: any EventLoop, timeout: TimeAmount, stage: String) -> EventLoopFuture<SMTPReply> {
        if !ready.isEmpty { return loop.makeSucceededFuture(ready.removeFirst()) }
        if let ended { return loop.makeFailedFuture(ended) }
        let promise = loop.makePromise(of: SMTPReply.self)
        // On the loop, as everything this reader does (`assumeIsolated`: the closure needs not be Sendable).
        let timer = loop.assumeIsolated().scheduleTask(in: timeout) { [self] in
            guard let index = waiters.firstIndex(where: { $0.promise.futureResult === promise.futureResult }) else { return }
            waiters.remove(at: index)
            promise.fail(SMTPError.timeout(stage: stage))
        }
        waiters.append(Waiter(promise: promise, timer: timer))
        return promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = Array(pending[..<newline])
            pending.removeSubrange(...newline)
            if line.last == 13 { line.removeLast() }
            take(String(decoding: line, as: UTF8.self), context: context)
        }
        if pending.count > Self.maxPending { fail(.closed("a reply line without an end"), context: context) }
    }

    private func take(_ line: String, context: ChannelHandlerContext) {
        let bytes = Array(line.utf8)
        guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)), (200...599).contains(code),
              bytes.count == 3 || bytes[3] == UInt8(ascii: " ") || bytes[3] == UInt8(ascii: "-") else {
            // Not echoed: whatever answers on that port (a database, a web server) is not shown to the one who asked.
            fail(.closed("the server did not answer in SMTP"), context: context)
            return
        }
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        guard bytes.count == 3 || bytes[3] == UInt8(ascii: " ") else { return }
        let reply = SMTPReply(code: code, lines: lines)
        lines = []
        if waiters.isEmpty {
            ready.append(reply)
        } else {
            let waiter = waiters.removeFirst()
            waiter.timer.cancel()
            waiter.promise.succeed(reply)
        }
    }

    private func fail(_ error: SMTPError, context: ChannelHandlerContext) {
        if ended == nil { ended = error }
        let waiting = waiters
        waiters = []
        for waiter in waiting {
            waiter.timer.cancel()
            waiter.promise.fail(error)
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(.closed("the server closed the connection"), context: context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(.closed(SMTPSession.describe(error)), context: context)
    }
}
