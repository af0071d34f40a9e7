import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkMail
import Vapor

/// Reminders on the web: the settings page (owners), a message text, the delivery log
/// (librarians) with "send again", and "remind now" on a member's page (staff who lend).
enum ReminderPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.reminders(library: .pattern), use: page)
        web.post(.reminders(library: .pattern), use: saveSettings)
        web.post(.mailServer(library: .pattern), use: saveServer)
        web.post(.mailServerRemove(library: .pattern), use: removeServer)
        web.post(.installationMailServer(library: .pattern), use: saveInstallationServer)
        web.post(.mailTest(library: .pattern), use: test)
        web.get(.mailTemplate(library: .pattern), use: template)
        web.post(.mailTemplate(library: .pattern), use: saveTemplate)
        web.get(.mailLog(library: .pattern), use: log)
        web.post(.mailRetry(library: .pattern, message: .pattern), use: retry)
        web.post(.memberRemind(library: .pattern, member: .pattern), use: remind)
    }

    /// The settings as the page sends them: every field each time; an unticked box is off, an empty
    /// overdue day is none.
    struct SettingsForm: WebForm {
        var enabled: Bool
        var hour: Int?
        var beforeDays: Int?
        var overdueDays1: Int?
        var overdueDays2: Int?
        var overdueDays3: Int?
        var language: String?
        var contact: String?
        static var maxLength: [String: Int] { ["language": 20, "contact": Reminders.maxContact] }

        var patch: ReminderSettingsPatch {
            ReminderSettingsPatch(enabled: enabled, hour: hour, beforeDays: beforeDays ?? 0,
                                  overdueDays: [overdueDays1, overdueDays2, overdueDays3].compactMap { $0 }, language: language, contact: contact ?? "")
        }
    }

    /// The mail server form; an empty password keeps the one kept.
    struct ServerForm: WebForm {
        var host: String?
        var port: Int?
        var security: SMTPServer.Security?
        var username: String?
        var senderAddress: String?
        var senderName: String?
        /// "remove" on the installation's form.
        var action: String?
        static var maxLength: [String: Int] { defaultBounds(MailServerPut.schemaConstraints).merging(["action": 10]) { $1 } }

        func put(password: String) -> MailServerPut {
            MailServerPut(host: host ?? "", port: port ?? 0, security: security ?? .starttls, username: username,
                          password: password.isEmpty ? nil : password, senderAddress: senderAddress ?? "", senderName: senderName)
        }
    }

    struct TestForm: WebForm {
        var to: String?
        static var maxLength: [String: Int] { ["to": 254] }
    }

    struct TemplateForm: WebForm {
        var subject: String?
        var body: String?
        var action: String?
        static var maxLength: [String: Int] { ["subject": MailTemplates.maxSubject, "body": MailTemplates.maxBody, "action": 10] }
    }

    @Sendable static func page(req: Request) async throws -> HTML {
        let ctx = try await req.library(.administer)
        return try await RemindersPage.make(library: ctx, app: req.application, now: req.now).render(try await req.page(library: ctx))
    }

    /// A refused form shown again on the page, with what was typed and why.
    static func refusal(_ req: Request, ctx: LibraryContext, form: RemindersPage.Form, fields: Set<String>,
                        _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error where error.isFormRefusal {
            let page = try await RemindersPage.refused(form, error, typed: req.typed(fields), library: ctx, app: req.application, now: req.now, t: req.t)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func saveSettings(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .settings, fields: RemindersPage.settingsFields) {
            _ = try await Reminders.update(try req.form(SettingsForm.self).patch, languages: req.application.languages, in: req.scope(ctx))
            return req.seeOther(WebRoute.reminders(library: ctx.libraryID).path, flash: req.t(.remindersSaved))
        }
    }

    @Sendable static func saveServer(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .server, fields: RemindersPage.serverFields) {
            _ = try await MailServers.put(library: ctx.libraryID, try req.form(ServerForm.self).put(password: req.password),
                                          mayUsePrivateHosts: try await ServerSettings.isAdmin(ctx.user, on: req.db), box: try req.application.secretBox(), now: req.now,
                                          gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.reminders(library: ctx.libraryID).path + "#server", flash: req.t(.mailServerSaved))
        }
    }

    /// The installation's server (the administrator only): saved, or removed.
    @Sendable static func saveInstallationServer(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        guard try await ServerSettings.isAdmin(ctx.user, on: req.db) else { throw AccountError.serverSettingsAdminOnly }
        let here = WebRoute.reminders(library: ctx.libraryID).path + "#all"
        return try await refusal(req, ctx: ctx, form: .installation, fields: RemindersPage.serverFields) {
            let form = try req.form(ServerForm.self)
            if form.action == "remove" {
                try await MailServers.delete(library: nil, gate: req.application.writeGate, on: req.db)
                return req.seeOther(here, flash: req.t(.mailServerRemoved))
            }
            _ = try await MailServers.put(library: nil, form.put(password: req.password), mayUsePrivateHosts: true, box: try req.application.secretBox(), now: req.now,
                                          gate: req.application.writeGate, on: req.db)
            return req.seeOther(here, flash: req.t(.mailServerSaved))
        }
    }

    @Sendable static func removeServer(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        try await MailServers.delete(library: ctx.libraryID, gate: req.application.writeGate, on: req.db)
        return req.seeOther(WebRoute.reminders(library: ctx.libraryID).path + "#server", flash: req.t(.mailServerRemoved))
    }

    @Sendable static func test(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        return try await refusal(req, ctx: ctx, form: .test, fields: RemindersPage.testFields) {
            let message = try await Mailer.test(to: try req.form(TestForm.self).to ?? "", asAdministrator: try await ServerSettings.isAdmin(ctx.user, on: req.db),
                                                in: req.scope(ctx), app: req.application)
            let said = RemindersPage.outcome(message, req.t(ctx))
            return req.seeOther(WebRoute.reminders(library: ctx.libraryID).path + "#test", flash: said.text, isError: said.failed)
        }
    }

    static func templateChoice(_ req: Request) throws -> (MailKind, Lang) {
        let kind = try req.query[String.self, at: "kind"].map { raw in
            guard let kind = MailKind(rawValue: raw), kind.editable else {
                throw RequestError.oneOf(field: "kind", allowed: MailKind.allCases.filter(\.editable).map(\.rawValue), got: raw)
            }
            return kind
        } ?? .dueSoon
        let code = req.query[String.self, at: "lang"] ?? req.lang.rawValue
        guard let lang = req.application.languages.first(where: { $0.rawValue == code }) else {
            throw RequestError.oneOf(field: "lang", allowed: req.application.languages.map(\.rawValue), got: code)
        }
        return (kind, lang)
    }

    @Sendable static func template(req: Request) async throws -> HTML {
        let ctx = try await req.library(.administer)
        let (kind, lang) = try templateChoice(req)
        return try await MailTemplatePage.make(kind: kind, language: lang, languages: req.application.languages, library: ctx.libraryID, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func saveTemplate(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let (kind, lang) = try templateChoice(req)
        let here = WebRoute.mailTemplate(library: ctx.libraryID).path(query: [("kind", kind.rawValue), ("lang", lang.rawValue)])
        let form = try req.form(TemplateForm.self)
        if form.action == "reset" {
            _ = try await MailTemplates.reset(kind: kind, language: lang, in: req.scope(ctx))
            return req.seeOther(here, flash: req.t(.templateResetDone))
        }
        do {
            _ = try await MailTemplates.put(.init(subject: form.subject ?? "", body: form.body ?? ""), kind: kind, language: lang, in: req.scope(ctx))
            return req.seeOther(here, flash: req.t(.templateSaved))
        } catch let error where error.isFormRefusal {
            var page = try await MailTemplatePage.make(kind: kind, language: lang, languages: req.application.languages, library: ctx.libraryID, on: req.db)
            page.form = FormState(values: req.typed(MailTemplatePage.fields), refusedWith: error, t: req.t, fields: MailTemplatePage.fields)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func log(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        let failed = try req.flag("failed")
        let before = req.query[String.self, at: "before"].flatMap(DateParsing.moment)
        return try await MailLogPage.make(failedOnly: failed, before: before, library: ctx, now: req.now, on: req.db).render(try await req.page(library: ctx))
    }

    @Sendable static func retry(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let back = (try req.form(BackForm.self)).back.flatMap(LocalPath.validate) ?? WebRoute.mailLog(library: ctx.libraryID).path
        return try await req.seeOther(back) {
            let message = try await Mailer.retry(try req.uuid("messageID"), in: req.scope(ctx), app: req.application)
            return RemindersPage.outcome(message, req.t(ctx)).text
        }
    }

    struct RemindForm: WebForm {
        var back: String?
        var again: Bool?
        static var maxLength: [String: Int] { ["back": 2_000] }
    }

    @Sendable static func remind(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        let form = try req.form(RemindForm.self)
        let back = form.back.flatMap(LocalPath.validate) ?? WebRoute.member(library: ctx.libraryID, member: memberID).path
        do {
            let message = try await Reminders.remindNow(member: memberID, again: form.again == true, in: req.scope(ctx), app: req.application)
            let said = RemindersPage.outcome(message, req.t(ctx))
            return req.seeOther(back, flash: said.text, isError: said.failed)
        } catch MailError.remindedToday(let at, let daily) {
            // Asked before the same reminder goes out twice in a day.
            let t = req.t(ctx)
            let name = try await Members.find(memberID, library: ctx.libraryID, on: req.db).fullName
            let page = RemindAgainPage(libraryID: ctx.libraryID, memberID: memberID, name: name, back: back,
                                       said: t.format(daily ? .errRemindedTodayDaily : .errRemindedToday, t.time(at)))
            return try await req.answer(page.render(try await req.page(library: ctx)), status: .conflict)
        } catch let error where error.isFormRefusal {
            return req.seeOther(back, flash: req.t.message(error), isError: true)
        }
    }
}

/// "Remind now" for a member reminded today already: said, and asked before the same goes out again.
struct RemindAgainPage: Sendable {
    var libraryID: UUID
    var memberID: UUID
    var name: String
    var back: String
    var said: String

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.remindNow)) {
            H.el(.h1, [:]) { EscapedText(t(.remindNow) + ": " + name) }
            H.el(.section, [.class: "card"]) {
                H.el(.p, [.role: "alert"]) { EscapedText(said) }
                H.form(WebRoute.memberRemind(library: libraryID, member: memberID).path, csrf: page.csrf, attrs: [.class: "actions"]) {
                    H.void(.input, [.type: "hidden", .name: "back", .value: back])
                    H.void(.input, [.type: "hidden", .name: "again", .value: "true"])
                    H.button(t(.remindAgain))
                    H.link(t(.keepAsIs), back, cls: "button quiet")
                }
            }
        }
    }
}
