import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Who may create libraries on this server (and so restore or import a file as a new library).
enum LibraryCreation: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// Anyone who is a librarian or owner of some library (the default: a school's librarians).
    case staff
    /// Only the installation's administrator (a shared server: a district, a hosting volunteer).
    case admin
}

/// Settings of the installation rather than of one library, changed by its administrator.
struct ServerSettingsDTO: Content {
    var libraryCreation: LibraryCreation
    /// Whether the signed-in user is the administrator (answers only).
    var youAreAdmin: Bool?
}

struct ServerSettingsPatch: Content {
    var libraryCreation: LibraryCreation?
}

enum ServerSettings {
    /// A group of the installation's settings kept as one JSON value under `key` (nil: never saved, or
    /// not readable as `T` any more).
    static func stored<T: Decodable>(_ key: String, as type: T.Type, on db: any Database) async throws -> T? {
        let row = try await db.sql.select().column("value").from("server_settings").where("name", .equal, key).first(decoding: StoredValue.self)
        return row.flatMap { try? JSONDecoder().decode(T.self, from: Data($0.value.utf8)) }
    }

    private struct StoredValue: Decodable { var value: String }

    static func store<T: Encodable>(_ value: T, key: String, gate: WriteGate, on db: any Database) async throws {
        let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        try await gate.transaction(on: db) { db in
            try await db.sql.raw("""
                INSERT INTO server_settings (name, value) VALUES (\(bind: key), \(bind: text))
                ON CONFLICT (name) DO UPDATE SET value = excluded.value
                """).run()
        }
    }

    static func libraryCreation(on db: any Database) async throws -> LibraryCreation {
        struct Row: Decodable { var value: String }
        let row = try await db.sql.select().column("value").from("server_settings").where("name", .equal, "library_creation")
            .first(decoding: Row.self)
        return row.flatMap { LibraryCreation(rawValue: $0.value) } ?? .staff
    }

    static func isAdmin(_ user: AuthenticatedUser, on db: any Database) async throws -> Bool {
        try await User.query(on: db).filter(\.$id == user.id).filter(\.$isAdmin == true).count() > 0
    }

    /// The installation's settings in the API: the administrator's only (403 for anyone else).
    static func requireAdmin(_ req: Request) async throws {
        guard try await isAdmin(try req.user, on: req.db) else { throw AccountError.serverSettingsAdminOnly }
    }

    /// A page of the installation's settings, shown inside a library (its menus, its language): the
    /// library as its staff reads it, for the administrator only.
    static func administratorPage(_ req: Request) async throws -> LibraryContext {
        let ctx = try await req.library(.read)
        guard try await isAdmin(ctx.user, on: req.db) else { throw AccountError.serverSettingsAdminOnly }
        return ctx
    }

    /// Creating a library (by hand, by restoring or importing as a new library) needs the administrator,
    /// or, when the server allows it, a librarian or owner of some library. Viewers and volunteers never.
    static func requireMayCreateLibrary(_ user: AuthenticatedUser, on db: any Database) async throws {
        if try await isAdmin(user, on: db) { return }
        let policy = try await libraryCreation(on: db)
        if policy == .staff {
            let staffRoles = [Role.librarian, Role.owner]
            let count = try await Membership.query(on: db).filter(\.$user.$id == user.id).filter(\.$role ~~ staffRoles).count()
            if count > 0 { return }
        }
        throw AccountError.creationRestricted(adminOnly: policy == .admin)
    }

    /// Whether `user` may create a library (the settings page offers it only then).
    static func mayCreateLibrary(_ user: AuthenticatedUser, on db: any Database) async throws -> Bool {
        do {
            try await requireMayCreateLibrary(user, on: db)
            return true
        } catch AccountError.creationRestricted {
            return false
        }
    }

    static func get(for user: AuthenticatedUser, on db: any Database) async throws -> ServerSettingsDTO {
        ServerSettingsDTO(libraryCreation: try await libraryCreation(on: db), youAreAdmin: try await isAdmin(user, on: db))
    }

    static func update(_ patch: ServerSettingsPatch, user: AuthenticatedUser, gate: WriteGate, on db: any Database) async throws -> ServerSettingsDTO {
        guard try await isAdmin(user, on: db) else {
            throw AccountError.serverSettingsAdminOnly
        }
        if let creation = patch.libraryCreation {
            try await gate.transaction(on: db) { db in
                try await db.sql.raw("""
                    INSERT INTO server_settings (name, value) VALUES ('library_creation', \(bind: creation.rawValue))
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """).run()
            }
        }
        return try await get(for: user, on: db)
    }
}

/// `GET`/`PATCH /api/v1/server`: the installation's settings.
enum ServerController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "server", doc: .init(summary: "The server's settings (who may create libraries)", tag: "Accounts",
                                          response: ServerSettingsDTO.self), use: show)
        api.on(.PATCH, "server", doc: .init(summary: "Change the server's settings; the administrator only", tag: "Accounts",
                                            request: ServerSettingsPatch.self, response: ServerSettingsDTO.self), use: update)
    }

    @Sendable static func show(req: Request) async throws -> ServerSettingsDTO {
        try await ServerSettings.get(for: try req.user, on: req.db)
    }

    @Sendable static func update(req: Request) async throws -> ServerSettingsDTO {
        let user = try req.user
        return try await ServerSettings.update(try req.content.decode(ServerSettingsPatch.self), user: user,
                                               gate: req.application.writeGate, on: req.db)
    }
}
