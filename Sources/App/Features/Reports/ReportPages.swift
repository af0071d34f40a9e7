import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The reports' pages: the list of them, and one with its period and filters.
enum ReportPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.reports(library: .pattern), use: reports)
        web.get(.report(library: .pattern, kind: .circulation), use: report)
    }

    @Sendable static func reports(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        return ReportsPage(libraryID: ctx.libraryID).render(try await req.page(library: ctx))
    }

    @Sendable static func report(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        guard let kind = req.parameters.get("kind").flatMap(ReportKind.init(rawValue:)) else { throw RequestError.noSuchPath(field: "kind") }
        let page = try await ReportPage.make(kind, req: { try ReportOptions.read(req) }, library: ctx, now: req.now, t: req.t, on: req.db)
        return try await req.refused(page.render(try await req.page(library: ctx)), page.form.isRefused)
    }
}
