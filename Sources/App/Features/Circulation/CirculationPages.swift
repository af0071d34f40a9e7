import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Lending, returns and the loans list.
enum CirculationPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.checkout(library: .pattern), use: checkoutForm)
        web.post(.checkout(library: .pattern), use: checkoutReview)
        web.post(.checkoutConfirm(library: .pattern), use: checkout)
        web.get(.returnBook(library: .pattern), use: returnForm)
        web.get(.offlineLending(library: .pattern), use: offlineLending)
        web.post(.returnBook(library: .pattern), use: giveBack)
        web.get(.loans(library: .pattern), use: loans)
        web.post(.loanReturn(library: .pattern, loan: .pattern), use: returnLoan)
        web.post(.loanRenew(library: .pattern, loan: .pattern), use: renewLoan)
        web.post(.memberReturnAll(library: .pattern, member: .pattern), use: returnAll)
    }

    @Sendable static func checkoutForm(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        var values: [String: String] = [:]
        values["card"] = req.query[String.self, at: "card"]
        if let titleID = req.query[String.self, at: "title"].flatMap(UUID.init(uuidString:)),
           let name = try await Catalog.titleName(titleID, library: ctx.libraryID, on: req.db) {
            values["titleId"] = titleID.uuidString
            values["titleName"] = name
        }
        return try await checkoutPage(req, ctx: ctx, form: FormState(values: values))
    }

    /// The lending form; after a refusal, as typed, with the reason next to the field it is about
    /// (the member's card, the book, the due date) or above the form.
    static func checkoutPage(_ req: Request, ctx: LibraryContext, form: FormState) async throws -> HTML {
        LendPage(libraryID: ctx.libraryID, defaultDays: ctx.policy.loanPeriodDays, state: .form(form)).render(try await req.page(library: ctx))
    }

    /// The lending form's fields: the member's card, the book (an ISBN, a copy's barcode or words of its
    /// title; `titleId` once a book was picked), and the loan's length or its due date.
    struct LendForm: WebForm {
        var card: String?
        var book: String?
        var titleId: UUID?
        var days: Int?
        var dueDate: Date?

        enum CodingKeys: String, CodingKey, CaseIterable { case card, book, titleId, days, dueDate }
        static let maxLength = ["card": 64, "book": 500]
    }

    /// Resolves what the librarian typed (`Circulation.preview`: every refusal the lending would give)
    /// and shows a confirmation before anything is written.
    @Sendable static func checkoutReview(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        var values = req.typed(LendForm.CodingKeys.allCases.map(\.rawValue)).filter { !$0.value.isEmpty }
        do {
            let form = try req.form(LendForm.self)
            let input = CheckoutInput(memberId: nil, cardId: form.card, titleId: form.titleId, copyBarcode: nil, isbn: nil, dueDate: form.dueDate,
                                      days: form.dueDate == nil ? form.days ?? ctx.policy.loanPeriodDays : nil)
            // A copy put aside for someone else: the confirmation says for whom and asks "Lend anyway".
            var heldFor: String?
            let outcome: Circulation.PreviewOutcome
            do {
                outcome = try await Circulation.preview(input, book: form.book, in: req.scope(ctx))
            } catch let error as HoldError {
                guard case .heldForOther = error else { throw error }
                heldFor = req.t(ctx).message(error)
                var anyway = input
                anyway.lendHeld = true
                outcome = try await Circulation.preview(anyway, book: form.book, in: req.scope(ctx))
            }
            switch outcome {
            case .choose(let matches):
                return try await chooser(req, ctx: ctx, matches: matches, values: values).encodeResponse(for: req)
            case .ready(let preview):
                var confirmation = LendPage.Confirmation(preview: preview, dueDateText: values["dueDate"])
                confirmation.heldFor = heldFor
                if heldFor != nil { confirmation.input.lendHeld = true }
                return try await LendPage(libraryID: ctx.libraryID, defaultDays: ctx.policy.loanPeriodDays, state: .confirm(confirmation))
                    .render(try await req.page(library: ctx)).encodeResponse(for: req)
            }
        } catch let error where error.isFormRefusal || error is LoanError || error is CirculationError || error is CatalogError || error is HoldError {
            // The form again as typed, the reason next to the field it is about.
            if let id = values["titleId"].flatMap(UUID.init(uuidString:)) {
                values["titleName"] = try await Catalog.titleName(id, library: ctx.libraryID, on: req.db)
            }
            var form = FormState(values: values)
            let message = req.t.message(error)
            if let field = lendField(error) { form.errors[field] = message } else { form.general = message }
            return try await req.refused(checkoutPage(req, ctx: ctx, form: form))
        }
    }

    /// The lending form's field a refusal is about.
    static func lendField(_ error: any Error) -> String? {
        switch error as? CirculationError {
        case .memberNotFound: return "card"
        case .dueDateInPast, .loanPeriodOutOfRange: return "dueDate"
        case .noCopyAvailable, .titleIsWishlistItem: return "book"
        default: break
        }
        if case .copyNotAvailable = error as? LoanError { return "book" }
        switch (error as? any DomainError)?.field {
        case "card", "cardId", "memberId": return "card"
        case "book", "titleId", "isbn", "copyBarcode": return "book"
        case "days", "dueDate": return "dueDate"
        default: return error is CatalogError ? "book" : nil
        }
    }

    /// Several books match what was typed: pick one, then the usual confirmation.
    static func chooser(_ req: Request, ctx: LibraryContext, matches: [TitleSummary], values: [String: String]) async throws -> HTML {
        LendPage(libraryID: ctx.libraryID, defaultDays: ctx.policy.loanPeriodDays, state: .choose(matches: matches, values: values))
            .render(try await req.page(library: ctx))
    }

    /// The confirmation's hidden fields: the member and the book as the preview resolved them.
    /// The Return page's form: the copy's barcode as scanned, or the loan chosen from a list.
    struct ReturnForm: WebForm {
        var loanId: UUID?
        var barcode: String?
        static var maxLength: [String: Int] { ["barcode": 64] }
    }

    struct ConfirmForm: WebForm {
        var memberId: UUID?
        var titleId: UUID?
        var copyBarcode: String?
        var isbn: String?
        var dueDate: Date?
        var days: Int?
        var lendHeld: Bool?

        static let maxLength = ["copyBarcode": 64, "isbn": 40]
        var input: CheckoutInput {
            CheckoutInput(memberId: memberId, cardId: nil, titleId: titleId, copyBarcode: copyBarcode, isbn: isbn, dueDate: dueDate, days: days,
                          lendHeld: lendHeld)
        }
    }

    @Sendable static func checkout(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        var input = CheckoutInput(memberId: nil, cardId: nil, titleId: nil, copyBarcode: nil, isbn: nil, dueDate: nil, days: nil)
        do {
            input = try req.form(ConfirmForm.self).input
            let loan = try await Circulation.checkout(input, in: req.scope(ctx))
            let t = req.t(ctx)
            return req.seeOther(WebRoute.checkout(library: ctx.libraryID).path, flash: t.format(.checkedOut, loan.title, loan.memberName, t.date(loan.dueAt)))
        } catch let error where error.isFormRefusal || error is CirculationError || error is LoanError || error is CatalogError {
            // The form again as it was filled in (the copy taken meanwhile, say), the reason next to its field.
            var values: [String: String] = [:]
            if let id = input.memberId { values["card"] = try await Members.cardID(id, library: ctx.libraryID, on: req.db) }
            if let id = input.titleId, let name = try await Catalog.titleName(id, library: ctx.libraryID, on: req.db) {
                values["titleId"] = id.uuidString
                values["titleName"] = name
            } else if let book = input.copyBarcode ?? input.isbn {
                values["book"] = book
            }
            values.merge(req.typed(["days", "dueDate"]).filter { !$0.value.isEmpty }) { $1 }
            var form = FormState(values: values)
            let message = req.t.message(error)
            if let field = lendField(error), field != "book" { form.errors[field] = message } else { form.general = message }
            let response = try await checkoutPage(req, ctx: ctx, form: form).encodeResponse(for: req)
            response.status = error.answered.status
            return response
        }
    }

    // MARK: - Returns

    /// Lending without a network: the page works from the phone's copy of the library.
    @Sendable static func offlineLending(req: Request) async throws -> HTML {
        let ctx = try await req.library(.circulate)
        return OfflineLendingPage(libraryID: ctx.libraryID, userID: ctx.user.id).render(try await req.page(library: ctx))
    }

    @Sendable static func returnForm(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let model = try await ReturnPage.make(barcode: req.query[String.self, at: "barcode"], library: ctx, now: req.now, t: req.t, on: req.db)
        let response = try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
        if model.form.isRefused { response.status = .notFound }
        return response
    }

    @Sendable static func giveBack(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let form = try req.form(ReturnForm.self)
        let input = ReturnInput(loanId: form.loanId, copyBarcode: form.barcode)
        let loan = try await Circulation.giveBack(input, in: req.scope(ctx))
        return req.seeOther(WebRoute.returnBook(library: ctx.libraryID).path, flash: returnedMessage(loan, t: req.t(ctx)))
    }

    /// The page a loan's own Return or Renew button was on (the book's, the member's, the loans'), to go back to.
    static func back(_ req: Request, ctx: LibraryContext) -> String {
        (try? req.form(BackForm.self))?.back.flatMap(LocalPath.validate) ?? WebRoute.loans(library: ctx.libraryID).path
    }

    struct ReturnLoanForm: WebForm {
        var back: String?
        var confirmed: Bool?
        static var maxLength: [String: Int] { ["back": 2_000] }
    }

    /// One loan's Return button (on the book, the member and the loans pages): first the Return page's
    /// confirmation (who has it, the dates, days overdue, what it will charge), then the return.
    @Sendable static func returnLoan(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let loanID = try req.uuid("loanID")
        let form = try req.form(ReturnLoanForm.self)
        let back = form.back.flatMap(LocalPath.validate) ?? WebRoute.loans(library: ctx.libraryID).path
        if form.confirmed != true,
           let page = try await ReturnPage.make(loan: loanID, back: back, library: ctx, now: req.now, t: req.t(ctx), on: req.db) {
            return try await req.answer(page.render(try await req.page(library: ctx)))
        }
        // A loan back already (another tab, the desk) is said on the page it came from.
        return try await req.seeOther(back) {
            returnedMessage(try await Circulation.giveBack(ReturnInput(loanId: loanID, copyBarcode: nil), in: req.scope(ctx)), t: req.t(ctx))
        }
    }

    /// "Momo is back", or, when a member was waiting, who to put it aside for and until when.
    static func returnedMessage(_ loan: LoanDTO, t: Strings) -> String {
        guard let held = loan.heldFor else { return t.format(.returned, loan.title) }
        return t.format(.returnedHeldFor, loan.title, held.memberName, held.cardId, t.date(held.pickupBy))
    }

    /// One loan's Renew button; a refusal (the library's renewal limit) is said on the page it came from.
    @Sendable static func renewLoan(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let t = req.t(ctx)
        return try await req.seeOther(back(req, ctx: ctx)) {
            let loan = try await Circulation.renew(try req.uuid("loanID"), in: req.scope(ctx))
            return t.format(.renewedUntil, loan.title, t.date(loan.dueAt))
        }
    }

    /// "Return all" on a member's page.
    @Sendable static func returnAll(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        let member = try await Members.find(memberID, library: ctx.libraryID, on: req.db)
        let loans = try await Circulation.activeLoans(libraryID: ctx.libraryID, overdueOnly: false, memberID: memberID, now: req.now,
                                                      limit: 1_000, offset: 0, on: req.db)
        var returned = 0
        for loan in loans {
            do {
                _ = try await Circulation.giveBack(ReturnInput(loanId: loan.id, copyBarcode: nil), in: req.scope(ctx))
                returned += 1
            } catch CirculationError.loanAlreadyReturned {
                continue  // returned meanwhile, at the desk
            }
        }
        return req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path,
                            flash: req.t.format(.returnedAll, req.t(.titles, returned), member.fullName))
    }

    // MARK: - Loans

    @Sendable static func loans(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let overdueOnly = req.query[String.self, at: "show"] == "overdue"
        var model = try await LoansPage.make(overdueOnly: overdueOnly, paging: Paging(req.query[Int.self, at: "page"]), library: ctx, now: req.now,
                                             on: req.db)
        if model.calendar.since != nil { model.calendar.new = HoldPages.newCalendarLink(req) }
        let response = try await model.render(try await req.page(library: ctx)).encodeResponse(for: req)
        if req.cookies[HoldPages.newCalendarCookie] != nil { response.cookies[HoldPages.newCalendarCookie] = req.cookie("", maxAge: 0) }
        return response
    }
}
