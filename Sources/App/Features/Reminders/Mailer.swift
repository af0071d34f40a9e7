import Fluent
import FluentSQL
import Foundation
import NIOCore
import ShelfmarkCore
import ShelfmarkMail
import SQLKit
import Vapor

/// The outbox and the delivery log in one table (`mail_messages`): a message is queued in the
/// transaction that decides it (a reminder run, a copy set aside for a hold, a test), then `deliver`
/// claims the library's queued messages (a lease, so two instances never send one twice), opens one
/// SMTP connection for all of them and keeps each message's status and the server's answer.
enum Mailer {
    static let maxReply = 500
    static let lease: TimeInterval = 600

    struct Outgoing: Sendable {
        var kind: MailKind
        var memberID: UUID?
        var cardID: String?
        var name: String?
        var recipient: String
        var language: String
        var subject: String
        var body: String
        var loanCount: Int = 0
        /// The files it carries, as JSON (`[MailAttachment]`), kept until it is sent.
        var attachments: String? = nil
    }

    static func queue(_ m: Outgoing, library: UUID, createdBy: String, now: Date, on db: any Database) async throws -> UUID {
        let id = UUID()
        try await db.sql.raw("""
            INSERT INTO mail_messages (id, library_id, kind, member_id, member_card_id, member_name, recipient, language, subject, body,
                                       loan_count, status, created_by, created_at, attachments)
            VALUES (\(bind: id), \(bind: library), \(bind: m.kind.rawValue), \(bind: m.memberID), \(bind: m.cardID), \(bind: m.name),
                    \(bind: m.recipient), \(bind: m.language), \(bind: m.subject), \(bind: m.body), \(bind: m.loanCount), 'queued',
                    \(bind: createdBy), \(bind: now), \(bind: m.attachments))
            """).run()
        return id
    }

    private struct Claimed: Decodable {
        var id: UUID
        var recipient: String
        var member_name: String?
        var language: String
        var subject: String
        var body: String
        var attachments: String?

        var files: [MailAttachment] {
            attachments.flatMap { try? JSONDecoder().decode([MailAttachment].self, from: Data($0.utf8)) } ?? []
        }
    }

    /// Sends the library's queued messages (those of `only`, when given) over one connection.
    @discardableResult
    static func deliver(library: UUID, app: Application, only: [UUID]? = nil) async throws -> (sent: Int, failed: Int) {
        let now = app.clock.now()
        let restrict: SQLQueryString = only.map { "AND id IN (\(binds: $0))" } ?? ""
        let claimed = try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("""
                UPDATE mail_messages SET status = 'sending', lease_until = \(bind: now.addingTimeInterval(lease))
                WHERE library_id = \(bind: library) \(restrict)
                  AND (status = 'queued' OR (status = 'sending' AND lease_until < \(bind: now)))
                RETURNING id, recipient, member_name, language, subject, body, attachments
                """).all(decoding: Claimed.self)
        }
        guard !claimed.isEmpty else { return (0, 0) }
        guard let row = try await MailServers.effective(library: library, on: app.db) else {
            for message in claimed { try await finish(message.id, status: .failed, problem: .noServer, reply: nil, app: app) }
            return (0, claimed.count)
        }
        let settings: (server: SMTPServer, sender: MailAddress)
        do {
            settings = try MailServers.server(row, app: app)
        } catch {
            for message in claimed { try await finish(message.id, status: .failed, problem: .auth, reply: String(describing: error), app: app) }
            return (0, claimed.count)
        }
        let session: SMTPSession
        do {
            session = try await SMTPSession.open(settings.server, group: app.eventLoopGroup)
        } catch {
            let (problem, reply) = describe(error)
            for message in claimed { try await finish(message.id, status: .failed, problem: problem, reply: reply, app: app) }
            app.logger.warning("mail: could not reach \(row.host):\(row.port): \(reply)")
            return (0, claimed.count)
        }
        var sent = 0, failed = 0
        var lost: (MailProblem, String)?
        for message in claimed {
            if let lost {
                try await finish(message.id, status: .failed, problem: lost.0, reply: lost.1, app: app)
                failed += 1
                continue
            }
            // An address that is not one (written before the checks, or straight into the database) is
            // this message's failure alone, and final: it is not retried and the others still go.
            guard MailAddress.isValid(message.recipient) else {
                try await finish(message.id, status: .failed, problem: .address, reply: "not an address", app: app)
                app.logger.warning("mail: message \(message.id) not sent: its recipient is not an address")
                failed += 1
                continue
            }
            let mail = MailMessage(from: settings.sender, to: MailAddress(message.recipient, name: message.member_name ?? ""),
                                   subject: message.subject, text: message.body, language: message.language, date: app.clock.now(),
                                   id: message.id.uuidString.lowercased(), attachments: message.files)
            do {
                let reply = try await session.send(from: settings.sender.address, to: [message.recipient], message: mail.bytes)
                try await finish(message.id, status: .sent, problem: nil, reply: reply.description, app: app)
                sent += 1
            } catch {
                let (problem, reply) = describe(error)
                try await finish(message.id, status: .failed, problem: problem, reply: reply, app: app)
                failed += 1
                if problem != .rejected { lost = (problem, reply) }
            }
        }
        await session.close()
        return (sent, failed)
    }

    /// A sign-in link's body holds a secret: once handed over (or failed) it is blanked in the log, and
    /// such a message is never sent again (the member asks for a new link). A sent message's files go
    /// (the log keeps what was sent, not the files again); a failed one keeps them to be sent again.
    private static func finish(_ id: UUID, status: MailStatus, problem: MailProblem?, reply: String?, app: Application) async throws {
        let now = app.clock.now()
        try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("""
                UPDATE mail_messages SET status = \(bind: status.rawValue), problem = \(bind: problem?.rawValue),
                    reply = \(bind: reply.map { String($0.prefix(maxReply)) }), sent_at = \(bind: status == .sent ? now : nil), lease_until = NULL,
                    body = CASE WHEN kind = 'sign_in_link' THEN '' ELSE body END,
                    attachments = CASE WHEN \(bind: status == .sent) THEN NULL ELSE attachments END
                WHERE id = \(bind: id)
                """).run()
        }
        app.serverMetrics?.mail(sent: status == .sent)
    }

    /// What went wrong, as the log keeps it: the kind of problem and the server's (or the network's) words.
    static func describe(_ error: any Error) -> (MailProblem, String) {
        guard let error = error as? SMTPError else { return (.lost, String(String(describing: error).prefix(maxReply))) }
        switch error {
        case .connect(let why):
            let tls = ["tls", "ssl", "certificate", "handshake"].contains { why.lowercased().contains($0) }
            return (tls ? .tls : .connect, why)
        case .timeout: return (.timeout, error.description)
        case .rejected(let stage, let reply):
            return (stage == "AUTH" ? .auth : (stage == "MAIL FROM" || stage == "RCPT TO" || stage == "DATA" || stage == "message" ? .rejected : .lost), reply.description)
        case .tlsUnavailable: return (.tls, error.description)
        case .authUnavailable: return (.auth, error.description)
        case .closed(let why):
            let tls = ["certificate", "handshake", "ssl"].contains { why.lowercased().contains($0) }
            return (tls ? .tls : .lost, error.description)
        case .notAnAddress: return (.address, "not an address")
        }
    }

    // MARK: The log

    struct LogRow: Decodable {
        var id: UUID
        var kind: String
        var member_id: UUID?
        var member_card_id: String?
        var member_name: String?
        var recipient: String
        var language: String
        var subject: String
        var status: String
        var problem: String?
        var reply: String?
        var loan_count: Int
        var created_by: String
        var created_at: Date
        var sent_at: Date?

        var dto: MailMessageDTO {
            MailMessageDTO(id: id, kind: MailKind(rawValue: kind) ?? .test, memberId: member_id, memberCardId: member_card_id, memberName: member_name,
                           recipient: recipient, language: language, subject: subject, status: MailStatus(rawValue: status) ?? .failed,
                           problem: problem.flatMap(MailProblem.init(rawValue:)), reply: reply, loanCount: loan_count,
                           createdBy: created_by, createdAt: created_at, sentAt: sent_at)
        }
    }

    static let logColumns: SQLQueryString = """
        id, kind, member_id, member_card_id, member_name, recipient, language, subject, status, problem, reply, loan_count, created_by, created_at, sent_at
        """

    static func message(_ id: UUID, library: UUID, on db: any Database) async throws -> MailMessageDTO {
        guard let row = try await db.sql.raw("SELECT \(logColumns) FROM mail_messages WHERE id = \(bind: id) AND library_id = \(bind: library)")
            .first(decoding: LogRow.self) else { throw MailError.messageNotFound }
        return row.dto
    }

    /// The delivery log, newest first: `limit` messages before `before` (a message's time), only
    /// failures when asked, only one member's when given.
    static func log(library: UUID, limit: Int, before: Date?, failedOnly: Bool, member: UUID? = nil, now: Date, on db: any Database) async throws -> MailLogDTO {
        let older: SQLQueryString = before.map { "AND created_at < \(bind: $0)" } ?? ""
        let failed: SQLQueryString = failedOnly ? "AND status = 'failed'" : ""
        let who: SQLQueryString = member.map { "AND member_id = \(bind: $0)" } ?? ""
        let rows = try await db.sql.raw("""
            SELECT \(logColumns) FROM mail_messages WHERE library_id = \(bind: library) \(older) \(failed) \(who)
            ORDER BY created_at DESC, id DESC LIMIT \(unsafeRaw: String(limit + 1))
            """).all(decoding: LogRow.self)
        let failedLastDay = try await failedLastDay(library: library, now: now, on: db)
        let page = rows.prefix(limit).map(\.dto)
        return MailLogDTO(messages: Array(page), failedLastDay: failedLastDay,
                          nextCursor: rows.count > limit ? page.last.map { $0.createdAt.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)) } : nil)
    }

    /// How many of the library's messages failed in the last day (the overview's and the reminders page's banner).
    static func failedLastDay(library: UUID, now: Date, on db: any Database) async throws -> Int {
        struct Count: Decodable { var n: Int }
        return try await db.sql.raw("""
            SELECT COUNT(*) AS n FROM mail_messages WHERE library_id = \(bind: library) AND status = 'failed' AND created_at >= \(bind: now.addingTimeInterval(-86_400))
            """).first(decoding: Count.self)?.n ?? 0
    }

    /// A failed message queued again and sent now.
    static func retry(_ id: UUID, in scope: Scope, app: Application) async throws -> MailMessageDTO {
        let again = try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("""
                UPDATE mail_messages SET status = 'queued', problem = NULL, reply = NULL
                WHERE id = \(bind: id) AND library_id = \(bind: scope.libraryID) AND status = 'failed' AND kind <> 'sign_in_link'
                  AND (problem IS NULL OR problem <> 'address') RETURNING id
                """).first()
        }
        if again == nil {
            _ = try await message(id, library: scope.libraryID, on: scope.db)
            throw MailError.notFailed
        }
        try await deliver(library: scope.libraryID, app: app, only: [id])
        return try await message(id, library: scope.libraryID, on: scope.db)
    }

    /// Test messages a library may send in an hour.
    static let testsPerHour = 5

    /// A test message to `to` through the library's server, sent now: the log's entry, with the answer.
    /// Its text is the language's own (not editable). Only the installation's administrator sends one
    /// anywhere and sees what a far server said; anyone else sends to the library's own addresses (the
    /// server's sender, the reminders' contact) and is told what went wrong in plain words. At most
    /// `testsPerHour` an hour for a library.
    static func test(to: String, asAdministrator: Bool, in scope: Scope, app: Application) async throws -> MailMessageDTO {
        guard let address = try Check.email(to, field: "to") else { throw InputProblem.empty(field: "to") }
        guard let server = try await MailServers.effective(library: scope.libraryID, on: scope.db) else { throw MailError.noServer }
        let sender = try await Reminders.sender(scope.libraryID, on: scope.db)
        if !asAdministrator {
            let own = [server.sender_address, sender.contact].map { $0.lowercased() }
            guard own.contains(address.lowercased()) else { throw MailError.testOnlyToLibrary(server.sender_address) }
        }
        let lang = Reminders.language(nil, library: sender, among: app.languages)
        let rendered = MailTemplates.render(MailTemplates.defaultText(.test, Strings(lang: lang)), ["library": sender.name, "contact": sender.contact])
        let id = try await scope.gate.transaction(on: scope.db) { db -> UUID in
            struct Count: Decodable { var n: Int }
            let recent = try await db.sql.raw("""
                SELECT COUNT(*) AS n FROM mail_messages WHERE library_id = \(bind: scope.libraryID) AND kind = 'test'
                  AND created_at > \(bind: scope.now.addingTimeInterval(-3_600))
                """).first(decoding: Count.self)?.n ?? 0
            guard recent < testsPerHour else { throw MailError.tooManyTests(max: testsPerHour) }
            return try await queue(.init(kind: .test, recipient: address, language: lang.rawValue, subject: rendered.subject, body: rendered.body),
                                   library: scope.libraryID, createdBy: scope.library.user.username, now: scope.now, on: db)
        }
        try await deliver(library: scope.libraryID, app: app, only: [id])
        var sent = try await message(id, library: scope.libraryID, on: scope.db)
        if !asAdministrator { sent = sent.plainWords }
        return sent
    }
}

extension MailMessageDTO {
    /// What a far server said is kept from everyone but the administrator when the connection itself
    /// failed (a banner, a TLS alert: what a port scan would learn); the problem's kind stays.
    var plainWords: MailMessageDTO {
        var copy = self
        if status == .failed, let problem, [.connect, .timeout, .tls, .lost, .auth].contains(problem) { copy.reply = nil }
        return copy
    }
}
