import Fluent
import FluentSQL
import Foundation
import NIOCore
import ShelfmarkCore
import ShelfmarkMail
import SQLKit
import Vapor

/// The mail servers messages go out through: the installation's (`library_id` NULL, set by the
/// administrator) and a library's own, which wins. The password is sealed by `SecretBox` before it is
/// written, opened only to sign in, never returned or logged.
enum MailServers {
    struct Row: Decodable, Sendable {
        var library_id: UUID?
        var host: String
        var port: Int
        var security: String
        var username: String?
        var password_sealed: String?
        var sender_address: String
        var sender_name: String?
        var updated_at: Date

        var dto: MailServerDTO {
            MailServerDTO(scope: library_id == nil ? .installation : .library, host: host, port: port,
                          security: SMTPServer.Security(rawValue: security) ?? .starttls, username: username,
                          hasPassword: password_sealed != nil, senderAddress: sender_address, senderName: sender_name, updatedAt: updated_at)
        }
    }

    /// The server a library's messages go through: its own, else the installation's, else none.
    static func effective(library: UUID, on db: any Database) async throws -> Row? {
        try await db.sql.raw("""
            SELECT library_id, host, port, security, username, password_sealed, sender_address, sender_name, updated_at FROM mail_servers
            WHERE library_id = \(bind: library) OR library_id IS NULL ORDER BY CASE WHEN library_id IS NULL THEN 1 ELSE 0 END LIMIT 1
            """).first(decoding: Row.self)
    }

    /// One scope's own server (nil: the installation's).
    static func own(library: UUID?, on db: any Database) async throws -> Row? {
        let condition: SQLQueryString = library.map { "library_id = \(bind: $0)" } ?? "library_id IS NULL"
        return try await db.sql.raw("""
            SELECT library_id, host, port, security, username, password_sealed, sender_address, sender_name, updated_at FROM mail_servers
            WHERE \(condition)
            """).first(decoding: Row.self)
    }

    static let maxHost = 253

    /// A host the system's resolver would read as an address in another spelling: octal or leading
    /// zeros ("0177.0.0.1"), hexadecimal ("0x7f.1"), short forms ("127.1", "2130706433"). Only the plain
    /// dotted form is an address here, so no spelling of 127.0.0.1 passes the private-host check as a name.
    static func spellsAnAddress(_ text: String, _ parsed: HostName) -> Bool {
        let labels = text.lowercased().split(separator: ".", omittingEmptySubsequences: false)
        func numeric(_ label: Substring) -> Bool {
            (!label.isEmpty && label.allSatisfy { $0.isASCII && $0.isNumber }) || (label.hasPrefix("0x") && label.dropFirst(2).allSatisfy(\.isHexDigit))
        }
        if parsed.address?.count == 4 { return labels.contains { $0.count > 1 && $0.hasPrefix("0") } }
        guard parsed.address == nil, let last = labels.last(where: { !$0.isEmpty }) else { return false }
        return numeric(last)
    }

    /// Sets a scope's server (nil: the installation's). The kept password stays when none is sent, and
    /// only while the server it was given for stays the same: a new host, port or user name drops it (it
    /// must never follow the settings to another machine). Only the installation's administrator
    /// (`mayUsePrivateHosts`) points a server at this machine or an address of a private network.
    static func put(library: UUID?, _ put: MailServerPut, mayUsePrivateHosts: Bool, box: SecretBox, now: Date, gate: WriteGate,
                    on db: any Database) async throws -> MailServerDTO {
        let text = try Check.required(put.host, field: "host", max: maxHost)
        guard let parsed = HostName(parsing: text, allowPort: false), !spellsAnAddress(text, parsed) else {
            throw InputProblem.notHost(field: "host", value: String(text.prefix(100)))
        }
        if parsed.isPrivateAddress, !mayUsePrivateHosts { throw MailError.privateHost }
        let host = parsed.name
        let port = try Check.range(put.port, 1...65_535, field: "port") ?? 587
        let username = try Check.optional(put.username, field: "username", max: 320)
        let sender = try Check.required(put.senderAddress, field: "senderAddress", max: 254)
        guard MailAddress.isValid(sender) else { throw InputProblem.notEmail(field: "senderAddress", value: String(sender.prefix(200))) }
        let senderName = try Check.optional(put.senderName, field: "senderName", max: 100)
        if let password = put.password, password.count > 500 { throw InputProblem.tooLong(field: "password", max: 500) }
        return try await gate.transaction(on: db) { db in
            let kept = try await own(library: library, on: db)
            let sameServer = kept.map { $0.host.lowercased() == host && $0.port == port && $0.username == username } ?? false
            var sealed = sameServer ? kept?.password_sealed : nil
            if put.security == .none {
                // Without encryption nothing signs in: a password given is refused, a kept one is dropped.
                if username != nil || !(put.password ?? "").isEmpty { throw MailError.passwordInClear }
                sealed = nil
            } else if let password = put.password {
                sealed = password.isEmpty ? nil : try box.seal(password)
            }
            let condition: SQLQueryString = library.map { "library_id = \(bind: $0)" } ?? "library_id IS NULL"
            if kept == nil {
                try await db.sql.raw("""
                    INSERT INTO mail_servers (id, library_id, host, port, security, username, password_sealed, sender_address, sender_name, updated_at)
                    VALUES (\(bind: UUID()), \(bind: library), \(bind: host), \(bind: port), \(bind: put.security.rawValue), \(bind: username),
                            \(bind: sealed), \(bind: sender), \(bind: senderName), \(bind: now))
                    """).run()
            } else {
                try await db.sql.raw("""
                    UPDATE mail_servers SET host = \(bind: host), port = \(bind: port), security = \(bind: put.security.rawValue),
                        username = \(bind: username), password_sealed = \(bind: sealed), sender_address = \(bind: sender),
                        sender_name = \(bind: senderName), updated_at = \(bind: now)
                    WHERE \(condition)
                    """).run()
            }
            return try await own(library: library, on: db)!.dto
        }
    }

    /// Removes a scope's server; a library then sends through the installation's, if any. Reminders of
    /// libraries left with no server at all are switched off (they could not go).
    static func delete(library: UUID?, gate: WriteGate, on db: any Database) async throws {
        try await gate.transaction(on: db) { db in
            let condition: SQLQueryString = library.map { "library_id = \(bind: $0)" } ?? "library_id IS NULL"
            try await db.sql.raw("DELETE FROM mail_servers WHERE \(condition)").run()
            try await db.sql.raw("""
                UPDATE libraries SET reminders_on = \(bind: false)
                WHERE reminders_on = \(bind: true) AND NOT EXISTS (SELECT 1 FROM mail_servers s WHERE s.library_id = libraries.id OR s.library_id IS NULL)
                """).run()
        }
    }

    /// The row as the SMTP client takes it, the password opened.
    static func server(_ row: Row, app: Application) throws -> (server: SMTPServer, sender: MailAddress) {
        let password = try row.password_sealed.map { try app.secretBox().open($0) }
        let server = SMTPServer(host: row.host, port: row.port, security: SMTPServer.Security(rawValue: row.security) ?? .starttls,
                                username: row.username, password: password, clientName: app.mailClientName,
                                extraTrustRoots: app.mailTrustRoots, timeout: app.mailTimeout)
        return (server, MailAddress(row.sender_address, name: row.sender_name ?? ""))
    }
}

extension Application {
    private struct MailTrustRootsKey: StorageKey { typealias Value = [String] }
    private struct MailTimeoutKey: StorageKey { typealias Value = TimeAmount }

    /// PEM files of certificate authorities a mail server's certificate may chain to, besides the
    /// system's (`SHELFMARK_SMTP_CA_FILE`: a school's own authority; the tests' throwaway one).
    var mailTrustRoots: [String] {
        get { storage[MailTrustRootsKey.self] ?? ProcessInfo.processInfo.environment["SHELFMARK_SMTP_CA_FILE"].map { [$0] } ?? [] }
        set { storage[MailTrustRootsKey.self] = newValue }
    }

    /// How long the mail server may take to answer each step.
    var mailTimeout: TimeAmount {
        get {
            storage[MailTimeoutKey.self]
                ?? ProcessInfo.processInfo.environment["SHELFMARK_SMTP_TIMEOUT"].flatMap(Int64.init).map { .seconds(max(1, min($0, 120))) }
                ?? .seconds(20)
        }
        set { storage[MailTimeoutKey.self] = newValue }
    }

    /// The name given in EHLO: this machine's.
    var mailClientName: String {
        let host = ProcessInfo.processInfo.hostName
        return host.isEmpty || !host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) ? "shelfmark.localdomain" : host
    }
}
