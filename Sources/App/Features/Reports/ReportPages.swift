import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The reports' pages: the list of them with the saved ones, and one with its period and filters;
/// the forms that save a report, change or delete a saved one, and mail it now.
enum ReportPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.reports(library: .pattern), use: reports)
        web.get(.report(library: .pattern, kind: .circulation), use: report)
        web.post(.savedReports(library: .pattern), use: save)
        web.post(.savedReport(library: .pattern, saved: .pattern), use: change)
        web.post(.savedReportDelete(library: .pattern, saved: .pattern), use: delete)
        web.post(.savedReportSend(library: .pattern, saved: .pattern), use: send)
    }

    struct SaveForm: WebForm {
        var name, kind, options: String?
        static var maxLength: [String: Int] { ["name": SavedReports.maxName, "kind": 40, "options": SavedReports.maxOptions] }
    }

    struct ChangeForm: WebForm {
        var name, schedule, recipients: String?
        static var maxLength: [String: Int] { ["name": SavedReports.maxName, "schedule": 20, "recipients": 3_000] }
    }

    @Sendable static func reports(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        let saved = try await SavedReports.list(library: ctx.libraryID, on: req.db).map { SavedReports.dto($0, zone: ctx.policy.timeZone, now: req.now) }
        return ReportsPage(libraryID: ctx.libraryID, saved: saved, isOwner: ctx.role.may(.administer)).render(try await req.page(library: ctx))
    }

    @Sendable static func report(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        guard let kind = req.parameters.get("kind").flatMap(ReportKind.init(rawValue:)) else { throw RequestError.noSuchPath(field: "kind") }
        // A class teacher: the readers report of their classes only.
        var limited = ReportOptions()
        try await ClassTeachers.limit(ctx, kind: kind, options: &limited, on: req.db)
        let forced = !ctx.role.may(.manageMembers)
        let mine = forced ? try await ClassTeachers.classes(of: ctx.user.id, library: ctx.libraryID, on: req.db) : []
        let read: @Sendable () throws -> ReportOptions = {
            var options = try ReportOptions.read(req)
            if forced, !(options.grade.map(mine.contains) ?? false) { options.grade = mine.first }
            return options
        }
        var page = try await ReportPage.make(kind, req: read, library: ctx, now: req.now, t: req.t, on: req.db)
        if forced { page.teacherClasses = mine }
        return try await req.refused(page.render(try await req.page(library: ctx)), page.form.isRefused)
    }

    /// Saves the report on the page under a name; back on the report, saying so (or why not).
    @Sendable static func save(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let form = try req.form(SaveForm.self)
        let kind = form.kind.flatMap(ReportKind.init(rawValue:)) ?? .circulation
        let options = (try? ReportOptions.read(query: form.options ?? "")) ?? ReportOptions()
        return try await req.seeOther(WebRoute.report(library: ctx.libraryID, kind: kind).path(query: options.query)) {
            let row = try await SavedReports.create(SavedReportInput(name: form.name ?? "", kind: kind.rawValue, options: form.options ?? ""),
                                                    in: req.scope(ctx), t: req.t, languages: req.application.languages)
            return req.t.format(.savedReportSaved, row.name)
        }
    }

    /// A new name, and (owners) when and to whom it is mailed: one address a line (or separated by commas).
    @Sendable static func change(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("savedID")
        let form = try req.form(ChangeForm.self)
        var input = SavedReportInput(name: form.name ?? "")
        if ctx.role.may(.administer) {
            input.schedule = form.schedule ?? SavedReportSchedule.none.rawValue
            input.recipients = (form.recipients ?? "").split(whereSeparator: { $0.isNewline || $0 == "," || $0 == ";" })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return try await req.seeOther(WebRoute.reports(library: ctx.libraryID).path + "#saved-\(id.uuidString.lowercased())") {
            let row = try await SavedReports.update(id, input, in: req.scope(ctx), languages: req.application.languages)
            return req.t.format(.savedReportChanged, row.name)
        }
    }

    @Sendable static func delete(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let id = try req.uuid("savedID")
        let name = try await SavedReports.get(id, library: ctx.libraryID, on: req.db).name
        try await SavedReports.delete(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.reports(library: ctx.libraryID).path, flash: req.t.format(.savedReportDeleted, name))
    }

    /// Mails the report now to its recipients; says how many were handed to the server (or why not).
    @Sendable static func send(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let id = try req.uuid("savedID")
        let back = WebRoute.reports(library: ctx.libraryID).path + "#saved-\(id.uuidString.lowercased())"
        return try await req.seeOther(back) {
            let messages = try await SavedReports.send(id, to: nil, in: req.scope(ctx), app: req.application)
            let sent = messages.filter { $0.status == .sent }.count
            guard sent == messages.count else {
                throw SavedReportError.notDelivered(sent: sent, of: messages.count)
            }
            return req.t.format(.savedReportSent, req.t.number(sent))
        }
    }
}
