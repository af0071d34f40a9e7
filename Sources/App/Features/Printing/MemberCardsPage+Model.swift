import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Member cards to print: one class (or a search, or everyone), on A4 or US Letter, from the
/// first free card of a sheet already used; how many cards on how many sheets, each sheet previewed as
/// the image of the PDF page it will print, and the PDF to download.
struct MemberCardsPage: Sendable {
    static let fields: Set<String> = ["q", "paper", "start"]

    var libraryID: UUID
    var form: FormState
    var options: MemberCardSheets.Options?
    var count = 0
    var pages = 0

    static func make(_ req: Request, library: LibraryContext) async throws -> MemberCardsPage {
        var values: [String: String] = [:]
        for name in fields { if let raw = req.query[String.self, at: name] { values[name] = String(raw.cleanedInput.prefix(200)) } }
        var page = MemberCardsPage(libraryID: library.libraryID, form: FormState(values: values))
        do {
            let options = try MemberCardSheets.options(req)
            page.count = try await Members.count(query: options.q, libraryID: library.libraryID, on: req.db)
            if page.count > MemberCardSheets.maxCards { throw MemberCardSheets.Problem.tooMany(page.count) }
            page.pages = CardLayout.sheet(options.paper).pages(count: page.count, startAt: options.startAt)
            page.options = options
        } catch let error where error.isFormRefusal {
            page.form = FormState(values: values, refusedWith: error, t: req.t, fields: fields)
            page.count = 0
        }
        return page
    }
}
