import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// The public catalog's member PINs: staff who manage members set or remove the PIN a
/// member signs in to the public catalog with. The PIN is kept as a bcrypt hash and never answered.
enum PortalController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.PUT, "members", ":memberID", "pin", doc: .init(
            summary: "Set the member's PIN for the public catalog (4–12 digits); the member's sessions there end",
            tag: "Members", request: MemberPINInput.self, status: .noContent), use: setPIN)
        lib.on(.DELETE, "members", ":memberID", "pin", doc: .init(
            summary: "Remove the member's PIN (they can still sign in by an emailed link); their sessions end", tag: "Members",
            status: .noContent), use: removePIN)
    }

    @Sendable static func setPIN(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.manageMembers)
        let input = try req.content.decode(MemberPINInput.self)
        try MemberPortal.checkPIN(input.pin)
        try await MemberPortal.setPIN(input.pin, member: try req.uuid("memberID"), in: req.scope(ctx), passwords: req.passwordHashing)
        return .noContent
    }

    @Sendable static func removePIN(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.manageMembers)
        try await MemberPortal.setPIN(nil, member: try req.uuid("memberID"), in: req.scope(ctx), passwords: req.passwordHashing)
        return .noContent
    }
}

/// A member's PIN for the public catalog: 4 to 12 digits.
struct MemberPINInput: Content {
    var pin: String
}
