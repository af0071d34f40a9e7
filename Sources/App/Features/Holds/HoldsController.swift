import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Holds: a queue per title, placed by staff for a member; and renewing all of a
/// member's loans at once.
enum HoldsController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "holds", doc: .init(
            summary: "Place a hold for a member (by id or card ID) on a title; a copy on the shelf set aside for nobody is set aside for the first in line at once",
            tag: "Holds", request: HoldInput.self, response: HoldDTO.self, status: .created), use: place)
        lib.on(.GET, "holds", doc: .init(
            summary: "The library's active holds: ready to collect (soonest deadline first), then waiting", tag: "Holds",
            query: [.init(name: "state", description: "Only holds in this state.", schema: ["enum": .array(HoldState.allCases.map { .string($0.rawValue) })]),
                    .limit, .offset],
            response: HoldDTO.self, responseIsArray: true), use: list)
        lib.on(.GET, "titles", ":titleID", "holds", doc: .init(summary: "A title's queue, first in line first", tag: "Holds",
                                                                response: HoldDTO.self, responseIsArray: true), use: queue)
        lib.on(.GET, "members", ":memberID", "holds", doc: .init(summary: "A member's active holds", tag: "Holds",
                                                                  response: HoldDTO.self, responseIsArray: true), use: ofMember)
        lib.on(.PATCH, "holds", ":holdID", doc: .init(
            summary: "Suspend or resume a hold (a suspended hold keeps its place and is passed over; a copy set aside for it passes on), or move it one place up or down",
            tag: "Holds", request: HoldPatch.self, response: HoldDTO.self), use: update)
        lib.on(.POST, "holds", ":holdID", "cancel", doc: .init(
            summary: "Cancel a hold; a copy set aside for it passes to the next in line", tag: "Holds", response: HoldDTO.self), use: cancel)
        lib.on(.POST, "members", ":memberID", "renew", doc: .init(
            summary: "Renew every open loan of a member; each answers renewed (the loan) or why not (B5)", tag: "Circulation",
            response: RenewalOutcome.self, responseIsArray: true), use: renewAll)
    }

    @Sendable static func place(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        return try await req.created(try await Holds.place(try req.content.decode(HoldInput.self), in: req.scope(ctx)))
    }

    @Sendable static func list(req: Request) async throws -> [HoldDTO] {
        let ctx = try await req.library(.read)
        let (limit, offset) = try req.paging
        var state: HoldState?
        if let raw = req.query[String.self, at: "state"], !raw.isEmpty {
            guard let chosen = HoldState(rawValue: raw) else {
                throw RequestError.oneOf(field: "state", allowed: HoldState.allCases.map(\.rawValue), got: raw)
            }
            state = chosen
        }
        return try await Holds.library(ctx.libraryID, state: state, limit: limit, offset: offset, on: req.db)
    }

    @Sendable static func queue(req: Request) async throws -> [HoldDTO] {
        let ctx = try await req.library(.read)
        return try await Holds.queue(title: try req.uuid("titleID"), libraryID: ctx.libraryID, on: req.db)
    }

    @Sendable static func ofMember(req: Request) async throws -> [HoldDTO] {
        let ctx = try await req.library(.read)
        return try await Holds.ofMember(try req.uuid("memberID"), libraryID: ctx.libraryID, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> HoldDTO {
        let ctx = try await req.library(.circulate)
        return try await Holds.update(try req.uuid("holdID"), try req.content.decode(HoldPatch.self), in: req.scope(ctx))
    }

    @Sendable static func cancel(req: Request) async throws -> HoldDTO {
        let ctx = try await req.library(.circulate)
        return try await Holds.cancel(try req.uuid("holdID"), in: req.scope(ctx))
    }

    @Sendable static func renewAll(req: Request) async throws -> [RenewalOutcome] {
        let ctx = try await req.library(.circulate)
        let t = req.t
        return try await Circulation.renewAll(member: try req.uuid("memberID"), in: req.scope(ctx)).map { outcome in
            RenewalOutcome(loanId: outcome.loanID, title: outcome.title, loan: outcome.loan,
                           refusal: outcome.error.map { ErrorBody.Detail(code: $0.answered.code, message: t.message($0), field: nil) })
        }
    }
}

/// One loan of a "renew all": renewed (the loan as it is now) or refused (why).
struct RenewalOutcome: Content {
    var loanId: UUID
    var title: String
    var loan: LoanDTO?
    var refusal: ErrorBody.Detail?
}
