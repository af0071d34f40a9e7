import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Holds: the hold shelf, placing a hold from a book's page, and each hold's buttons;
/// renewing all of a member's loans.
enum HoldPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.holds(library: .pattern), use: holds)
        web.post(.titleHolds(library: .pattern, title: .pattern), use: place)
        web.post(.holdUpdate(library: .pattern, hold: .pattern), use: update)
        web.post(.holdCancel(library: .pattern, hold: .pattern), use: cancel)
        web.post(.memberRenewAll(library: .pattern, member: .pattern), use: renewAll)
        web.post(.memberCalendar(library: .pattern, member: .pattern), use: memberCalendar)
        web.post(.staffCalendar(library: .pattern), use: staffCalendar)
    }

    /// The signed cookie that carries a calendar link just made to the next page, once (only its hash is kept).
    static let newCalendarCookie = "shelfmark_new_calendar"

    /// A member's calendar link: made (shown once on their page, with a QR code), or stopped.
    @Sendable static func memberCalendar(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        return try await calendar(req, scope: req.scope(ctx), member: memberID, back: WebRoute.member(library: ctx.libraryID, member: memberID).path + "#calendar")
    }

    /// The staff's calendar link (every open loan), from the loans page.
    @Sendable static func staffCalendar(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        return try await calendar(req, scope: req.scope(ctx), member: nil, back: WebRoute.loans(library: ctx.libraryID).path + "#calendar")
    }

    /// Makes or stops the calendar link of `member` (nil: the staff's) in `scope` — a staff member's, or a
    /// member's own from the public catalog — and goes back to `back`, the new link shown there once.
    static func calendar(_ req: Request, scope: Scope, member: UUID?, back: String) async throws -> Response {
        var token: String?
        let response = try await req.seeOther(back) {
            if try req.form(CalendarForm.self).stop != nil {
                try await CalendarFeeds.stop(member: member, in: scope)
                return req.t(.calendarStopped)
            }
            token = try await CalendarFeeds.make(member: member, lang: req.lang, in: scope)
            return req.t(.calendarMade)
        }
        if let token, let value = Flash.value(token, session: req.flashKey) {
            response.cookies[newCalendarCookie] = req.cookie(value, maxAge: 120)
        }
        return response
    }

    /// The calendar link just made (read once from its cookie), as the page shows it.
    static func newCalendarLink(_ req: Request) -> CalendarLink? {
        guard let raw = req.cookies[newCalendarCookie]?.string, let token = Flash.message(in: raw, session: req.flashKey) else { return nil }
        return CalendarLink(token: token, req: req)
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
            let hold = try await Holds.place(HoldInput(titleId: titleID, memberId: nil, cardId: try req.form(PlaceForm.self).cardId), in: req.scope(ctx))
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
            let patch = try req.form(HoldPatch.self)
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

extension HoldPages {
    /// The calendar card's form: make a new link, or `stop` the one there is.
    struct CalendarForm: WebForm {
        var stop: String?
    }

    /// The book page's "Place a hold": the member's card ID.
    struct PlaceForm: WebForm, SchemaConstrained {
        var cardId: String?
        static var schemaConstraints: [String: JSONValue] { HoldInput.schemaConstraints }
    }
}

/// A hold's Suspend, Resume, Up and Down buttons send the API's patch as a form.
extension HoldPatch: WebForm {}
