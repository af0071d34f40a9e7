import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The nightly backups page: the administrator's, reached from any of their libraries' "More".
enum BackupsPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.backups(library: .pattern), use: show)
        web.post(.backups(library: .pattern), use: save)
        web.post(.backupsRun(library: .pattern), use: run)
        web.post(.backupsDrill(library: .pattern), use: drill)
    }

    @Sendable static func show(req: Request) async throws -> HTML {
        let ctx = try await ServerSettings.administratorPage(req)
        return try await BackupsPage.make(library: ctx, app: req.application).render(try await req.page(library: ctx))
    }

    @Sendable static func save(req: Request) async throws -> Response {
        let ctx = try await ServerSettings.administratorPage(req)
        do {
            var patch = try req.form(NightlyBackupsPatch.self)
            // An empty folder field is the default folder.
            if patch.folder == nil { patch.folder = "" }
            try await NightlyBackups.update(patch, gate: req.application.writeGate, on: req.db)
            return req.seeOther(WebRoute.backups(library: ctx.libraryID).path, flash: req.t(.backupSettingsSaved))
        } catch let error where error.isFormRefusal {
            var page = try await BackupsPage.make(library: ctx, app: req.application)
            page.typed = req.typed(BackupsPage.fields)
            page.refusal = (error.answered.field, req.t.message(error))
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func run(req: Request) async throws -> Response {
        let ctx = try await ServerSettings.administratorPage(req)
        return try await req.seeOther(WebRoute.backups(library: ctx.libraryID).path) {
            _ = try await NightlyBackups.start(user: ctx.user.id, app: req.application)
            return req.t(.backupStarted)
        }
    }

    @Sendable static func drill(req: Request) async throws -> Response {
        let ctx = try await ServerSettings.administratorPage(req)
        return try await req.seeOther(WebRoute.backups(library: ctx.libraryID).path) {
            _ = try await RestoreDrill.start(user: ctx.user.id, app: req.application)
            return req.t(.drillStarted)
        }
    }
}

extension NightlyBackupsPatch: WebForm {}
