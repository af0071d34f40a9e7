import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Label sheets for copies: which copies (added since a day — this week's, at first —
/// on a shelf, or one title's), which sheet, where to start on it and the printer's offset; then how
/// many labels on how many sheets, each sheet previewed as the image of the PDF page it will print, and
/// the PDF to download.
struct LabelsPage: Sendable {
    static let fields: Set<String> = ["layout", "since", "location", "start", "offsetX", "offsetY"]

    var libraryID: UUID
    /// The form as typed.
    var form: FormState
    var options: LabelSheets.Options?
    var titleName: String?
    var collectionName: String?
    var count = 0
    var pages = 0
    var locations: [String] = []

    static func make(_ req: Request, library: LibraryContext) async throws -> LabelsPage {
        let zone = library.policy.timeZone
        var values: [String: String] = [:]
        for name in fields.union(["title", "collection"]) {
            if let raw = req.query[String.self, at: name] { values[name] = String(raw.cleanedInput.prefix(200)) }
        }
        // A first visit asks for this week's new books.
        if req.url.query?.isEmpty ?? true { values["since"] = LabelSheets.weekAgo(req.now, timeZone: zone) }
        var page = LabelsPage(libraryID: library.libraryID, form: FormState(values: values))
        page.locations = try await LabelSheets.locations(library: library.libraryID, on: req.db)
        do {
            var options = try await LabelSheets.resolve(try LabelSheets.options(req, timeZone: zone), library: library.libraryID, now: req.now, on: req.db)
            if let id = options.collection {
                page.collectionName = try await Collections.get(id, library: library.libraryID, on: req.db).name
            }
            if let since = values["since"], options.sinceDay == nil, let day = LabelSheets.day(since, timeZone: zone) {
                (options.since, options.sinceDay) = (day, since)
            }
            if let title = options.title {
                page.titleName = try await Title.query(on: req.db).filter(\.$id == title).inLibrary(library.libraryID).first()?.title
            }
            page.count = try await LabelSheets.count(options, library: library.libraryID, on: req.db)
            if page.count > LabelSheets.maxLabels { throw LabelSheets.Problem.tooMany(page.count) }
            page.pages = options.layout.sheet.pages(count: page.count, startAt: options.startAt)
            page.options = options
        } catch let error where error.isFormRefusal || error is CollectionError {
            page.form = FormState(values: values, refusedWith: error, t: req.t, fields: fields)
            page.count = 0
        }
        return page
    }
}
