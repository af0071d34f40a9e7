import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Reminders, for owners: when they go out, the mail server they go through (the
/// library's own or the installation's), a test message, the texts in every language, and how many
/// failed in the last day (a link to the delivery log). Each form keeps what was typed after a refusal.
struct RemindersPage: Sendable {
    enum Form: Sendable { case settings, server, installation, test }

    static let settingsFields: Set<String> = ["enabled", "hour", "beforeDays", "overdueDays1", "overdueDays2", "overdueDays3", "language", "contact"]
    static let serverFields: Set<String> = ["host", "port", "security", "username", "senderAddress", "senderName"]
    static let testFields: Set<String> = ["to"]

    var libraryID: UUID
    var enabled: Bool
    var next: Date?
    var effective: MailServerDTO?
    var ownServer: Bool
    var failedLastDay: Int
    var edited: Set<MailTemplates.Key>
    /// Members with overdue books and no email: their letters are printed.
    var withoutEmail = 0
    var languages: [Lang]
    var settings: FormState
    var server: FormState
    var test = FormState()
    /// The installation's server, for the administrator.
    var isAdmin = false
    var installation = FormState()
    var hasInstallationServer = false
    var refused: Form?

    static func make(library ctx: LibraryContext, app: Application, now: Date) async throws -> RemindersPage {
        let db = app.db
        let current = try await Reminders.settings(library: ctx.libraryID, on: db)
        let own = try await MailServers.own(library: ctx.libraryID, on: db)
        var settings = FormState(values: ["enabled": current.enabled ? "true" : "", "hour": String(current.hour),
                                          "beforeDays": String(current.beforeDays ?? 0), "language": current.language, "contact": current.contact ?? ""])
        for (i, day) in current.overdueDays.enumerated() { settings.values["overdueDays\(i + 1)"] = String(day) }
        let server = FormState(values: own.map(Self.values) ?? ["port": "587", "security": "starttls"])
        var next: Date?
        if current.enabled, let zone = try await RecurringJobs.library(ctx.libraryID, on: db) {
            next = RecurringJobs.planned(library: zone, now: now).first { $0.kind == .reminders }?.next
        }
        let everyone = try await MailServers.own(library: nil, on: db)
        let isAdmin = try await ServerSettings.isAdmin(ctx.user, on: db)
        return RemindersPage(libraryID: ctx.libraryID, enabled: current.enabled, next: next, effective: current.mailServer, ownServer: own != nil,
                             failedLastDay: try await Mailer.failedLastDay(library: ctx.libraryID, now: now, on: db), edited: Set(try await MailTemplates.texts(library: ctx.libraryID, on: db).keys),
                             withoutEmail: try await OverdueGlance.withoutEmail(library: ctx.libraryID, now: now, on: db),
                             languages: app.languages, settings: settings, server: server, isAdmin: isAdmin,
                             installation: FormState(values: everyone.map(Self.values) ?? ["port": "587", "security": "starttls"]),
                             hasInstallationServer: everyone != nil)
    }

    /// A server's settings as its form shows them (never the password).
    static func values(_ row: MailServers.Row) -> [String: String] {
        ["host": row.host, "port": String(row.port), "security": row.security, "username": row.username ?? "",
         "senderAddress": row.sender_address, "senderName": row.sender_name ?? ""]
    }

    /// The page again after `form` was refused with `error`, as it was typed (never the password).
    static func refused(_ form: Form, _ error: any Error, typed: [String: String], library ctx: LibraryContext, app: Application, now: Date,
                        t: Strings) async throws -> RemindersPage {
        var page = try await make(library: ctx, app: app, now: now)
        page.refused = form
        switch form {
        case .settings: page.settings = FormState(values: typed, refusedWith: error, t: t, fields: settingsFields)
        case .server: page.server = FormState(values: typed, refusedWith: error, t: t, fields: serverFields.union(["password"]))
        case .installation: page.installation = FormState(values: typed, refusedWith: error, t: t, fields: serverFields.union(["password"]))
        case .test: page.test = FormState(values: typed, refusedWith: error, t: t, fields: testFields)
        }
        return page
    }

    static func kindName(_ kind: MailKind, _ t: Strings) -> String {
        switch kind {
        case .dueSoon: t(.templateKindDueSoon)
        case .overdue1: t(.templateKindOverdue1)
        case .overdue2: t(.templateKindOverdue2)
        case .overdue3: t(.templateKindOverdue3)
        case .holdReady: t(.templateKindHoldReady)
        case .test: t(.templateKindTest)
        case .signInLink: t(.templateKindSignInLink)
        case .report: t(.templateKindReport)
        }
    }

    static func problem(_ problem: MailProblem?, _ t: Strings) -> String {
        switch problem {
        case .noServer: t(.mailProblemNoServer)
        case .connect: t(.mailProblemConnect)
        case .timeout: t(.mailProblemTimeout)
        case .tls: t(.mailProblemTls)
        case .auth: t(.mailProblemAuth)
        case .rejected: t(.mailProblemRejected)
        case .address: t(.mailProblemAddress)
        case .lost, nil: t(.mailProblemLost)
        }
    }

    /// What a message's fate says in a flash: it went out (and the server's answer), or why not.
    static func outcome(_ message: MailMessageDTO, _ t: Strings) -> (text: String, failed: Bool) {
        if message.status == .sent { return (t.format(.mailWentOut, message.recipient, message.reply ?? ""), false) }
        return (t.format(.mailDidNotGo, message.recipient, problem(message.problem, t), message.reply ?? ""), true)
    }
}
