import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Fines on the member page: take a payment (staff who lend), waive with a reason (librarians).
enum FinePages {
    static func register(_ web: any RoutesBuilder) {
        web.post(.memberFinePay(library: .pattern, member: .pattern), use: pay)
        web.post(.memberFineWaive(library: .pattern, member: .pattern), use: waive)
    }

    /// An amount as typed ("2,50"); empty: the whole balance.
    struct PayForm: WebForm {
        var amount: String?
        static var maxLength: [String: Int] { ["amount": 20] }
    }

    struct WaiveForm: WebForm {
        var amount: String?
        var reason: String?
        static var maxLength: [String: Int] { ["amount": 20, "reason": Fines.maxReason] }
    }

    @Sendable static func pay(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        let t = req.t(ctx)
        return try await req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path + "#fines") {
            let amount = try MoneyText.typed(try req.form(PayForm.self).amount, field: "amount")
            let paid = try await Fines.pay(member: memberID, FinePayment(amount: amount), in: req.scope(ctx))
            let name = try await Members.find(memberID, library: ctx.libraryID, on: req.db).fullName
            return t.format(.finePaidFlash, t.money(paid.amount, paid.account.currency), name)
        }
    }

    @Sendable static func waive(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let memberID = try req.uuid("memberID")
        let t = req.t(ctx)
        return try await req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path + "#fines") {
            let form = try req.form(WaiveForm.self)
            let amount = try MoneyText.typed(form.amount, field: "amount")
            let waived = try await Fines.waive(member: memberID, FineWaiver(amount: amount, reason: form.reason ?? ""), in: req.scope(ctx))
            let name = try await Members.find(memberID, library: ctx.libraryID, on: req.db).fullName
            return t.format(.fineWaivedFlash, t.money(waived.amount, waived.account.currency), name)
        }
    }
}

extension MoneyText {
    /// An amount typed into a form field, in minor units: nil when left empty, refused next to its field
    /// when it is not an amount.
    static func typed(_ text: String?, field: String) throws -> Int? {
        guard let text else { return nil }
        guard let cents = cents(text) else { throw InputProblem.notANumber(field: field) }
        return cents
    }
}
