import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The members page (search, add, a class list), one member's page and a sheet of their cards.
enum MemberPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.members(library: .pattern), use: members)
        web.post(.members(library: .pattern), use: addMember)
        web.on(.POST, WebRoute.membersImport(library: .pattern).pattern, body: .collect(maxSize: ByteCount(value: MemberExchange.maxBytes + (64 << 10))),
               use: importMembers).maxBody(MemberExchange.maxBytes + (64 << 10))
        web.get(.member(library: .pattern, member: .pattern), use: member)
        web.get(.memberCards(library: .pattern), use: memberCards)
    }

    @Sendable static func members(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        return try await membersPage(req, ctx: ctx, form: FormState())
    }

    static let memberFields = MembersPage.fields

    /// A sheet of member cards to print, for a class or a search.
    @Sendable static func memberCards(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let page = try await MemberCardsPage.make(req, library: ctx)
        return try await req.refused(page.render(try await req.page(library: ctx)), page.form.isRefused)
    }

    /// A class list from the members page: the page again with what was added and each line not taken.
    @Sendable static func importMembers(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        var page = try await MembersPage.make(q: nil, sort: .name, paging: Paging(1), form: FormState(), library: ctx, on: req.db)
        do {
            page.importReport = try await MemberExchange.importList(req.formFile("file"), in: req.scope(ctx))
            page = try await MembersPage.make(q: nil, sort: .name, paging: Paging(1), form: FormState(), library: ctx, on: req.db)
                .with(report: page.importReport)
        } catch let error where error.isFormRefusal {
            page.importError = req.t.message(error)
        }
        return try await req.refused(page.render(try await req.page(library: ctx)), page.importError != nil)
    }

    /// The members page; `form` is the add-member form (open, as typed, with the refusal next to its
    /// field, after a refusal).
    static func membersPage(_ req: Request, ctx: LibraryContext, form: FormState) async throws -> HTML {
        try await MembersPage.make(q: req.query[String.self, at: "q"], sort: req.query[String.self, at: "sort"].flatMap(MemberSort.init(rawValue:)) ?? .name,
                                   archived: req.query[String.self, at: "archived"] == "true", paging: Paging(req.query[Int.self, at: "page"]), form: form, library: ctx, on: req.db)
            .render(try await req.page(library: ctx))
    }

    @Sendable static func addMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let values = req.typed(memberFields)
        do {
            // The web form and the API's body are one type, with one set of bounds.
            let m = try await Members.create(try req.form(MemberInput.self), in: req.scope(ctx))
            return req.seeOther(WebRoute.members(library: ctx.libraryID).path, flash: req.t.format(.memberAdded, m.name))
        } catch let error where error.isFormRefusal {
            let form = FormState(values: values, refusedWith: error, t: req.t, fields: memberFields)
            return try await req.refused(membersPage(req, ctx: ctx, form: form))
        }
    }

    @Sendable static func member(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        var model = try await MemberPage.make(memberID: try req.uuid("memberID"), library: ctx, now: req.now, on: req.db)
        if model.calendar.since != nil { model.calendar.new = HoldPages.newCalendarLink(req) }
        let response = try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
        if req.cookies[HoldPages.newCalendarCookie] != nil { response.cookies[HoldPages.newCalendarCookie] = req.cookie("", maxAge: 0) }
        return response
    }
}
