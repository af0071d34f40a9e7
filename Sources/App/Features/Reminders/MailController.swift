import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Reminders and mail: the reminder policy, the mail server (a library's own, or the
/// installation's, set by the administrator), the message templates in every language, a test
/// message, the delivery log (with "send again"), and "remind now" for one member.
enum MailController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "reminders", doc: .init(summary: "The reminder settings and the mail server messages go through (librarians)",
                                             tag: "Reminders", response: ReminderSettingsDTO.self), use: settings)
        lib.on(.PATCH, "reminders", doc: .init(
            summary: "Change the reminder settings (owners). Switching reminders on needs a mail server (409 `no_mail_server`)",
            tag: "Reminders", request: ReminderSettingsPatch.self, response: ReminderSettingsDTO.self), use: updateSettings)
        lib.on(.GET, "mail", "server", doc: .init(summary: "The library's own mail server (owners); 404 when it has none (it may use the installation's)",
                                                  tag: "Reminders", response: MailServerDTO.self), use: libraryServer)
        lib.on(.PUT, "mail", "server", doc: .init(
            summary: "Set the library's own mail server (owners). The password is kept encrypted and never returned; absent keeps the kept one, empty removes it",
            tag: "Reminders", request: MailServerPut.self, response: MailServerDTO.self), use: putLibraryServer)
        lib.on(.DELETE, "mail", "server", doc: .init(summary: "Remove the library's own mail server (owners): it sends through the installation's, if any",
                                                     tag: "Reminders", status: .noContent), use: deleteLibraryServer)
        lib.on(.POST, "mail", "test", doc: .init(
            summary: "Send a test message now through the library's mail server (owners): the log's entry, sent or failed with the server's answer",
            tag: "Reminders", request: TestMailRequest.self, response: MailMessageDTO.self), use: test)
        lib.on(.GET, "mail", "messages", doc: .init(
            summary: "The delivery log, newest first (librarians): every message with its status and the server's answer",
            tag: "Reminders",
            query: [.init(name: "limit", kind: .integer, description: "At most this many (1–200, default 50).", schema: Rule.range(1...200)),
                    .init(name: "before", description: "Messages created before this moment (the previous page's `nextCursor`).", format: "date-time"),
                    .init(name: "failed", kind: .boolean, description: "Only messages that failed."),
                    .init(name: "member", description: "Only this member's messages.", format: "uuid")],
            response: MailLogDTO.self), use: log)
        lib.on(.POST, "mail", "messages", ":messageID", "retry", doc: .init(
            summary: "Send a failed message again, now (librarians); 409 `not_failed` for one that did not fail", tag: "Reminders",
            response: MailMessageDTO.self), use: retry)
        lib.on(.GET, "mail", "templates", doc: .init(
            summary: "Every message template in every language: the library's text or the default (librarians)", tag: "Reminders",
            response: MailTemplateDTO.self, responseIsArray: true), use: templates)
        lib.on(.PUT, "mail", "templates", doc: .init(
            summary: "Set the library's text of one template in one language (owners); only the kind's placeholders, and a reminder must contain {loans}",
            tag: "Reminders", request: MailTemplateInput.self, response: MailTemplateDTO.self), use: putTemplate)
        lib.on(.POST, "mail", "templates", "reset", doc: .init(
            summary: "Go back to the default text of one template in one language (owners)", tag: "Reminders",
            request: MailTemplateKey.self, response: MailTemplateDTO.self), use: resetTemplate)
        lib.on(.GET, .reminderLetters(library: .pattern), doc: .init(
            summary: "A PDF of letters for members with overdue books and no email address: one per member, their overdue books, the library's name and contact, in the member's language (staff who lend)",
            tag: "Reminders"), use: letters)
        lib.on(.GET, "loans", "overdue-by-member", doc: .init(
            summary: "Overdue at a glance: members with overdue loans, the most overdue first, each with their overdue loans and the last reminder sent",
            tag: "Reminders", query: [.init(name: "limit", kind: .integer, description: "At most this many members (1–500, default 100).",
                                            schema: Rule.range(1...500))],
            response: OverdueMemberDTO.self, responseIsArray: true), use: overdueByMember)
        lib.on(.POST, "members", ":memberID", "reminders", doc: .init(
            summary: "Remind a member now of their loans due soon or overdue, in one message (staff who lend); 409 when they have no email or nothing to remind of, and 409 `reminded_today` (with `at`) when they were reminded today already unless `again=true`",
            tag: "Reminders", query: [.init(name: "again", kind: .boolean, description: "Send even though the member was reminded today (default false).")],
            response: MailMessageDTO.self), use: remindNow)
        api.on(.GET, "server", "mail", doc: .init(summary: "The installation's mail server (the administrator); 404 when none is set",
                                                  tag: "Reminders", response: MailServerDTO.self), use: installationServer)
        api.on(.PUT, "server", "mail", doc: .init(summary: "Set the installation's mail server, used by libraries without their own (the administrator)",
                                                  tag: "Reminders", request: MailServerPut.self, response: MailServerDTO.self), use: putInstallationServer)
        api.on(.DELETE, "server", "mail", doc: .init(summary: "Remove the installation's mail server (the administrator)", tag: "Reminders",
                                                     status: .noContent), use: deleteInstallationServer)
    }

    @Sendable static func settings(req: Request) async throws -> ReminderSettingsDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Reminders.settings(library: ctx.libraryID, on: req.db)
    }

    @Sendable static func updateSettings(req: Request) async throws -> ReminderSettingsDTO {
        let ctx = try await req.library(.administer)
        return try await Reminders.update(try req.content.decode(ReminderSettingsPatch.self), languages: req.application.languages, in: req.scope(ctx))
    }

    @Sendable static func libraryServer(req: Request) async throws -> MailServerDTO {
        let ctx = try await req.library(.administer)
        guard let row = try await MailServers.own(library: ctx.libraryID, on: req.db) else { throw MailError.noOwnServer }
        return row.dto
    }

    @Sendable static func putLibraryServer(req: Request) async throws -> MailServerDTO {
        let ctx = try await req.library(.administer)
        return try await MailServers.put(library: ctx.libraryID, try req.content.decode(MailServerPut.self),
                                         mayUsePrivateHosts: try await ServerSettings.isAdmin(ctx.user, on: req.db), box: try req.application.secretBox(),
                                         now: req.now, gate: req.application.writeGate, on: req.db)
    }

    @Sendable static func deleteLibraryServer(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.administer)
        try await MailServers.delete(library: ctx.libraryID, gate: req.application.writeGate, on: req.db)
        return .noContent
    }

    @Sendable static func test(req: Request) async throws -> MailMessageDTO {
        let ctx = try await req.library(.administer)
        return try await Mailer.test(to: try req.content.decode(TestMailRequest.self).to, asAdministrator: try await ServerSettings.isAdmin(ctx.user, on: req.db),
                                     in: req.scope(ctx), app: req.application)
    }

    @Sendable static func log(req: Request) async throws -> MailLogDTO {
        let ctx = try await req.library(.manageMembers)
        let limit = try req.intQuery("limit", default: 50, range: 1...200)
        var before: Date?
        if let raw = req.query[String.self, at: "before"], !raw.isEmpty {
            guard let moment = DateParsing.moment(raw) else { throw InputProblem.notADate(field: "before", value: String(raw.prefix(40))) }
            before = moment
        }
        let failed = try req.flag("failed")
        let member = try req.uuidQuery("member")
        return try await Mailer.log(library: ctx.libraryID, limit: limit, before: before, failedOnly: failed, member: member, now: req.now, on: req.db)
    }

    @Sendable static func retry(req: Request) async throws -> MailMessageDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Mailer.retry(try req.uuid("messageID"), in: req.scope(ctx), app: req.application)
    }

    @Sendable static func templates(req: Request) async throws -> [MailTemplateDTO] {
        let ctx = try await req.library(.manageMembers)
        let edited = try await MailTemplates.texts(library: ctx.libraryID, on: req.db)
        // A saved report's message is made from the report, not from a template.
        return MailKind.allCases.filter { $0 != .report }.flatMap { kind in
            req.application.languages.map { lang in
                MailTemplates.dto(kind, lang, edited[.init(kind: kind, language: lang.rawValue)] ?? MailTemplates.defaultText(kind, Strings(lang: lang)))
            }
        }
    }

    @Sendable static func putTemplate(req: Request) async throws -> MailTemplateDTO {
        let ctx = try await req.library(.administer)
        let input = try req.content.decode(MailTemplateInput.self)
        let lang = try language(input.language, req)
        return try await MailTemplates.put(.init(subject: input.subject, body: input.body), kind: input.kind, language: lang, in: req.scope(ctx))
    }

    @Sendable static func resetTemplate(req: Request) async throws -> MailTemplateDTO {
        let ctx = try await req.library(.administer)
        let key = try req.content.decode(MailTemplateKey.self)
        return try await MailTemplates.reset(kind: key.kind, language: try language(key.language, req), in: req.scope(ctx))
    }

    static func language(_ code: String, _ req: Request) throws -> Lang {
        guard let lang = req.application.languages.first(where: { $0.rawValue == code }) else { throw MailError.unknownLanguage(String(code.prefix(20))) }
        return lang
    }

    @Sendable static func letters(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let now = req.now
        let (sender, letters) = try await Letters.letters(library: ctx.libraryID, now: now, languages: req.application.languages, on: req.db)
        let title = req.t(ctx)(.lettersTitle) + " · " + sender.name
        let bytes = try await req.application.threadPool.runIfActive { try Letters.pdf(letters, sender: sender, now: now, title: title) }
        let response = Response(status: .ok, body: .init(data: Data(bytes)))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "pdf")
        let day = now.formatted(.iso8601.year().month().day())
        response.headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"letters-\(day).pdf\"")
        response.headers.replaceOrAdd(name: "X-Letter-Count", value: String(letters.count))
        return response
    }

    @Sendable static func overdueByMember(req: Request) async throws -> [OverdueMemberDTO] {
        let ctx = try await req.library(.read)
        return try await OverdueGlance.members(library: ctx.libraryID, policy: ctx.policy, now: req.now,
                                               limit: try req.intQuery("limit", default: 100, range: 1...500), on: req.db)
    }

    @Sendable static func remindNow(req: Request) async throws -> MailMessageDTO {
        let ctx = try await req.library(.circulate)
        let again = try req.flag("again")
        return try await Reminders.remindNow(member: try req.uuid("memberID"), again: again, in: req.scope(ctx), app: req.application)
    }

    @Sendable static func installationServer(req: Request) async throws -> MailServerDTO {
        try await ServerSettings.requireAdmin(req)
        guard let row = try await MailServers.own(library: nil, on: req.db) else { throw MailError.noOwnServer }
        return row.dto
    }

    @Sendable static func putInstallationServer(req: Request) async throws -> MailServerDTO {
        try await ServerSettings.requireAdmin(req)
        return try await MailServers.put(library: nil, try req.content.decode(MailServerPut.self), mayUsePrivateHosts: true, box: try req.application.secretBox(),
                                         now: req.now, gate: req.application.writeGate, on: req.db)
    }

    @Sendable static func deleteInstallationServer(req: Request) async throws -> HTTPStatus {
        try await ServerSettings.requireAdmin(req)
        try await MailServers.delete(library: nil, gate: req.application.writeGate, on: req.db)
        return .noContent
    }

}

/// One template's text: which kind, which language.
struct MailTemplateInput: Content {
    var kind: MailKind
    var language: String
    var subject: String
    var body: String
}

/// Which template: its kind and language.
struct MailTemplateKey: Content {
    var kind: MailKind
    var language: String
}

/// A moment as a client writes it: ISO 8601 with or without fractions of a second.
enum DateParsing {
    static func moment(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)))
            ?? (try? Date(text, strategy: .iso8601))
            ?? (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
    }
}
