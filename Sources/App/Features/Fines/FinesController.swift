import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Fines: a member's balance and ledger, a payment (staff who lend) and a waiver with its
/// reason (librarians). The policy itself is a library setting (`PATCH /libraries/{id}`).
enum FinesController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.GET, "members", ":memberID", "fines", doc: .init(
            summary: "A member's fines: balance, what their overdue loans would add if returned today, a suspension, and the ledger (newest 100 lines). Amounts in the currency's minor unit",
            tag: "Fines", response: FineAccountDTO.self), use: account)
        lib.on(.POST, "members", ":memberID", "fines", "payments", doc: .init(
            summary: "Take a payment: `amount` in minor units, the whole balance when absent; 409 when nothing is owed or the amount is more than is owed",
            tag: "Fines", request: FinePayment.self, response: FineAccountDTO.self), use: pay)
        lib.on(.POST, "members", ":memberID", "fines", "waivers", doc: .init(
            summary: "Waive a fine (librarians): `amount` in minor units (the whole balance when absent) and `reason`; 409 when nothing is owed or the amount is more than is owed",
            tag: "Fines", request: FineWaiver.self, response: FineAccountDTO.self), use: waive)
    }

    @Sendable static func account(req: Request) async throws -> FineAccountDTO {
        let ctx = try await req.library(.circulate)
        return try await Fines.account(member: try req.uuid("memberID"), libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func pay(req: Request) async throws -> FineAccountDTO {
        let ctx = try await req.library(.circulate)
        return try await Fines.pay(member: try req.uuid("memberID"), try req.content.decode(FinePayment.self), in: req.scope(ctx)).account
    }

    @Sendable static func waive(req: Request) async throws -> FineAccountDTO {
        let ctx = try await req.library(.manageMembers)
        return try await Fines.waive(member: try req.uuid("memberID"), try req.content.decode(FineWaiver.self), in: req.scope(ctx)).account
    }
}
