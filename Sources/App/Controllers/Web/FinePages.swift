import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Fines on the member page (issue 25, B5): take a payment (staff who lend), waive with a reason (librarians).
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

    static func cents(_ typed: String?) throws -> Int? {
        guard let typed else { return nil }
        guard let cents = MoneyText.cents(typed) else { throw InputProblem.notANumber(field: "amount") }
        return cents
    }

    @Sendable static func pay(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let memberID = try req.uuid("memberID")
        let t = req.t(ctx)
        return try await req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path + "#fines") {
            let amount = try cents(try req.form(PayForm.self).amount)
            let before = try await Fines.account(member: memberID, libraryID: ctx.libraryID, now: req.now, on: req.db)
            let after = try await Fines.pay(member: memberID, FinePayment(amount: amount), in: req.scope(ctx))
            let name = try await Members.find(memberID, library: ctx.libraryID, on: req.db).fullName
            return t.format(.finePaidFlash, t.money(amount ?? before.balance, after.currency), name)
        }
    }

    @Sendable static func waive(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        let memberID = try req.uuid("memberID")
        let t = req.t(ctx)
        return try await req.seeOther(WebRoute.member(library: ctx.libraryID, member: memberID).path + "#fines") {
            let form = try req.form(WaiveForm.self)
            let amount = try cents(form.amount)
            let before = try await Fines.account(member: memberID, libraryID: ctx.libraryID, now: req.now, on: req.db)
            let after = try await Fines.waive(member: memberID, FineWaiver(amount: amount, reason: form.reason ?? ""), in: req.scope(ctx))
            let name = try await Members.find(memberID, library: ctx.libraryID, on: req.db).fullName
            return t.format(.fineWaivedFlash, t.money(amount ?? before.balance, after.currency), name)
        }
    }
}
