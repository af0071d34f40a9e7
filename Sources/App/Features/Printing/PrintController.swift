import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

/// What a library prints: label sheets for copies and member cards, each as a PDF made
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
        let catalogQuery: [RouteDoc.Param] = [
            .init(name: "group", description: "A–Z under their letters (default `az`), grouped by shelf, category or reading level, or in shelf order under the call numbers' classes (`call-number`).",
                  schema: ["enum": .array(CatalogSheets.Grouping.allCases.map { .string($0.rawValue) })]),
            .init(name: "covers", kind: .boolean, description: "With each book's stored cover (at most 2,000 books; default false)."),
            .init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]]),
            .init(name: "shelf", description: "Only the books with a copy on this shelf.", schema: Rule.optionalText(200)),
            .init(name: "collection", description: "Only the books of this smart collection (404 when there is none).", format: "uuid"),
        ]
        lib.on(.GET, .printedCatalog(library: .pattern, format: "pdf"), doc: .init(
            summary: "The printed catalog as a PDF: title, authors, year, publisher, shelf, reading level and ISBN of each book, A–Z or grouped, covers if asked, \"page X of Y\" on every page; at most 25,000 books (2,000 with covers; 422 `too_many_books` with the count)",
            tag: "Printing", query: catalogQuery), use: catalogPDF)
        lib.on(.GET, .printedCatalog(library: .pattern, format: "png"), doc: .init(
            summary: "One page of the printed catalog as a PNG (96 dpi): the preview before printing", tag: "Printing",
            query: catalogQuery + [RouteDoc.Param(name: "page", kind: .integer, description: "The page to show (from 1, default 1).", schema: Rule.range(1...10_000))]),
            use: catalogPreview)
        let bookQuery: [RouteDoc.Param] = [.init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]])]
        lib.on(.GET, .bookSheet(library: .pattern, title: .pattern, format: "pdf"), doc: .init(
            summary: "A book's page as a PDF: cover, title, authors, facts, description and its copies with shelf, status and barcode", tag: "Printing",
            query: bookQuery), use: bookPDF)
        lib.on(.GET, .bookSheet(library: .pattern, title: .pattern, format: "png"), doc: .init(
            summary: "The book's PDF page as a PNG (96 dpi)", tag: "Printing", query: bookQuery), use: bookPreview)
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

    static func catalogHeader(_ req: Request, _ ctx: LibraryContext) -> String {
        ctx.name + " · " + req.t(.printedCatalog) + " · " + req.t.date(req.now)
    }

    @Sendable static func catalogPDF(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let options = try CatalogSheets.options(req)
        let groups = try await CatalogSheets.groups(options, library: ctx.libraryID, now: req.now, t: req.t, on: req.db)
        let (header, t) = (catalogHeader(req, ctx), req.t)
        let bytes = try await req.application.threadPool.runIfActive { try CatalogSheets.pdf(groups, options, header: header, t: t) }
        return pdfResponse(bytes, name: "catalog", count: groups.reduce(0) { $0 + $1.entries.count })
    }

    @Sendable static func catalogPreview(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let options = try CatalogSheets.options(req)
        let groups = try await CatalogSheets.groups(options, library: ctx.libraryID, now: req.now, t: req.t, on: req.db)
        let page = try req.intQuery("page", default: 1, range: 1...10_000)
        guard page <= CatalogSheets.layout(groups, options).pages else { throw RequestError.noSuchPath(field: "page") }
        let (header, t) = (catalogHeader(req, ctx), req.t)
        return pngResponse(try await req.application.threadPool.runIfActive { try CatalogSheets.preview(groups, options, header: header, t: t, page: page - 1) })
    }

    static func book(_ req: Request) async throws -> (TitleDetail, Thumbnail?, SheetLayout.Paper) {
        let ctx = try await req.library(.read)
        let paper = try req.paperQuery()
        let detail = try await TitleQuery.detail(try req.uuid("titleID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
        var cover: Thumbnail?
        if let url = detail.coverUrl, let id = Backup.coverID(url), let image = try await CoverStore.load(id, on: req.db) {
            cover = try? Thumbnail.make(image.bytes, maxSide: 600)
        }
        return (detail, cover, paper)
    }

    @Sendable static func bookPDF(req: Request) async throws -> Response {
        let (detail, cover, paper) = try await book(req)
        let t = req.t
        let bytes = try await req.application.threadPool.runIfActive { try CatalogSheets.book(detail, cover: cover, paper: paper, t: t) }
        return pdfResponse(bytes, name: "book", count: 1)
    }

    @Sendable static func bookPreview(req: Request) async throws -> Response {
        let (detail, cover, paper) = try await book(req)
        let t = req.t
        return pngResponse(try await req.application.threadPool.runIfActive { try CatalogSheets.bookPreview(detail, cover: cover, paper: paper, t: t) })
    }
}
