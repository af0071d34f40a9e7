import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import Vapor

/// Import and export: files in, report out; the catalog and wishlist as CSV.
enum ExchangeController {
    static let maxImportMB = 100

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "import", doc: .init(
            summary: "Import a file: the seed's catalog/wishlist CSV, Goodreads, LibraryThing, StoryGraph, Libib, Calibre, a generic CSV or a list of ISBNs (detected from the header unless `format` is given). Raw body or multipart field `file`; at most 100 MB. Answers at once with the job (202, `Location`): follow it at `GET /jobs/{id}` for the rows landing, then the report (titles created, copies added, skipped and failed rows with line numbers and reasons). One import or restore writes into a library at a time (409 `job_running`)",
            tag: "Import & export",
            query: [
                .oneOf("format", ImportFormat.allCases.map(\.rawValue), "One of: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detect)."),
                .oneOf("existing", ["skip", "copies"], "A row whose ISBN the library has: `skip` (default) or `copies` (add its copies)."),
            ],
            upload: ["text/csv", "application/octet-stream"], response: JobDTO.self, status: .accepted), body: .collect(maxSize: ByteCount(value: maxImportMB << 20)), use: importFile)
        api.on(.POST, "libraries", "import", doc: .init(
            summary: "Import a file as a new library you own (F3): as `POST /libraries/{id}/import`, into a library named `name`, made at once. Answers with the job (202); when it is done it holds the new library and the report. A file refused as a whole leaves no library behind",
            tag: "Import & export",
            query: [
                .init(name: "name", description: "The new library's name (required).", required: true, schema: ["minLength": 1, "maxLength": 200, "pattern": .string(Rule.notBlank)]),
                .oneOf("format", ImportFormat.allCases.map(\.rawValue), "One of: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detect)."),
                .oneOf("existing", ["skip", "copies"], "`skip` (default) or `copies`, for an ISBN that appears twice in the file."),
            ],
            upload: ["text/csv", "application/octet-stream"], response: JobDTO.self, status: .accepted), body: .collect(maxSize: ByteCount(value: maxImportMB << 20)), use: importNewLibrary)
        lib.on(.GET, .export(library: .pattern, format: ""), doc: .init(
            summary: "Export: `format=csv` (library_catalog.csv), `wishlist-csv` (library_wishlist.csv), `json` (the whole library, without cover images), `marc` (MARC 21, UTF-8) or `marcxml`",
            tag: "Import & export",
            query: [.oneOf("format", ExportFormat.allCases.map(\.rawValue), "`csv` (default), `wishlist-csv`, `json`, `marc` or `marcxml`."),
                    .init(name: "covers", kind: .boolean,
                          description: "With `format=csv` (other formats leave it aside): one more column, Cover, with each stored cover inside as a `data:` URL (base64), an outside cover's address, or nothing; at most 5,000 books (422 `too_many_books`).")]),
            use: export)
        lib.on(.GET, .backup(library: .pattern), doc: .init(
            summary: "A timestamped backup file of the whole library, cover images included (F5)", tag: "Import & export"), use: backup)
        lib.on(.POST, "restore", doc: .init(
            summary: "Restore a backup over this library: everything it holds is replaced. Needs `confirm=true` (F5). The file is checked at once; the writing is a job (202, follow it at `GET /jobs/{id}`)", tag: "Import & export",
            query: [.init(name: "confirm", kind: .boolean, description: "Must be true: the library's current data is deleted.", required: true, schema: ["enum": [true]])],
            upload: ["application/json"], response: JobDTO.self, status: .accepted), body: .collect(maxSize: ByteCount(value: maxImportMB << 20)), use: restoreOver)
        lib.on(.POST, "erase", doc: .init(
            summary: "Delete all of the library's data (books, copies, members, loans, activity, categories); settings and staff stay. Needs `confirm=true` (F6)",
            tag: "Import & export",
            query: [.init(name: "confirm", kind: .boolean, description: "Must be true.", required: true, schema: ["enum": [true]])], status: .noContent), use: erase)
        api.on(.POST, "libraries", "restore", doc: .init(
            summary: "Restore a backup as a new library you own (F5); `name` renames it. The file is checked at once; the writing is a job (202): when it is done, the job holds the new library", tag: "Import & export",
            query: [.init(name: "name", description: "The new library's name (default: the backup's).", schema: ["maxLength": 200])],
            upload: ["application/json"], response: JobDTO.self, status: .accepted), body: .collect(maxSize: ByteCount(value: maxImportMB << 20)), use: restoreNew)
    }

    struct Upload: Content { var file: File? }

    /// The file and the options of an import request.
    static func importRequest(_ req: Request) throws -> (data: Data, format: ImportFormat?, existing: ExistingISBNPolicy) {
        let data: Data
        if req.headers.contentType?.type == "multipart" {
            guard let file = try req.multipart(Upload.self).file else {
                throw RequestError.noFile(field: "file")
            }
            data = Data(buffer: file.data)
        } else {
            data = req.body.data.map { Data(buffer: $0) } ?? Data()
        }
        let format = try req.query[String.self, at: "format"].map { raw in
            guard let f = ImportFormat(rawValue: raw) else {
                throw RequestError.oneOf(field: "format", allowed: ImportFormat.allCases.map(\.rawValue), got: raw, refusal: .invalid)
            }
            return f
        }
        let existing = try req.query[String.self, at: "existing"].map { raw in
            guard let p = ExistingISBNPolicy(rawValue: raw) else { throw RequestError.oneOf(field: "existing", allowed: ["skip", "copies"], got: raw, refusal: .invalid) }
            return p
        } ?? .skip
        return (data, format, existing)
    }

    @Sendable static func importNewLibrary(req: Request) async throws -> Response {
        let user = try req.user
        let (data, format, existing) = try importRequest(req)
        guard let name = req.query[String.self, at: "name"]?.cleanedInput, !name.isEmpty else {
            throw EdgeError.newLibraryName
        }
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        let created = try await Accounts.createLibrary(LibraryInput(name: name, loanPeriodDays: nil, maxRenewals: nil, publicCatalog: nil),
                                                       user: user, gate: req.application.writeGate, on: req.db)
        let ctx = try await req.library(.catalog, id: created.id)
        let id = try await ImportJob.start(data, format: format, existing: existing, into: ctx, createdLibrary: created,
                                           seenFrom: created.id, app: req.application, now: req.now)
        return try await JobsController.accepted(id, req: req)
    }

    @Sendable static func importFile(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let (data, format, existing) = try importRequest(req)
        let id = try await ImportJob.start(data, format: format, existing: existing, into: ctx, seenFrom: ctx.libraryID,
                                           app: req.application, now: req.now)
        return try await JobsController.accepted(id, req: req)
    }

    @Sendable static func export(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let raw = req.query[String.self, at: "format"] ?? "csv"
        guard let format = ExportFormat(rawValue: raw) else {
            throw RequestError.oneOf(field: "format", allowed: ExportFormat.allCases.map(\.rawValue), got: raw, refusal: .invalid)
        }
        // The whole library holds members' contact details and loan history: for those who manage members.
        if format == .json, !ctx.role.may(.manageMembers) { throw AccountError.roleTooLow(ctx.role, needs: Role.Action.manageMembers.minimumRole) }
        let covers = try req.flag("covers")
        // Covers go only into the catalog CSV (the other formats are as they are).
        if covers, format == .csv {
            // Streamed: the file can be large, the memory it takes is one cover's.
            let produce = try await Exporter.catalogCSVWithCovers(libraryID: ctx.libraryID, on: req.db)
            var headers = HTTPHeaders()
            headers.replaceOrAdd(name: .contentType, value: format.contentType)
            headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(format.fileName)\"")
            let logger = req.logger
            return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
                do {
                    try await produce { try await writer.write(.buffer($0)) }
                    try await writer.write(.end)
                } catch {
                    logger.warning("export with covers stopped: \(String(describing: error))")
                    try? await writer.write(.error(error))
                }
            }))
        }
        let data = try await Exporter.export(format, libraryID: ctx.libraryID, now: req.now, on: req.db)
        return download(data, type: format.contentType, name: format.fileName)
    }

    static func download(_ data: Data, type: String, name: String) -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: type)
        headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(name)\"")
        return Response(status: .ok, headers: headers, body: .init(data: data))
    }

    static func backupFileName(_ library: String, at date: Date) -> String {
        let slug = SearchText.fold(library).split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: "-")
        let stamp = date.formatted(Date.VerbatimFormatStyle(format: "\(year: .defaultDigits)\(month: .twoDigits)\(day: .twoDigits)-\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased))\(minute: .twoDigits)\(second: .twoDigits)",
                                                             timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
        return "shelfmark-backup-\(slug.isEmpty ? "library" : slug)-\(stamp).json"
    }

    @Sendable static func backup(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let data = try Backup.encode(try await Backup.make(libraryID: ctx.libraryID, includeCovers: true, now: req.now, on: req.db))
        return download(data, type: "application/json", name: backupFileName(ctx.name, at: req.now))
    }

    static func body(_ req: Request) throws -> Data {
        if req.headers.contentType?.type == "multipart" {
            guard let file = try req.multipart(Upload.self).file else { throw RequestError.noFile(field: "file") }
            return Data(buffer: file.data)
        }
        guard let buffer = req.body.data, buffer.readableBytes > 0 else { throw EdgeError.backupBodyMissing }
        return Data(buffer: buffer)
    }

    @Sendable static func restoreOver(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        guard req.confirmed else {
            throw EdgeError.confirmRestore(library: ctx.name)
        }
        let job = try await RestoreJob.start(try Backup.decode(try body(req)), over: ctx, seenFrom: ctx.libraryID, app: req.application, now: req.now)
        return try await JobsController.accepted(job, req: req)
    }

    @Sendable static func restoreNew(req: Request) async throws -> Response {
        let user = try req.user
        let backup = try Backup.decode(try body(req))
        let job = try await RestoreJob.start(backup, asNewNamed: req.query[String.self, at: "name"], user: user, seenFrom: nil,
                                             app: req.application, now: req.now)
        return try await JobsController.accepted(job, req: req)
    }

    @Sendable static func erase(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.administer)
        guard req.confirmed else {
            throw EdgeError.confirmErase(library: ctx.name)
        }
        try await req.application.writeGate.transaction(on: req.db) { db in
            try await Backup.eraseData(libraryID: ctx.libraryID, on: db)
            try await AuditLog.record(.init(action: .erase), library: ctx.libraryID, by: ctx.user, at: req.now, on: db)
        }
        return .noContent
    }
}
