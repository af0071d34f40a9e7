import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The Import & Export page: upload a file (into this or a new library) and read the report,
/// watch covers and details arrive, download exports and backups, restore a backup, erase the data.
enum ExchangePages {
    static func register(_ web: any RoutesBuilder) {
        let upload = Int(ExchangeController.maxImportMB << 20)
        web.get(.exchange(library: .pattern), use: page)
        web.on(.POST, WebRoute.exchange(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: upload)), use: importFile).maxBody(upload)
        web.get(.job(library: .pattern, job: .pattern), use: job)
        web.on(.POST, WebRoute.restore(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: upload)), use: restore).maxBody(upload)
        web.post(.erase(library: .pattern), use: erase)
        web.on(.POST, WebRoute.levelsImport(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: ReadingLevels.maxBytes + (64 << 10))),
               use: importLevels).maxBody(ReadingLevels.maxBytes + (64 << 10))
    }

    @Sendable static func page(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        return try await render(req, ctx: ctx, error: nil)
    }

    /// A job's page: an import's rows landing while it runs, then the report; a finished restore
    /// sends the reader to the restored library, saying so.
    @Sendable static func job(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let model = try await JobPage.make(jobID: try req.uuid("jobID"), library: ctx, app: req.application, t: req.t)
        if case .restored(let library, let leftOut) = model.state {
            var flash = req.t.format(.restored, library.name)
            if let leftOut, !leftOut.isEmpty { flash += " " + JobPage.leftOutText(leftOut, t: req.t) }
            return req.seeOther(WebRoute.catalog(library: library.id).path, flash: flash)
        }
        return try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
    }

    /// Reading levels from a spreadsheet: the page again with what was set and each line not taken.
    @Sendable static func importLevels(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        var model = try await ExchangePage.make(library: ctx, on: req.db)
        do {
            model.levelsReport = try await ReadingLevels.importLevels(req.formFile("file"), in: req.scope(ctx))
        } catch let error where error.isFormRefusal {
            return try await req.refused(render(req, ctx: ctx, error: req.t.message(error)))
        }
        return try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
    }

    /// The Import & Export page; `error`: a refusal of the import or restore just sent, said at the top.
    static func render(_ req: Request, ctx: LibraryContext, error: String?) async throws -> HTML {
        let model = try await ExchangePage.make(library: ctx, on: req.db)
        return model.render(try await req.page(library: ctx, flash: error, error: error != nil))
    }

    /// Checks the backup at once (a file that is not one is said on this page), then restores it as a job.
    @Sendable static func restore(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        do {
            let form = try req.form(RestoreForm.self)
            let backup = try Backup.decode(req.formFile("backup"))
            let job = form.replace
                ? try await RestoreJob.start(backup, over: ctx, seenFrom: ctx.libraryID, app: req.application, now: req.now)
                : try await RestoreJob.start(backup, asNewNamed: form.name, user: try req.user, seenFrom: ctx.libraryID,
                                             app: req.application, now: req.now)
            return req.seeOther(WebRoute.job(library: ctx.libraryID, job: job).path)
        } catch let error where error.answered.status.code < 500 {
            return try await req.refused(render(req, ctx: ctx, error: req.t.message(error)))
        }
    }

    @Sendable static func erase(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        guard try req.form(ConfirmedForm.self).confirm else {
            throw AppError(status: .conflict, code: "confirmation_required", message: req.t.format(.eraseConfirm, ctx.name))
        }
        try await req.application.writeGate.transaction(on: req.db) { db in
            try await Backup.eraseData(libraryID: ctx.libraryID, on: db)
            try await AuditLog.record(.init(action: .erase), library: ctx.libraryID, by: ctx.user, at: req.now, on: db)
        }
        return req.seeOther(WebRoute.exchange(library: ctx.libraryID).path, flash: req.t(.erased))
    }

    /// Starts the import as a job and shows its page at once; a file refused before it starts
    /// (empty, another import running) is said on this page, with the form.
    @Sendable static func importFile(req: Request) async throws -> Response {
        let home = try await req.library(.catalog)
        let data = req.formFile("file")
        var created: LibraryDTO?
        do {
            let form = try req.form(ImportForm.self)
            var (format, existing) = (form.format, form.existing ?? .skip)
            // Our wishlist export has the catalog's columns: its name says it is a wishlist.
            if format == nil, let name = try req.multipartParts()?.firstPart(named: "file")?.filename,
               name.lowercased().hasPrefix("library_wishlist") { format = .shelfmarkWishlist }
            var target = home
            if let name = form.newLibrary {
                // Import as a new library — made first, shown from here when the job is done.
                guard !data.isEmpty else { throw ExchangeError.emptyFile }
                created = try await Accounts.createLibrary(LibraryInput(name: name, loanPeriodDays: nil, maxRenewals: nil, publicCatalog: nil),
                                                           user: try req.user, gate: req.application.writeGate, on: req.db)
                if let created { target = try await req.library(.catalog, id: created.id) }
            }
            let job = try await ImportJob.start(data, format: format, existing: existing, into: target, createdLibrary: created,
                                                seenFrom: home.libraryID, app: req.application, now: req.now)
            return req.seeOther(WebRoute.job(library: home.libraryID, job: job).path)
        } catch let error where error.answered.status.code < 500 {
            if let created { await Accounts.removeNewLibrary(created.id, gate: req.application.writeGate, on: req.db) }
            return try await req.refused(render(req, ctx: home, error: req.t.message(error)))
        }
    }
}

extension ExchangePages {
    /// Restore a backup: over this library (`replace`), or as a new one named `name`.
    struct RestoreForm: WebForm, SchemaConstrained {
        var replace: Bool
        var name: String?
        static var schemaConstraints: [String: JSONValue] { LibraryInput.schemaConstraints }
    }

    /// Import a file: its format (else told by its content), what to do with ISBNs already here, and
    /// the name of a new library to import into.
    struct ImportForm: WebForm {
        var format: ImportFormat?
        var existing: ExistingISBNPolicy?
        var newLibrary: String?
        static var maxLength: [String: Int] { ["newLibrary": 200] }
    }
}
