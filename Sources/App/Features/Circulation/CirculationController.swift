import Fluent
import Foundation
import NIOFoundationEssentialsCompat
import ShelfmarkCore
import Vapor

/// Check-out, return, renewals and the loans view.
enum CirculationController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "checkouts", doc: .init(summary: "Check out: member by card ID or id, book by title id, copy barcode or ISBN (B2)",
                                              tag: "Circulation", request: CheckoutInput.self, response: LoanDTO.self, status: .created),
               use: checkout)
        lib.on(.POST, "checkouts", "preview", doc: .init(
            summary: "A dry run of a check-out: the same body, the same refusals (status, code, field), nothing written; answers who borrows, the copy to hand over and the due date",
            tag: "Circulation", request: CheckoutInput.self, response: CheckoutPreviewDTO.self), use: previewCheckout)
        lib.on(.POST, "returns", doc: .init(summary: "Return by loan id or copy barcode (B3); the loan is closed, never deleted",
                                            tag: "Circulation", request: ReturnInput.self, response: LoanDTO.self), use: giveBack)
        lib.on(.GET, "loans", doc: .init(summary: "Active loans by due date, overdue flagged (B4)", tag: "Circulation",
                                         query: [.init(name: "overdue", kind: .boolean, description: "Only overdue loans."), .limit, .offset],
                                         response: LoanDTO.self, responseIsArray: true), use: loans)
        lib.on(.POST, "loans", ":loanID", "return", doc: .init(summary: "Return this loan (B3)", tag: "Circulation",
                                                               response: LoanDTO.self), use: returnLoan)
        lib.on(.POST, "loans", ":loanID", "renew", doc: .init(summary: "Renew this loan by the loan period, up to the library's limit (B5)",
                                                              tag: "Circulation", response: LoanDTO.self), use: renew)
    }

    @Sendable static func previewCheckout(req: Request) async throws -> CheckoutPreviewDTO {
        let ctx = try await req.library(.circulate)
        let input = try req.content.decode(CheckoutInput.self)
        guard case .ready(let preview) = try await Circulation.preview(input, in: req.scope(ctx)) else { throw LoanError.sayWhichBook }
        return CheckoutPreviewDTO(preview)
    }

    @Sendable static func checkout(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let loan = try await Circulation.checkout(try req.content.decode(CheckoutInput.self), in: req.scope(ctx))
        return try await req.created(loan)
    }

    @Sendable static func giveBack(req: Request) async throws -> LoanDTO {
        let ctx = try await req.library(.circulate)
        return try await Circulation.giveBack(try req.content.decode(ReturnInput.self), in: req.scope(ctx))
    }

    @Sendable static func returnLoan(req: Request) async throws -> LoanDTO {
        let ctx = try await req.library(.circulate)
        return try await Circulation.giveBack(ReturnInput(loanId: try req.uuid("loanID")), in: req.scope(ctx))
    }

    @Sendable static func renew(req: Request) async throws -> LoanDTO {
        let ctx = try await req.library(.circulate)
        return try await Circulation.renew(try req.uuid("loanID"), in: req.scope(ctx))
    }

    @Sendable static func loans(req: Request) async throws -> [LoanDTO] {
        let ctx = try await req.library(.read)
        let (limit, offset) = try req.paging
        return try await Circulation.activeLoans(libraryID: ctx.libraryID, overdueOnly: try req.flag("overdue"), now: req.now,
                                                 limit: limit, offset: offset, on: req.db)
    }
}
