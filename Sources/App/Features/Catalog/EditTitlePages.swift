import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Editing a book's every field.
enum EditTitlePages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.editTitle(library: .pattern, title: .pattern), use: editTitleForm)
        web.post(.editTitle(library: .pattern, title: .pattern), use: editTitle)
    }

    @Sendable static func editTitleForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        let page = try await EditTitlePage.make(titleID: try req.uuid("titleID"), library: ctx, now: req.now, on: req.db)
        return page.render(try await req.page(library: ctx))
    }

    /// The edit form as the page sends it: every field each time; an emptied field clears it (where a
    /// PATCH's absent field keeps it), authors and categories separated by commas. Bounds: the API's.
    struct EditTitleForm: WebForm, SchemaConstrained {
        var title, subtitle, authors, isbn, publisher, publishedDate, language, description, coverUrl, categories: String?
        var series, seriesNumber, moreSeries, readingLevel, callNumber: String?
        var pageCount: Int?
        var rating: Double?
        var totalCopies: Int?

        static var schemaConstraints: [String: JSONValue] {
            var fields = TitlePatch.schemaConstraints
            fields["authors"] = ["maxLength": .number(Double(50 * 302))]
            fields["categories"] = ["maxLength": .number(Double(50 * 102))]
            fields["moreSeries"] = ["maxLength": .number(Double(SeriesEntry.maxEntries * (SeriesEntry.maxName + SeriesEntry.maxNumber + 4)))]
            return fields
        }

        var patch: TitlePatch {
            func list(_ text: String?) -> [String] {
                (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            var patch = TitlePatch()
            (patch.title, patch.subtitle, patch.isbn, patch.publisher) = (title ?? "", subtitle ?? "", isbn ?? "", publisher ?? "")
            (patch.publishedDate, patch.language, patch.description, patch.coverUrl) = (publishedDate ?? "", language ?? "", description ?? "", coverUrl ?? "")
            (patch.authors, patch.categories) = (list(authors), list(categories))
            (patch.pageCount, patch.rating, patch.totalCopies) = (pageCount, rating, totalCopies)
            (patch.series, patch.seriesNumber, patch.readingLevel) = (series ?? "", seriesNumber ?? "", readingLevel ?? "")
            patch.callNumber = callNumber ?? ""
            patch.moreSeries = SeriesEntry.list(moreSeries ?? "")
            return patch
        }
    }

    @Sendable static func editTitle(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("titleID")
        let typed = req.typed(EditTitlePage.fields)
        do {
            let patch = try req.form(EditTitleForm.self).patch
            try await Catalog.update(id, patch, in: req.scope(ctx))
            req.application.enrichmentWorker?.ring()
            return req.seeOther(WebRoute.title(library: ctx.libraryID, title: id).path, flash: req.t(.titleSaved))
        } catch {
            let appError = JSONErrorMiddleware.appError(for: error)
            guard appError.status.code < 500, appError.status != .notFound, appError.status != .forbidden else { throw error }
            let page = try await EditTitlePage.refused(error, typed: typed, titleID: id, library: ctx, now: req.now, t: req.t, on: req.db)
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }
}
