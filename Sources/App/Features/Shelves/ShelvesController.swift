import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

/// Shelves and stocktakes. Everyone in a library sees its shelves; librarians make,
/// rename and delete them; staff who lend put books on them and take stock.
enum ShelvesController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "shelves", doc: .init(summary: "The library's shelves in natural order (B2 before B10), each with its copies and last stocktake",
                                           tag: "Shelves", response: ShelfDTO.self, responseIsArray: true), use: list)
        lib.on(.POST, "shelves", doc: .init(
            summary: "Add a shelf: a name (what copies' `location` holds), a room and a code (made from the name when absent) (librarians); 409 when the name (any case) or code is taken",
            tag: "Shelves", request: ShelfInput.self, response: ShelfDTO.self, status: .created), use: create)
        lib.on(.GET, "shelves", ":shelfID", doc: .init(summary: "One shelf", tag: "Shelves", response: ShelfDTO.self), use: get)
        lib.on(.PATCH, "shelves", ":shelfID", doc: .init(
            summary: "Rename a shelf (its copies and the smart collections naming it move with it), or change its room or code (librarians)",
            tag: "Shelves", request: ShelfPatch.self, response: ShelfDTO.self), use: update)
        lib.on(.DELETE, "shelves", ":shelfID", doc: .init(summary: "Delete an empty shelf (librarians); 409 `shelf_not_empty` with the number of its copies",
                                                          tag: "Shelves", status: .noContent), use: delete)
        lib.on(.POST, "shelves", ":shelfID", "copies", doc: .init(
            summary: "Put the copy a scan names on this shelf: a copy's barcode, or an ISBN (then a copy of that book not on the shelf yet, one without a place first) (staff who lend); 404 `nothing_with_code`",
            tag: "Shelves", request: ShelfScanInput.self, response: ShelvedCopy.self), use: assign)
        lib.on(.GET, .shelfQR(library: .pattern, shelf: .pattern, format: "svg"), doc: .init(
            summary: "The shelf's QR code as SVG: the address of its page (a phone's camera opens it; Shelfmark's scan fields take it)", tag: "Shelves"), use: qr)
        lib.on(.GET, .shelfQR(library: .pattern, shelf: .pattern, format: "png"), doc: .init(summary: "The shelf's QR code as PNG", tag: "Shelves"), use: qr)
        lib.on(.GET, "shelves", ":shelfID", "stocktakes", doc: .init(summary: "The shelf's stocktakes, newest first (staff who lend)", tag: "Shelves",
                                                                    response: StocktakeDTO.self, responseIsArray: true), use: history)
        lib.on(.POST, "shelves", ":shelfID", "stocktakes", doc: .init(
            summary: "Start a stocktake of the shelf, or get the one under way (staff who lend)", tag: "Shelves", response: StocktakeDTO.self, status: .created), use: start)
        lib.on(.GET, "stocktakes", "unseen", doc: .init(
            summary: "Copies on the shelves (not lent, lost or withdrawn) that no stocktake has seen for `days` days (default 365), by shelf and title (staff who lend)",
            tag: "Shelves", query: [.init(name: "days", kind: .integer, description: "Not seen for this many days (1–3650, default 365).", schema: Rule.range(1...3650)),
                                    .limit, .offset], response: Stocktakes.UnseenList.self), use: unseen)
        lib.on(.GET, "stocktakes", ":stocktakeID", doc: .init(
            summary: "What a stocktake found: on the shelf, belonging elsewhere, recorded as on loan, unknown, and not scanned (missing, once finished) (staff who lend)",
            tag: "Shelves", response: StocktakeReport.self), use: report)
        lib.on(.POST, "stocktakes", ":stocktakeID", "scans", doc: .init(
            summary: "One scan at the shelf: a copy's barcode or an ISBN; answers what it means (`here`, `elsewhere`, `on_loan`, `unknown`) and the count; a copy scanned again is recorded once (`again`) (staff who lend); 409 when the stocktake is finished",
            tag: "Shelves", request: ShelfScanInput.self, response: StocktakeScanAnswer.self), use: scan)
        lib.on(.POST, "stocktakes", ":stocktakeID", "move", doc: .init(
            summary: "Put the copies the stocktake found here but placed elsewhere on its shelf: one (`copyId`) or all (staff who lend)",
            tag: "Shelves", request: MoveInput.self, response: Moved.self), use: move)
        lib.on(.POST, "stocktakes", ":stocktakeID", "finish", doc: .init(
            summary: "Finish the stocktake: copies expected on the shelf and not scanned are kept as missing; finishing twice changes nothing (staff who lend)",
            tag: "Shelves", response: StocktakeDTO.self), use: finish)
    }

    struct MoveInput: Content, SchemaConstrained {
        var copyId: UUID?
        static var schemaConstraints: [String: JSONValue] { [:] }
    }

    struct Moved: Content { var moved: Int }

    @Sendable static func list(req: Request) async throws -> [ShelfDTO] {
        let ctx = try await req.library(.read)
        return try await Shelves.list(library: ctx.libraryID, on: req.db)
    }

    @Sendable static func create(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        return try await req.created(try await Shelves.create(try req.content.decode(ShelfInput.self), in: req.scope(ctx)))
    }

    @Sendable static func get(req: Request) async throws -> ShelfDTO {
        let ctx = try await req.library(.read)
        return try await Shelves.get(try req.uuid("shelfID"), library: ctx.libraryID, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> ShelfDTO {
        let ctx = try await req.library(.catalog)
        return try await Shelves.update(try req.uuid("shelfID"), try req.content.decode(ShelfPatch.self), in: req.scope(ctx))
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.catalog)
        try await Shelves.delete(try req.uuid("shelfID"), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func assign(req: Request) async throws -> ShelvedCopy {
        let ctx = try await req.library(.circulate)
        return try await Shelves.assign(try req.content.decode(ShelfScanInput.self).code, to: try req.uuid("shelfID"), in: req.scope(ctx))
    }

    @Sendable static func qr(req: Request) async throws -> Response {
        let ctx = try await req.library(.read)
        let shelf = try await Shelves.get(try req.uuid("shelfID"), library: ctx.libraryID, on: req.db)
        return try ScanController.image(.qr, ReadingPages.origin(req) + WebRoute.shelf(library: ctx.libraryID, shelf: shelf.id).path, req: req)
    }

    @Sendable static func history(req: Request) async throws -> [StocktakeDTO] {
        let ctx = try await req.library(.circulate)
        let shelf = try await Shelves.get(try req.uuid("shelfID"), library: ctx.libraryID, on: req.db)
        return try await Stocktakes.history(shelf: shelf.id, library: ctx.libraryID, on: req.db)
    }

    @Sendable static func start(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        return try await req.created(try await Stocktakes.start(shelf: try req.uuid("shelfID"), in: req.scope(ctx)))
    }

    @Sendable static func unseen(req: Request) async throws -> Stocktakes.UnseenList {
        let ctx = try await req.library(.circulate)
        let days = try req.intQuery("days", default: 365, range: 1...3650)
        let (limit, offset) = try req.paging
        return try await Stocktakes.unseen(since: req.now.addingTimeInterval(-Double(days) * 86_400), library: ctx.libraryID,
                                           limit: limit, offset: offset, on: req.db)
    }

    @Sendable static func report(req: Request) async throws -> StocktakeReport {
        let ctx = try await req.library(.circulate)
        return try await Stocktakes.report(try req.uuid("stocktakeID"), library: ctx.libraryID, on: req.db)
    }

    @Sendable static func scan(req: Request) async throws -> StocktakeScanAnswer {
        let ctx = try await req.library(.circulate)
        return try await Stocktakes.scan(try req.uuid("stocktakeID"), try req.content.decode(ShelfScanInput.self).code, in: req.scope(ctx))
    }

    @Sendable static func move(req: Request) async throws -> Moved {
        let ctx = try await req.library(.circulate)
        let input = req.body.data == nil ? MoveInput() : try req.content.decode(MoveInput.self)
        return Moved(moved: try await Stocktakes.moveHere(try req.uuid("stocktakeID"), copy: input.copyId, in: req.scope(ctx)))
    }

    @Sendable static func finish(req: Request) async throws -> StocktakeDTO {
        let ctx = try await req.library(.circulate)
        return try await Stocktakes.finish(try req.uuid("stocktakeID"), in: req.scope(ctx))
    }
}
