import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// "More", the overview, the activity log and what runs in the background.
enum MorePages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.more(library: .pattern), use: more)
        web.get(.dashboard(library: .pattern), use: dashboard)
        web.get(.activity(library: .pattern), use: activity)
        web.get(.background(library: .pattern), use: background)
    }

    @Sendable static func more(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        var page = MorePage.make(library: ctx, isAdmin: try await ServerSettings.isAdmin(ctx.user, on: req.db))
        if !ctx.role.may(.manageMembers) {
            page.teachesClasses = !(try await ClassTeachers.classes(of: ctx.user.id, library: ctx.libraryID, on: req.db)).isEmpty
        }
        return page.render(try await req.page(library: ctx))
    }

    @Sendable static func dashboard(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        var page = try await DashboardPage.make(library: ctx, now: req.now, on: req.db)
        page.phone = .make(req.application.httpsState, library: ctx.libraryID)
        page.diskFull = req.application.storageHealth.writesFailing
        if try await ServerSettings.isAdmin(ctx.user, on: req.db) {
            let status = try await NightlyBackups.status(app: req.application)
            page.backups = .init(lastGood: status.lastGood, warnings: status.warnings)
        }
        return page.render(try await req.page(library: ctx))
    }

    @Sendable static func activity(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        let type = req.query[String.self, at: "type"].flatMap(ActivityType.init(rawValue:))
        return try await ActivityPage.make(type: type, paging: Paging(req.query[Int.self, at: "page"]), library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    /// What runs by itself and what ran lately: for the staff who import and restore.
    @Sendable static func background(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        return try await BackgroundPage.make(library: ctx, app: req.application).render(try await req.page(library: ctx))
    }
}
