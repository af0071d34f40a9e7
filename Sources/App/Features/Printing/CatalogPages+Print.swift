import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

extension CatalogPages {
    /// The printed catalog: how it is arranged, with covers or not, which shelf; its first pages and the PDF.
    @Sendable static func printedCatalog(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        var page = PrintedCatalogPage(libraryID: ctx.libraryID, shelves: try await Shelves.list(library: ctx.libraryID, on: req.db).map(\.name))
        do {
            page.options = try CatalogSheets.options(req)
            let groups = try await CatalogSheets.groups(page.options, library: ctx.libraryID, now: req.now, t: req.t, on: req.db)
            page.count = groups.reduce(0) { $0 + $1.entries.count }
            page.pages = CatalogSheets.layout(groups, page.options).pages
        } catch let error where error.isFormRefusal {
            page.form = FormState(values: [:], refusedWith: error, t: req.t, fields: [])
        }
        return try await req.refused(page.render(try await req.page(library: ctx)), page.form.isRefused)
    }
}
