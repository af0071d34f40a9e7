import Fluent
import Foundation
import Vapor

/// The nightly backups in the API: their settings and where they stand, a change, a backup now. The
/// administrator's only.
enum NightlyBackupsController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "server", "backups", doc: .init(
            summary: "The installation's nightly backups (the administrator): folder, hour, rotation, the last good backup, warnings and the backups in the folder",
            tag: "Backups", response: NightlyBackupsDTO.self), use: show)
        api.on(.PATCH, "server", "backups", doc: .init(
            summary: "Change the nightly backups (the administrator): a folder that exists and can be written (empty: the default), the hour, how many daily, weekly and monthly backups are kept",
            tag: "Backups", request: NightlyBackupsPatch.self, response: NightlyBackupsDTO.self), use: update)
        api.on(.POST, "server", "backups", doc: .init(
            summary: "Make a backup of the installation now (the administrator): 202 with the job to follow; 409 while one is being made",
            tag: "Backups", response: JobDTO.self, status: .accepted), use: start)
        api.on(.POST, "server", "backups", "drill", doc: .init(
            summary: "Restore the newest backup into a scratch database now and count what came back (the administrator; also monthly by itself): 202 with the job",
            tag: "Backups", response: JobDTO.self, status: .accepted), use: drill)
    }

    @Sendable static func show(req: Request) async throws -> NightlyBackupsDTO {
        try await ServerSettings.requireAdmin(req)
        return NightlyBackups.dto(try await NightlyBackups.status(app: req.application), app: req.application, t: req.t)
    }

    @Sendable static func update(req: Request) async throws -> NightlyBackupsDTO {
        try await ServerSettings.requireAdmin(req)
        try await NightlyBackups.update(try req.content.decode(NightlyBackupsPatch.self), gate: req.application.writeGate, on: req.db)
        return NightlyBackups.dto(try await NightlyBackups.status(app: req.application), app: req.application, t: req.t)
    }

    @Sendable static func start(req: Request) async throws -> Response {
        try await ServerSettings.requireAdmin(req)
        let id = try await NightlyBackups.start(user: try req.user.id, app: req.application)
        return try await JobsController.accepted(id, req: req)
    }

    @Sendable static func drill(req: Request) async throws -> Response {
        try await ServerSettings.requireAdmin(req)
        let id = try await RestoreDrill.start(user: try req.user.id, app: req.application)
        return try await JobsController.accepted(id, req: req)
    }

}
