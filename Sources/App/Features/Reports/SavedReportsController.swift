import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Saved reports over the API: staff who read reports save and rename them; owners say when and to
/// whom they are mailed, and mail one now.
enum SavedReportsController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "saved-reports", doc: .init(summary: "The library's saved reports by name, each with when it is mailed next (staff who manage members)",
                                                 tag: "Reports", response: SavedReportDTO.self, responseIsArray: true), use: list)
        lib.on(.POST, "saved-reports", doc: .init(
            summary: "Save a report under a name: its `kind` and `options` (its query string: `period=last-month&class=4A`, refused as the report would refuse it); `schedule` (`monthly`: on the 1st at 06:00 as the month just ended left it; `termly`: the same at each term's start) and `recipients` (at most 10) are owners'; at most 50 a library; 409 when the name (any case) is taken",
            tag: "Reports", request: SavedReportInput.self, response: SavedReportDTO.self, status: .created), use: create)
        lib.on(.GET, "saved-reports", ":savedID", doc: .init(summary: "One saved report", tag: "Reports", response: SavedReportDTO.self), use: get)
        lib.on(.PATCH, "saved-reports", ":savedID", doc: .init(
            summary: "Change a saved report's name, kind, options or language; owners: when and to whom it is mailed (a new schedule starts with the next month or term)",
            tag: "Reports", request: SavedReportInput.self, response: SavedReportDTO.self), use: update)
        lib.on(.DELETE, "saved-reports", ":savedID", doc: .init(summary: "Delete a saved report (a scheduled one: owners)", tag: "Reports", status: .noContent),
               use: delete)
        lib.on(.POST, "saved-reports", ":savedID", "send", doc: .init(
            summary: "Mail the report now, as it stands today, with its PDF and CSV: to its recipients, or to `recipients` given here (owners); at most 20 messages an hour; answers each message as the delivery log has it",
            tag: "Reports", request: SendInput.self, response: MailMessageDTO.self, responseIsArray: true), use: send)
    }

    struct SendInput: Content, SchemaConstrained {
        var recipients: [String]?
        static var schemaConstraints: [String: JSONValue] {
            ["recipients": Rule.items(["maxLength": .number(Double(EmailAddress.maxLength))], max: SavedReports.maxRecipients)]
        }
    }

    private static func zone(_ ctx: LibraryContext) -> TimeZone { ctx.policy.timeZone }

    @Sendable static func list(req: Request) async throws -> [SavedReportDTO] {
        let ctx = try await req.library(.manageMembers)
        return try await SavedReports.list(library: ctx.libraryID, on: req.db).map { SavedReports.dto($0, zone: zone(ctx), now: req.now) }
    }

    @Sendable static func get(req: Request) async throws -> SavedReportDTO {
        let ctx = try await req.library(.manageMembers)
        return SavedReports.dto(try await SavedReports.get(try req.uuid("savedID"), library: ctx.libraryID, on: req.db), zone: zone(ctx), now: req.now)
    }

    @Sendable static func create(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let row = try await SavedReports.create(try req.content.decode(SavedReportInput.self), in: req.scope(ctx), t: req.t,
                                                languages: req.application.languages)
        return try await req.created(SavedReports.dto(row, zone: zone(ctx), now: req.now))
    }

    @Sendable static func update(req: Request) async throws -> SavedReportDTO {
        let ctx = try await req.library(.manageMembers)
        let row = try await SavedReports.update(try req.uuid("savedID"), try req.content.decode(SavedReportInput.self), in: req.scope(ctx),
                                                languages: req.application.languages)
        return SavedReports.dto(row, zone: zone(ctx), now: req.now)
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.manageMembers)
        try await SavedReports.delete(try req.uuid("savedID"), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func send(req: Request) async throws -> [MailMessageDTO] {
        let ctx = try await req.library(.administer)
        let input = req.body.data == nil ? SendInput() : try req.content.decode(SendInput.self)
        return try await SavedReports.send(try req.uuid("savedID"), to: input.recipients, in: req.scope(ctx), app: req.application)
    }
}
