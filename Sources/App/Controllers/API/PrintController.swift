import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// What a library prints (issue 26, F4): label sheets for copies and member cards, each as a PDF made
/// on the server and, page by page, as the PNG the print page previews. Staff who lend may print.
enum PrintController {
    /// The preview of at most this many sheets (5,000 spine labels take 99).
    static let maxPage = 200

    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        let labelQuery: [RouteDoc.Param] = [
            .init(name: "layout", description: "The label sheet (default `avery-l7160`).",
                  schema: ["enum": .array(LabelLayout.allCases.map { .string($0.rawValue) })]),
            .init(name: "start", kind: .integer,
                  description: "The first free label of a sheet already used, counted across then down (default 1; at most the sheet's labels: 30, 21, 24 or 51).",
                  schema: Rule.range(1...51)),
            .init(name: "offsetX", kind: .number, description: "Printer offset to the right in millimetres (−10 to 10, default 0).",
                  schema: ["minimum": -10, "maximum": 10]),
            .init(name: "offsetY", kind: .number, description: "Printer offset down in millimetres (−10 to 10, default 0).",
                  schema: ["minimum": -10, "maximum": 10]),
            .init(name: "title", description: "Only this title's copies.", format: "uuid"),
            .init(name: "since", description: "Only copies added on or after this day (the library's time zone).", format: "date"),
            .init(name: "location", description: "Only copies on this shelf.", schema: Rule.optionalText(100)),
            .init(name: "collection", description: "Only copies of the titles of this smart collection (404 when there is none).", format: "uuid"),
        ]
        let cardQuery: [RouteDoc.Param] = [
            .init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]]),
            .init(name: "start", kind: .integer, description: "The first free card of a sheet already used (1–10, default 1).", schema: Rule.range(1...10)),
            .init(name: "q", description: "Only members of this class, or matching this name or card ID.", schema: Rule.optionalText(100)),
            .init(name: "member", description: "Only this member's card.", format: "uuid"),
        ]
        let page = RouteDoc.Param(name: "page", kind: .integer, description: "The sheet to show (from 1, default 1).", schema: Rule.range(1...maxPage))
        lib.on(.GET, .labels(library: .pattern, format: "pdf"), doc: .init(
            summary: "Label sheets for copies as a PDF: each label with the copy's Code 128 barcode, title, author and shelf (spine labels: the shelf mark), A–Z; lost and withdrawn copies left out; at most 5,000 (422 `too_many_labels`), 404 `nothing_to_print` when none match (staff who lend)",
            tag: "Printing", query: labelQuery), use: labelsPDF)
        lib.on(.GET, .labels(library: .pattern, format: "png"), doc: .init(
            summary: "One sheet of the labels PDF as a PNG (96 dpi), the labels' edges drawn in grey: the preview before printing (staff who lend)",
            tag: "Printing", query: labelQuery + [page]), use: labelsPreview)
        lib.on(.GET, .memberCards(library: .pattern, format: "pdf"), doc: .init(
            summary: "Member cards as a PDF: ID-1 cards (85.6 × 54 mm), ten to a sheet, with the library's name, the member's name and class and the card's Code 128 barcode; at most 1,000 (422 `too_many_cards`) (staff who lend)",
            tag: "Printing", query: cardQuery), use: cardsPDF)
        lib.on(.GET, .memberCards(library: .pattern, format: "png"), doc: .init(
            summary: "One sheet of the member cards PDF as a PNG (96 dpi): the preview before printing (staff who lend)",
            tag: "Printing", query: cardQuery + [page]), use: cardsPreview)
        let signQuery: [RouteDoc.Param] = [
            .init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]]),
            .init(name: "shelf", description: "Only this shelf's sign (404 when there is none); default every shelf.", format: "uuid"),
        ]
        lib.on(.GET, .shelfSigns(library: .pattern, format: "pdf"), doc: .init(
            summary: "Shelf signs as a PDF: each shelf's QR code (the address of its page) with its name, room and code, eight to a sheet (90 × 66 mm); 404 `nothing_to_print` when the library has no shelf (staff who lend)",
            tag: "Printing", query: signQuery), use: signsPDF)
        lib.on(.GET, .shelfSigns(library: .pattern, format: "png"), doc: .init(
            summary: "One sheet of the shelf signs PDF as a PNG (96 dpi): the preview before printing (staff who lend)",
            tag: "Printing", query: signQuery + [page]), use: signsPreview)
    }

    static func pdfResponse(_ bytes: [UInt8], name: String, count: Int) -> Response {
        let response = Response(status: .ok, body: .init(data: Data(bytes)))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "pdf")
        response.headers.replaceOrAdd(name: .contentDisposition, value: "inline; filename=\"\(name).pdf\"")
        response.headers.replaceOrAdd(name: "X-Item-Count", value: String(count))
        return response
    }

    static func pngResponse(_ bytes: [UInt8]) -> Response {
        let response = Response(status: .ok, body: .init(data: Data(bytes)))
        response.headers.contentType = .png
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, no-store")
        return response
    }

    /// The sheet asked for (from 0), refused (404) past the last one.
    static func page(_ req: Request, of pages: Int) throws -> Int {
        let page = try req.intQuery("page", default: 1, range: 1...maxPage)
        guard page <= max(pages, 1) else { throw RequestError.noSuchPath(field: "page") }
        return page - 1
    }

    @Sendable static func labelsPDF(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try await LabelSheets.resolve(try LabelSheets.options(req, timeZone: ctx.policy.timeZone), library: ctx.libraryID, now: req.now, on: req.db)
        let labels = try await LabelSheets.labels(options, library: ctx.libraryID, on: req.db)
        guard !labels.isEmpty else { throw LabelSheets.Problem.nothingToPrint }
        let title = req.t(.copyLabels) + " · " + ctx.name
        let bytes = try await req.application.threadPool.runIfActive { try LabelSheets.pdf(labels, options, title: title) }
        return pdfResponse(bytes, name: "labels-" + options.layout.rawValue, count: labels.count)
    }

    @Sendable static func labelsPreview(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try await LabelSheets.resolve(try LabelSheets.options(req, timeZone: ctx.policy.timeZone), library: ctx.libraryID, now: req.now, on: req.db)
        let labels = try await LabelSheets.labels(options, library: ctx.libraryID, on: req.db)
        let page = try page(req, of: options.layout.sheet.pages(count: labels.count, startAt: options.startAt))
        return pngResponse(try await req.application.threadPool.runIfActive { try LabelSheets.preview(labels, options, page: page) })
    }

    @Sendable static func cardsPDF(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try MemberCardSheets.options(req)
        let cards = try await MemberCardSheets.cards(options, library: ctx.libraryID, on: req.db)
        guard !cards.isEmpty else { throw LabelSheets.Problem.nothingToPrint }
        let title = req.t(.memberCards) + " · " + ctx.name
        let bytes = try await req.application.threadPool.runIfActive { try MemberCardSheets.pdf(cards, options, libraryName: ctx.name, title: title) }
        return pdfResponse(bytes, name: "member-cards", count: cards.count)
    }

    @Sendable static func cardsPreview(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try MemberCardSheets.options(req)
        let cards = try await MemberCardSheets.cards(options, library: ctx.libraryID, on: req.db)
        let page = try page(req, of: CardLayout.sheet(options.paper).pages(count: cards.count, startAt: options.startAt))
        return pngResponse(try await req.application.threadPool.runIfActive {
            try MemberCardSheets.preview(cards, options, libraryName: ctx.name, page: page)
        })
    }

    @Sendable static func signsPDF(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try ShelfCodeSheets.options(req)
        let signs = try await ShelfCodeSheets.signs(options, origin: ReadingPages.origin(req), library: ctx.libraryID, on: req.db)
        guard !signs.isEmpty else { throw LabelSheets.Problem.nothingToPrint }
        let title = req.t(.shelfQRCodes) + " · " + ctx.name
        let bytes = try await req.application.threadPool.runIfActive { try ShelfCodeSheets.pdf(signs, options, title: title) }
        return pdfResponse(bytes, name: "shelf-signs", count: signs.count)
    }

    @Sendable static func signsPreview(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let options = try ShelfCodeSheets.options(req)
        let signs = try await ShelfCodeSheets.signs(options, origin: ReadingPages.origin(req), library: ctx.libraryID, on: req.db)
        let page = try page(req, of: ShelfCodeSheets.layout(options.paper).pages(count: signs.count))
        return pngResponse(try await req.application.threadPool.runIfActive { try ShelfCodeSheets.preview(signs, options, page: page) })
    }
}
