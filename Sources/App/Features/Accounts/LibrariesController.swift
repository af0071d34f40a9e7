import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Libraries, their settings and staff, dashboard and activity log.
enum LibrariesController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "libraries", doc: .init(summary: "Libraries you belong to, with your role in each", tag: "Libraries",
                                             response: LibraryDTO.self, responseIsArray: true), use: list)
        api.on(.POST, "libraries", doc: .init(summary: "Create a library; you become its owner", tag: "Libraries",
                                              request: LibraryInput.self, response: LibraryDTO.self, status: .created), use: create)
        let library = api.grouped("libraries", ":libraryID")
        library.on(.GET, doc: .init(summary: "A library and its settings", tag: "Libraries", response: LibraryDTO.self), use: show)
        library.on(.PATCH, doc: .init(summary: "Rename or change settings (loan period, renewals, public catalog); owner only", tag: "Libraries",
                                      request: LibraryPatch.self, response: LibraryDTO.self), use: update)
        library.on(.DELETE, doc: .init(summary: "Delete the library and everything in it; owner only", tag: "Libraries", status: .noContent),
                   use: delete)
        library.on(.GET, "staff", doc: .init(summary: "Staff and their roles", tag: "Libraries",
                                             response: StaffDTO.self, responseIsArray: true), use: staff)
        library.on(.POST, "staff", doc: .init(summary: "Add a user (new or existing) with a role; owner only", tag: "Libraries",
                                              request: StaffInput.self, response: StaffDTO.self, status: .created), use: addStaff)
        library.on(.PATCH, "staff", ":userID", doc: .init(summary: "Change a staff member's role; owner only", tag: "Libraries",
                                                          request: StaffPatch.self, response: Empty.self), use: setRole)
        library.on(.POST, "staff", ":userID", "password", doc: .init(
            summary: "Set a staff member's new password (they forgot theirs): their sessions and API tokens end. Owner only, and only for an account that works in no library you do not own",
            tag: "Libraries", request: PasswordReset.self, status: .noContent), use: resetPassword)
        library.on(.DELETE, "staff", ":userID", doc: .init(summary: "Remove a staff member from the library; owner only", tag: "Libraries",
                                                           status: .noContent), use: removeStaff)
        library.on(.GET, "dashboard", doc: .init(summary: "Counts, recent activity and last added titles (G6)", tag: "Libraries",
                                                 response: Dashboard.self), use: dashboard)
        library.on(.GET, "activity", doc: .init(summary: "Activity log, newest first (D1)", tag: "Libraries",
                                                query: [.oneOf("type", ActivityType.allCases.map(\.rawValue), "Only entries of this type."), .limit, .offset],
                                                response: ActivityDTO.self, responseIsArray: true), use: activity)
    }

    @Sendable static func list(req: Request) async throws -> [LibraryDTO] {
        try await Accounts.libraries(of: try req.user, on: req.db)
    }

    @Sendable static func create(req: Request) async throws -> Response {
        let user = try req.user
        let input = try req.content.decode(LibraryInput.self)
        return try await req.created(try await Accounts.createLibrary(input, user: user, gate: req.application.writeGate, on: req.db))
    }

    @Sendable static func show(req: Request) async throws -> LibraryDTO {
        let ctx = try await req.library(.read)
        guard let library = try await Library.find(ctx.libraryID, on: req.db) else { throw AccountError.libraryNotFound }
        return library.dto(role: ctx.role)
    }

    @Sendable static func update(req: Request) async throws -> LibraryDTO {
        let ctx = try await req.library(.administer)
        return try await Accounts.updateLibrary(try req.content.decode(LibraryPatch.self), in: req.scope(ctx))
    }

    @Sendable static func delete(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.administer)
        guard req.confirmed else {
            throw EdgeError.confirmDeleteLibrary(library: ctx.name)
        }
        try await Accounts.deleteLibrary(ctx, gate: req.application.writeGate, on: req.db)
        return .noContent
    }

    @Sendable static func staff(req: Request) async throws -> [StaffDTO] {
        let ctx = try await req.library(.read)
        return try await Accounts.staff(of: ctx.libraryID, on: req.db)
    }

    @Sendable static func addStaff(req: Request) async throws -> Response {
        let ctx = try await req.library(.administer)
        let input = try req.content.decode(StaffInput.self)
        return try await req.created(try await Accounts.addStaff(input, passwords: req.passwordHashing,
                                                                 in: req.scope(ctx)))
    }

    @Sendable static func setRole(req: Request) async throws -> Empty {
        let ctx = try await req.library(.administer)
        let input = try req.content.decode(StaffPatch.self)
        try await Accounts.setRole(try req.uuid("userID"), role: input.role, in: req.scope(ctx))
        return Empty()
    }

    @Sendable static func resetPassword(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.administer)
        try await Accounts.resetPassword(try req.uuid("userID"), password: try req.content.decode(PasswordReset.self).password, passwords: req.passwordHashing,
                                         in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func removeStaff(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.administer)
        try await Accounts.setRole(try req.uuid("userID"), role: nil, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func dashboard(req: Request) async throws -> Dashboard {
        let ctx = try await req.library(.read)
        return try await DashboardQuery.load(libraryID: ctx.libraryID, now: req.now, on: req.db)
    }

    @Sendable static func activity(req: Request) async throws -> [ActivityDTO] {
        let ctx = try await req.library(.read)
        var type: ActivityType?
        if let raw = req.query[String.self, at: "type"], !raw.isEmpty {
            guard let parsed = ActivityType(rawValue: raw) else {
                throw RequestError.oneOf(field: "type", allowed: ActivityType.allCases.map(\.rawValue), got: raw)
            }
            type = parsed
        }
        let (limit, offset) = try req.paging
        return try await ActivityLog.list(libraryID: ctx.libraryID, type: type, limit: limit, offset: offset, on: req.db)
    }
}
