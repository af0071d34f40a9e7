import Foundation
import Testing

/// A real SMTP server for a test: `Tests/smtp/server.py` (aiosmtpd, in the test venv `make test`
/// makes), on 127.0.0.1 with STARTTLS or implicit TLS and AUTH, its certificate signed by a throwaway
/// authority (`ca`) the app is told to trust. Each message it accepts is read back as Python's
/// `email` package parses it (`Received`).
final class TestSMTPServer: @unchecked Sendable {
    let process: Process
    let input: Pipe
    let spool: URL
    let port: Int
    let ca: String

    struct Received: Decodable {
        var mail_from: String
        var rcpt_tos: [String]
        var tls: Bool
        var authenticated: Bool
        var raw: String
        var raw_is_ascii: Bool
        var subject: String
        var from: String
        var to: String
        var to_name: String
        var from_name: String
        var content_language: String
        var message_id: String
        var text: String
        var defects: [String]
        /// The files attached, each saved to `path` as the mail program decodes it.
        var attachments: [Attachment]
    }

    struct Attachment: Decodable {
        var filename: String
        var content_type: String
        var path: String
    }

    static var python: String {
        if let given = ProcessInfo.processInfo.environment["SHELFMARK_TEST_PYTHON"], !given.isEmpty { return given }
        return root.appendingPathComponent(".tmp/venv/bin/python").path
    }

    static var root: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    init(mode: String = "starttls", user: String? = "library", password: String? = "correct horse battery", rejectDomain: String? = nil) throws {
        spool = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: spool, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        var arguments = [Self.root.appendingPathComponent("Tests/smtp/server.py").path, spool.path, "--mode", mode]
        if let user, let password { arguments += ["--user", user, "--password", password] }
        if let rejectDomain { arguments += ["--reject-domain", rejectDomain] }
        process.arguments = arguments
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // The first line says where it listens (after making its certificates).
        var line = Data()
        let deadline = Date().addingTimeInterval(30)
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                guard process.isRunning, Date() < deadline else { break }
                continue
            }
            line += chunk
        }
        struct Ready: Decodable { var port: Int; var ca: String }
        guard let ready = try? JSONDecoder().decode(Ready.self, from: line.split(separator: UInt8(ascii: "\n")).first.map { Data($0) } ?? Data()) else {
            process.terminate()
            throw TestServerFailure.didNotStart(String(decoding: line, as: UTF8.self))
        }
        (port, ca) = (ready.port, ready.ca)
    }

    enum TestServerFailure: Error { case didNotStart(String) }

    /// Every message accepted so far, in order.
    func received() throws -> [Received] {
        let names = try FileManager.default.contentsOfDirectory(atPath: spool.path).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try JSONDecoder().decode(Received.self, from: Data(contentsOf: spool.appendingPathComponent($0))) }
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: spool)
    }
}
