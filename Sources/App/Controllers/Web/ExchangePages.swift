import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The Import & Export page (F1–F3): upload a file, read the report; download CSV exports.
enum ExchangePages {
    static func register(_ lib: any RoutesBuilder) {
        lib.get("exchange", use: page)
        lib.on(.POST, "exchange", body: .collect(maxSize: ByteCount(value: ExchangeController.maxImportMB << 20)), use: importFile)
    }

    @Sendable static func page(req: Request) async throws -> HTML {
        let ctx = try await req.library(.catalog)
        return try await render(req, ctx: ctx, report: nil, error: nil)
    }

    static func render(_ req: Request, ctx: LibraryContext, report: ImportReport?, error: String?) async throws -> HTML {
        let page = try await req.page(library: ctx, flash: error, error: error != nil)
        let t = page.t
        let base = page.library!.base
        return Layout.page(page, title: t(.importExport)) {
            H.el("h1", [:]) { Text(t(.importExport)) }
            if let report {
                H.el("section", ["class": "card", "aria-live": "polite"]) {
                    H.el("h2", [:]) { Text(t(.importDone) + " · " + report.format) }
                    H.el("dl", ["class": "facts"]) {
                        CatalogPages.fact(t(.rowsRead), t.number(report.rowsRead))
                        CatalogPages.fact(t(.titlesCreated), t.number(report.titlesCreated))
                        CatalogPages.fact(t(.copiesAddedLabel), t.number(report.copiesAdded))
                        CatalogPages.fact(t(.skippedRows), t.number(report.skipped.count))
                        CatalogPages.fact(t(.failedRows), t.number(report.failed.count))
                    }
                    if let stopped = report.stoppedAt { H.el("p", ["class": "warning"]) { Text(t.format(.stoppedAt, stopped)) } }
                    if !report.failed.isEmpty || !report.skipped.isEmpty {
                        H.el("ul", ["class": "loans"]) {
                            for note in report.failed {
                                H.el("li", ["class": "overdue"]) { Text(t.format(.lineLabel, String(note.line)) + ": " + note.reason) }
                            }
                            for note in report.skipped {
                                H.el("li", [:]) { Text(t.format(.lineLabel, String(note.line)) + ": " + note.reason) }
                            }
                        }
                    }
                }
            }
            H.form(base + "/exchange", csrf: page.csrf, attrs: ["enctype": "multipart/form-data", "class": "card"]) {
                H.field(t(.importFile), name: "file", type: "file", hint: t(.importFileHint), required: true,
                        extra: ["accept": ".csv,.tsv,.txt,text/csv,text/plain"])
                H.el("div", ["class": "field"]) {
                    H.el("label", ["for": "f-format"]) { Text(t(.formatField)) }
                    H.el("select", ["id": "f-format", "name": "format"]) {
                        H.el("option", ["value": ""]) { Text(t(.detectFormat)) }
                        for format in ImportFormat.allCases { H.el("option", ["value": format.rawValue]) { Text(format.displayName) } }
                    }
                }
                H.el("fieldset", ["class": "quick-picks"]) {
                    H.el("legend", [:]) { Text(t(.isbn)) }
                    H.el("label", ["class": "pick"]) {
                        H.void("input", ["type": "radio", "name": "existing", "value": "skip", "checked": ""])
                        Text(" " + t(.existingSkip))
                    }
                    H.el("label", ["class": "pick"]) {
                        H.void("input", ["type": "radio", "name": "existing", "value": "copies"])
                        Text(" " + t(.existingCopies))
                    }
                }
                H.button(t(.importButton))
            }
            H.el("ul", ["class": "menu"]) {
                H.el("li", [:]) { H.link(t(.exportCatalog), "/api/v1" + base + "/export?format=csv") }
                H.el("li", [:]) { H.link(t(.exportWishlist), "/api/v1" + base + "/export?format=wishlist-csv") }
            }
        }
    }

    @Sendable static func importFile(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        struct Upload: Content { var file: File? }
        let data = (try? req.content.decode(Upload.self).file).flatMap { $0 }.map { Data(buffer: $0.data) } ?? Data()
        let format = req.formText("format").flatMap(ImportFormat.init(rawValue:))
        let existing = req.formText("existing").flatMap(ExistingISBNPolicy.init(rawValue:)) ?? .skip
        do {
            let report = try await Importer.run(data, format: format, existing: existing, library: ctx, app: req.application, now: req.now)
            return try await render(req, ctx: ctx, report: report, error: nil).encodeResponse(for: req)
        } catch let error as AppError where error.status.code < 500 {
            let response = try await render(req, ctx: ctx, report: nil, error: error.message).encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }
}
