import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Holds (issue 25, B5): the hold shelf, placing a hold from a book's page, and each hold's buttons;
/// renewing all of a member's loans.
enum HoldPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.holds(library: .pattern), use: holds)
        web.post(.titleHolds(library: .pattern, title: .pattern), use: place)
        web.post(.holdUpdate(library: .pattern, hold: .pattern), use: update)
        web.post(.holdCancel(library: .pattern, hold: .pattern), use: cancel)
        web.post(.memberRenewAll(library: .pattern, member: .pattern), use: renewAll)
    }

    @Sendable static func holds(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        let show = req.query[String.self, at: "show"].flatMap(HoldState.init(rawValue:))
        return try await HoldsPage.make(show: show, paging: Paging(req.query[Int.self, at: "page"]), library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    /// The book page's "Place a hold" form: the member's card ID.
    @Sendable static func place(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let titleID = try req.uuid("titleID")
        let book = WebRoute.title(library: ctx.libraryID, title: titleID).path
        let t = req.t(ctx)
        return try await req.seeOther(book + "#holds") {
            let hold = try await Holds.place(HoldInput(titleId: titleID, memberId: nil, cardId: req.formText("cardId")), in: req.scope(ctx))
            if hold.state == .ready, let by = hold.pickupBy {
                return t.format(.holdPlacedReady, hold.memberName, hold.copyBarcode ?? "", t.date(by))
            }
            return t.format(.holdPlacedWaiting, hold.memberName, t.number(hold.position ?? 1))
        }
    }

    @Sendable static func update(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let t = req.t(ctx)
        return try await req.seeOther(CirculationPages.back(req, ctx: ctx)) {
            let patch = HoldPatch(suspended: req.formText("suspended").map { $0 == "true" }, move: req.formText("move").flatMap(HoldMove.init(rawValue:)))
            let hold = try await Holds.update(try req.uuid("holdID"), patch, in: req.scope(ctx))
            if patch.suspended != nil { return t.format(hold.suspended ? .holdSuspendedFor : .holdResumedFor, hold.memberName) }
            return t.format(.holdMoved, hold.memberName, t.number(hold.position ?? 1))
        }
    }

    @Sendable static func cancel(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let t = req.t(ctx)
        return try await req.seeOther(CirculationPages.back(req, ctx: ctx)) {
            let hold = try await Holds.cancel(try req.uuid("holdID"), in: req.scope(ctx))
            return t.format(.holdCancelledFor, hold.memberName, hold.title)
        }
    }

    /// "Renew all" on a member's page: how many were renewed, and why each other one was not.
    @Sendable static func renewAll(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        let t = req.t(ctx)
        let outcomes = try await Circulation.renewAll(member: memberID, in: req.scope(ctx))
        let renewed = outcomes.filter { $0.loan != nil }.count
        var message = t.format(.renewedAll, t(.titles, renewed))
        for refused in outcomes where refused.error != nil {
            message += " " + refused.title + ": " + t.message(refused.error!)
        }
        return req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path, flash: message)
    }
}
