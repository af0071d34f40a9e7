import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The roster sync, archiving a member and the audit log over the API.
enum RosterController {
    static let columnParams: [RouteDoc.Param] = StudentList.Field.allCases.map { field in
        .init(name: field.rawValue + "Column", description: "A student list's column for \(field.rawValue) (its header); left out: found by name.",
              schema: ["maxLength": .number(100)])
    }

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "roster", "preview", doc: .init(
            summary: "Read a roster and preview it: a OneRoster 1.1/1.2 CSV bundle (zip: manifest.csv, users.csv, classes.csv, enrollments.csv, roles.csv) or a CSV of students (student number, names, class, e-mail, guardian e-mail; columns found by name or named here). At most 20 MB. Nothing changes: the run is kept for a day to be applied; answers who would be added, changed and archived, and each row refused by file and line",
            tag: "School year",
            query: [.init(name: "mode", description: "full (the default: the whole school; who is missing has left) or delta (changes only; a OneRoster manifest says it itself).",
                          schema: ["enum": .array(RosterFile.Mode.allCases.map { .string($0.rawValue) })]),
                    .init(name: "fileName", description: "The file's name, as the run keeps it.", schema: ["maxLength": .number(200)])] + columnParams,
            upload: ["application/zip", "text/csv", "application/octet-stream"], response: RosterRunDTO.self, status: .created),
            body: .collect(maxSize: ByteCount(value: RosterSync.maxBytes)), use: preview)
        lib.on(.GET, "roster", "runs", doc: .init(summary: "The rosters read, newest first, with their counts (the last 20)", tag: "School year",
                                                  response: RosterRunDTO.self, responseIsArray: true), use: runs)
        lib.on(.GET, "roster", "runs", ":runID", doc: .init(summary: "A roster run: its preview, or what applying it did", tag: "School year",
                                                            response: RosterRunDTO.self), use: run)
        lib.on(.POST, "roster", "runs", ":runID", "apply", doc: .init(
            summary: "Apply a previewed roster in one transaction (the plan made again against the members as they are now): adds, changes, archives the leavers; 409 when it was applied already or the preview is older than a day",
            tag: "School year", request: RosterApplyInput.self, response: RosterRunDTO.self), use: apply)
        lib.on(.POST, "members", ":memberID", "archive", doc: .init(
            summary: "Archive a member who has left: they keep their loans and counts, borrow nothing and leave the lists; their open holds end",
            tag: "School year", response: MemberDTO.self), use: archive)
        lib.on(.DELETE, "members", ":memberID", "archive", doc: .init(summary: "Bring an archived member back", tag: "School year",
                                                                      response: MemberDTO.self), use: unarchive)
        lib.on(.GET, "rollover", doc: .init(
            summary: "The year-end rollover: the classes now (members not archived) with how many are in each and where each would go first (the next year's class; the top year leaves), and the rollovers made",
            tag: "School year", response: RolloverPlanDTO.self), use: rolloverPlan)
        lib.on(.POST, "rollover", doc: .init(
            summary: "Run the year-end rollover: each class moves (`to`) or leaves (`leave`: its members are archived); `clearGoals` clears the members' reading goals. The library's backup is taken first and kept; at most 300 classes",
            tag: "School year", request: RolloverInput.self, response: RolloverDTO.self, status: .created), use: rollover)
        lib.on(.POST, "rollovers", ":rolloverID", "undo", doc: .init(
            summary: "Undo the newest rollover: every member it moved or archived is as before, the goals it cleared are back; loans made since stay. 409 for an older one or one undone",
            tag: "School year", response: RolloverDTO.self), use: undoRollover)
        lib.on(.GET, .rolloverBackup(library: .pattern, rollover: .pattern), doc: .init(
            summary: "The library's backup taken before a rollover (owners)", tag: "School year"), use: rolloverBackup)
        lib.on(.GET, .memberData(library: .pattern, member: .pattern, format: "json"), doc: .init(
            summary: "Everything the library holds about a member (a request for their data): the member record, every loan, hold and fine, their reading log and the messages sent to them; recorded in the audit log",
            tag: "School year", response: MemberDataDTO.self), use: memberData)
        lib.on(.GET, .memberData(library: .pattern, member: .pattern, format: "pdf"), doc: .init(
            summary: "The same as a PDF in the member's language (else the library's)", tag: "School year",
            query: [.init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]])]), use: memberDataPDF)
        lib.on(.POST, "members", ":memberID", "erase", doc: .init(
            summary: "Erase a member on request, with the reason: the member and everything that names them go (their name and card in the loan history, the activity log, messages, rosters; rollover backups are emptied); the anonymous counts stay. 409 while they have books out or owe money",
            tag: "School year", request: ErasureInput.self, status: .noContent), use: eraseMember)
        lib.on(.GET, "audit", doc: .init(
            summary: "The audit log (owners): staff actions that touch people or the whole library, newest first; append-only",
            tag: "School year",
            query: [.oneOf("action", AuditLog.Action.allCases.map(\.rawValue), "Only entries of this action."), .limit, .offset],
            response: AuditEntryDTO.self, responseIsArray: true), use: audit)
    }

    static func options(_ req: Request) throws -> RosterSync.Options {
        var options = RosterSync.Options()
        if let raw = req.query[String.self, at: "mode"], !raw.isEmpty {
            guard let mode = RosterFile.Mode(rawValue: raw) else {
                throw RequestError.oneOf(field: "mode", allowed: RosterFile.Mode.allCases.map(\.rawValue), got: raw)
            }
            options.mode = mode
        }
        for field in StudentList.Field.allCases {
            if let header = try Check.optional(req.query[String.self, at: field.rawValue + "Column"], field: field.rawValue + "Column", max: 100) {
                options.mapping[field] = header
            }
        }
        return options
    }

    @Sendable static func preview(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let name = try Check.optional(req.query[String.self, at: "fileName"], field: "fileName", max: 200) ?? ""
        let run = try await RosterSync.preview(try req.uploadedBytes(), fileName: name, options: try options(req), source: "api", in: req.scope(ctx))
        return try await req.created(run)
    }

    @Sendable static func runs(req: Request) async throws -> [RosterRunDTO] {
        let ctx = try await req.library(.manageMembers)
        return try await RosterSync.runs(library: ctx.libraryID, on: req.db.sql)
    }

    @Sendable static func run(req: Request) async throws -> RosterRunDTO {
        let ctx = try await req.library(.manageMembers)
        return try await RosterSync.run(try req.uuid("runID"), library: ctx.libraryID, on: req.db.sql).dto
    }

    @Sendable static func apply(req: Request) async throws -> RosterRunDTO {
        let ctx = try await req.library(.manageMembers)
        // The body is optional: without it, the roster's teachers are not made staff.
        let input = (req.body.data?.readableBytes ?? 0) == 0 ? RosterApplyInput() : try req.content.decode(RosterApplyInput.self)
        return try await RosterSync.apply(try req.uuid("runID"), teachersAs: input.teachersAs, in: req.scope(ctx))
    }

    @Sendable static func archive(req: Request) async throws -> MemberDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Members.setArchived(try req.uuid("memberID"), true, in: req.scope(ctx))
    }

    @Sendable static func unarchive(req: Request) async throws -> MemberDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Members.setArchived(try req.uuid("memberID"), false, in: req.scope(ctx))
    }

    @Sendable static func rolloverPlan(req: Request) async throws -> RolloverPlanDTO {
        let ctx = try await req.library(.manageMembers)
        return RolloverPlanDTO(classes: try await Rollover.classes(library: ctx.libraryID, on: req.db.sql),
                               rollovers: try await Rollover.list(library: ctx.libraryID, on: req.db.sql))
    }

    @Sendable static func rollover(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        return try await req.created(try await Rollover.run(try req.content.decode(RolloverInput.self), in: req.scope(ctx)))
    }

    @Sendable static func undoRollover(req: Request) async throws -> RolloverDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Rollover.undo(try req.uuid("rolloverID"), in: req.scope(ctx))
    }

    @Sendable static func rolloverBackup(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let (data, at) = try await Rollover.backup(try req.uuid("rolloverID"), library: ctx.libraryID, on: req.db.sql)
        return ExchangeController.download(data, type: "application/json", name: "shelfmark-before-rollover-\(at.formatted(.iso8601.year().month().day())).json")
    }

    struct ErasureInput: Content, SchemaConstrained {
        /// Why (a parent's request, say): kept in the audit log.
        var reason: String
        static var schemaConstraints: [String: JSONValue] { ["reason": Rule.text(Privacy.maxReason)] }
    }

    @Sendable static func memberData(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let data = try await Privacy.export(try req.uuid("memberID"), in: req.scope(ctx))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return ExchangeController.download(try encoder.encode(data), type: "application/json; charset=utf-8",
                                           name: "shelfmark-member-\(data.member.cardId.filter { $0.isLetter || $0.isNumber }).json")
    }

    @Sendable static func memberDataPDF(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let paper = try req.paperQuery()
        let data = try await Privacy.export(try req.uuid("memberID"), in: req.scope(ctx))
        struct LibraryLanguage: Decodable { var language: String }
        let libraryLanguage = try await req.db.sql.raw("SELECT language FROM libraries WHERE id = \(bind: ctx.libraryID)")
            .first(decoding: LibraryLanguage.self)?.language
        let lang = [data.member.language, libraryLanguage].compactMap { $0.flatMap(Lang.init(rawValue:)) }.first ?? .en
        let t = Strings(lang: lang, timeZone: ctx.policy.timeZone)
        let pdf = try Privacy.pdf(data, paper: paper, t: t)
        return ExchangeController.download(Data(pdf), type: "application/pdf",
                                           name: "shelfmark-member-\(data.member.cardId.filter { $0.isLetter || $0.isNumber }).pdf")
    }

    @Sendable static func eraseMember(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.manageMembers)
        try await Privacy.erase(try req.uuid("memberID"), reason: try req.content.decode(ErasureInput.self).reason, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func audit(req: Request) async throws -> [AuditEntryDTO] {
        let ctx = try await req.library(.administer)
        let (limit, offset) = try req.paging
        var action: AuditLog.Action?
        if let raw = req.query[String.self, at: "action"], !raw.isEmpty {
            guard let chosen = AuditLog.Action(rawValue: raw) else {
                throw RequestError.oneOf(field: "action", allowed: AuditLog.Action.allCases.map(\.rawValue), got: raw)
            }
            action = chosen
        }
        return try await AuditLog.list(library: ctx.libraryID, action: action, limit: limit, offset: offset, on: req.db)
    }
}
