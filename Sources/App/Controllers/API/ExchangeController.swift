import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Import and export (F1–F3): files in, report out; the catalog and wishlist as CSV.
enum ExchangeController {
    static let maxImportMB = 100

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "import", doc: .init(
            summary: "Import a file: the seed's catalog/wishlist CSV, Goodreads, LibraryThing, StoryGraph, Libib, Calibre, a generic CSV or a list of ISBNs (detected from the header unless `format` is given). Raw body or multipart field `file`; at most 100 MB. Answers the report: titles created, copies added, skipped and failed rows with line numbers and reasons",
            tag: "Import & export",
            query: [
                .init(name: "format", description: "One of: \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")) (default: detect)."),
                .init(name: "existing", description: "A row whose ISBN the library has: `skip` (default) or `copies` (add its copies)."),
            ],
            response: ImportReport.self), body: .collect(maxSize: ByteCount(value: maxImportMB << 20)), use: importFile)
        lib.on(.GET, "export", doc: .init(
            summary: "Export as CSV: `format=csv` (library_catalog.csv) or `format=wishlist-csv` (library_wishlist.csv)", tag: "Import & export",
            query: [.init(name: "format", description: "`csv` (default) or `wishlist-csv`.")]), use: export)
    }

    struct Upload: Content { var file: File? }

    @Sendable static func importFile(req: Request) async throws -> ImportReport {
        let ctx = try await req.library(.catalog)
        let data: Data
        if req.headers.contentType?.type == "multipart" {
            guard let file = try req.content.decode(Upload.self).file else {
                throw AppError.invalid("file", "The form has no file: send it in a field named `file`.")
            }
            data = Data(buffer: file.data)
        } else {
            data = req.body.data.map { Data(buffer: $0) } ?? Data()
        }
        let format = try req.query[String.self, at: "format"].map { raw in
            guard let f = ImportFormat(rawValue: raw) else {
                throw AppError.invalid("format", "Unknown format “\(raw)”: use one of \(ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return f
        }
        let existing = try req.query[String.self, at: "existing"].map { raw in
            guard let p = ExistingISBNPolicy(rawValue: raw) else { throw AppError.invalid("existing", "`existing` is `skip` or `copies`, got “\(raw)”.") }
            return p
        } ?? .skip
        return try await Importer.run(data, format: format, existing: existing, library: ctx, app: req.application, now: req.now)
    }

    @Sendable static func export(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let format = req.query[String.self, at: "format"] ?? "csv"
        let (csv, name): (String, String)
        switch format {
        case "csv": (csv, name) = (try await Exporter.catalogCSV(libraryID: ctx.libraryID, on: req.db), "library_catalog.csv")
        case "wishlist-csv": (csv, name) = (try await Exporter.wishlistCSV(libraryID: ctx.libraryID, on: req.db), "library_wishlist.csv")
        default: throw AppError.invalid("format", "Export `format` is `csv` or `wishlist-csv`, got “\(format)”.")
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "text/csv; charset=utf-8")
        headers.replaceOrAdd(name: .contentDisposition, value: "attachment; filename=\"\(name)\"")
        return Response(status: .ok, headers: headers, body: .init(string: csv))
    }
}
