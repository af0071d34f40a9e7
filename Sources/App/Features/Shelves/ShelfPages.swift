import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Shelves and stocktakes: the shelves, a shelf's page (its books put on it by
/// scanning, its QR code, its stocktakes), a stocktake at the shelf, the signs to print, and the copies
/// no stocktake has seen for a year. A scan field takes what a keyboard-wedge scanner types (the code
/// and Enter); a shelf's QR code scanned into it opens that shelf.
enum ShelfPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.shelves(library: .pattern), use: list)
        web.post(.shelves(library: .pattern), use: add)
        web.get(.shelf(library: .pattern, shelf: .pattern), use: shelf)
        web.post(.shelf(library: .pattern, shelf: .pattern), use: save)
        web.post(.shelfBooks(library: .pattern, shelf: .pattern), use: putBook)
        web.post(.shelfDelete(library: .pattern, shelf: .pattern), use: delete)
        web.post(.shelfStocktake(library: .pattern, shelf: .pattern), use: startStocktake)
        web.get(.shelfSigns(library: .pattern), use: signs)
        web.get(.stocktake(library: .pattern, stocktake: .pattern), use: stocktake)
        web.post(.stocktakeScan(library: .pattern, stocktake: .pattern), use: scan)
        web.post(.stocktakeMove(library: .pattern, stocktake: .pattern), use: move)
        web.post(.stocktakeFinish(library: .pattern, stocktake: .pattern), use: finish)
        web.get(.unseen(library: .pattern), use: unseen)
    }

    struct ShelfForm: WebForm {
        var name, room, code: String?
        static var maxLength: [String: Int] { ["name": 200, "room": 100, "code": 40] }
    }

    struct ScanForm: WebForm {
        var code: String?
        static var maxLength: [String: Int] { ["code": 300] }
    }

    struct MoveForm: WebForm {
        var copy: UUID?
    }

    @Sendable static func list(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return ShelvesPage(libraryID: ctx.libraryID, shelves: try await Shelves.list(library: ctx.libraryID, on: req.db), role: ctx.role)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func add(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let form = try req.form(ShelfForm.self)
        do {
            let shelf = try await Shelves.create(ShelfInput(name: form.name ?? "", room: form.room, code: form.code), in: req.scope(ctx))
            return req.seeOther(WebRoute.shelves(library: ctx.libraryID).path, flash: req.t.format(.shelfAdded, shelf.name))
        } catch let error where error.isFormRefusal {
            var page = ShelvesPage(libraryID: ctx.libraryID, shelves: try await Shelves.list(library: ctx.libraryID, on: req.db), role: ctx.role)
            page.form = FormState(values: req.typed(["name", "room", "code"]), refusedWith: error, t: req.t, fields: ["name", "room", "code"])
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    @Sendable static func shelf(req: Request) async throws -> HTML {
        let ctx = try await req.library(.read)
        return try await ShelfPage.make(try req.uuid("shelfID"), library: ctx, origin: ReadingPages.origin(req), on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func save(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("shelfID")
        let form = try req.form(ShelfForm.self)
        do {
            _ = try await Shelves.update(id, ShelfPatch(name: form.name ?? "", room: form.room ?? "", code: form.code), in: req.scope(ctx))
            return req.seeOther(WebRoute.shelf(library: ctx.libraryID, shelf: id).path, flash: req.t(.shelfSaved))
        } catch let error where error.isFormRefusal {
            var page = try await ShelfPage.make(id, library: ctx, origin: ReadingPages.origin(req), on: req.db)
            page.form = FormState(values: req.typed(["name", "room", "code"]), refusedWith: error, t: req.t, fields: ["name", "room", "code"])
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    /// A scan at the shelf: a book is put on it; another shelf's QR code opens that shelf.
    @Sendable static func putBook(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let id = try req.uuid("shelfID")
        let code = try req.form(ScanForm.self).code ?? ""
        if let other = try await otherShelf(code, library: ctx.libraryID, on: req.db) {
            return req.seeOther(WebRoute.shelf(library: ctx.libraryID, shelf: other).path)
        }
        return try await req.seeOther(WebRoute.shelf(library: ctx.libraryID, shelf: id).path, refusing: scanRefusal) {
            let shelved = try await Shelves.assign(code, to: id, in: req.scope(ctx))
            if let from = shelved.from, from != shelved.shelf {
                return req.t.format(.shelvedCopyFrom, shelved.title, shelved.barcode, from, shelved.shelf)
            }
            return req.t.format(.shelvedCopy, shelved.title, shelved.barcode, shelved.shelf)
        }
    }

    /// A scan that names nothing is said on the page, like any refusal of what was typed.
    static func scanRefusal(_ error: any Error) -> Bool {
        if case .unknownItem = error as? ShelfError { return true }
        return error.isFormRefusal
    }

    /// The shelf a scanned text names when it is a shelf's QR code (of this library), else nil.
    static func otherShelf(_ code: String, library: UUID, on db: any Database) async throws -> UUID? {
        switch ShelfScan.read(code) {
        case .shelf(let id): return try await Shelves.get(id, library: library, on: db).id
        case .shelfNamed(let name): return try await Shelves.id(named: name, library: library, on: db)
        case .item: return nil
        }
    }

    @Sendable static func delete(req: Request) async throws -> Response {
        let ctx = try await req.library(.catalog)
        let id = try req.uuid("shelfID")
        let shelf = try await Shelves.get(id, library: ctx.libraryID, on: req.db)
        do {
            try await Shelves.delete(id, in: req.scope(ctx))
            return req.seeOther(WebRoute.shelves(library: ctx.libraryID).path, flash: req.t.format(.shelfDeleted, shelf.name))
        } catch let error where error.isFormRefusal {
            return req.seeOther(WebRoute.shelf(library: ctx.libraryID, shelf: id).path, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func startStocktake(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let stocktake = try await Stocktakes.start(shelf: try req.uuid("shelfID"), in: req.scope(ctx))
        return req.seeOther(WebRoute.stocktake(library: ctx.libraryID, stocktake: stocktake.id).path,
                            flash: req.t.format(.stocktakeStarted, stocktake.shelfName))
    }

    @Sendable static func stocktake(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        let report = try await Stocktakes.report(try req.uuid("stocktakeID"), library: ctx.libraryID, on: req.db)
        return StocktakePage(libraryID: ctx.libraryID, report: report).render(try await req.page(library: ctx))
    }

    /// One scan of the stocktake, said in a sentence; another shelf's QR code goes on to that shelf.
    @Sendable static func scan(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let id = try req.uuid("stocktakeID")
        let code = try req.form(ScanForm.self).code ?? ""
        if let other = try await otherShelf(code, library: ctx.libraryID, on: req.db) {
            return req.seeOther(WebRoute.shelf(library: ctx.libraryID, shelf: other).path)
        }
        let back = WebRoute.stocktake(library: ctx.libraryID, stocktake: id).path
        do {
            let answer = try await Stocktakes.scan(id, code, in: req.scope(ctx))
            let t = req.t, title = answer.item.title ?? answer.item.code
            let sentence: String = if answer.again { t.format(.scanAgain, title) } else {
                switch answer.outcome {
                case .here, .moved: t.format(.scanFound, title)
                case .elsewhere: answer.item.location.map { t.format(.scanElsewhere, title, $0) } ?? t.format(.scanNoPlace, title)
                case .onLoan: t.format(.scanOnLoan, title)
                case .unknown, .missing: t.format(.scanUnknown, answer.item.code)
                }
            }
            return req.seeOther(back, flash: sentence, isError: answer.outcome != .here && answer.outcome != .moved && !answer.again)
        } catch let error where scanRefusal(error) {
            return req.seeOther(back, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func move(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let id = try req.uuid("stocktakeID")
        let copy = try req.form(MoveForm.self).copy
        return try await req.seeOther(WebRoute.stocktake(library: ctx.libraryID, stocktake: id).path) {
            let moved = try await Stocktakes.moveHere(id, copy: copy, in: req.scope(ctx))
            return req.t.format(.movedHere, req.t.number(moved))
        }
    }

    @Sendable static func finish(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let id = try req.uuid("stocktakeID")
        _ = try await Stocktakes.finish(id, in: req.scope(ctx))
        return req.seeOther(WebRoute.stocktake(library: ctx.libraryID, stocktake: id).path, flash: req.t(.stocktakeDone))
    }

    @Sendable static func signs(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        let options = try ShelfCodeSheets.options(req)
        let shelves = try await Shelves.list(library: ctx.libraryID, on: req.db)
        let chosen = options.shelf.flatMap { id in shelves.first { $0.id == id } }
        let count = options.shelf == nil ? shelves.count : (chosen == nil ? 0 : 1)
        return ShelfSignsPage(libraryID: ctx.libraryID, options: options, shelfName: chosen?.name, count: count)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func unseen(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        let paging = Paging(req.query[Int.self, at: "page"])
        let since = req.now.addingTimeInterval(-365 * 86_400)
        let list = try await Stocktakes.unseen(since: since, library: ctx.libraryID, limit: paging.size, offset: paging.offset, on: req.db)
        return UnseenPage(libraryID: ctx.libraryID, since: since, list: list, paging: paging).render(try await req.page(library: ctx))
    }
}
