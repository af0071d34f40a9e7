import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// First-run setup, sign-in, sessions and API tokens.
enum AuthController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, "setup", doc: .init(summary: "Whether the first owner still has to be created", tag: "Accounts",
                                         authenticated: false, response: SetupStatus.self), use: setupStatus)
        api.on(.POST, "setup", doc: .init(summary: "First run: create the owner and the first library", tag: "Accounts",
                                          authenticated: false, request: SetupInput.self, response: SetupResult.self, status: .created),
               use: setup)
        api.on(.POST, "auth", "login", doc: .init(summary: "Sign in with username and password; returns a session token and sets the session cookie",
                                                  tag: "Accounts", authenticated: false, request: LoginInput.self, response: SessionDTO.self),
               use: login)
        api.on(.POST, "auth", "logout", doc: .init(summary: "End this session", tag: "Accounts", response: Empty.self), use: logout)
        api.on(.GET, "me", doc: .init(summary: "The signed-in user", tag: "Accounts", response: UserDTO.self), use: me)
        api.on(.GET, "tokens", doc: .init(summary: "Your API tokens (without their secrets)", tag: "Accounts",
                                          response: TokenDTO.self, responseIsArray: true), use: tokens)
        api.on(.POST, "tokens", doc: .init(summary: "Create an API token; the secret is shown only in this answer", tag: "Accounts",
                                           request: TokenInput.self, response: TokenDTO.self, status: .created), use: createToken)
        api.on(.DELETE, "tokens", ":tokenID", doc: .init(summary: "Revoke an API token", tag: "Accounts", status: .noContent),
               use: revokeToken)
    }

    @Sendable static func setupStatus(req: Request) async throws -> SetupStatus {
        SetupStatus(needsSetup: try await Accounts.needsSetup(on: req.db))
    }

    @Sendable static func setup(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { try req.requireSetupFromThisComputer() }
        let input = try req.content.decode(SetupInput.self)
        let (user, library) = try await Accounts.setup(input, now: req.now, gate: req.application.writeGate,
                                                        passwords: req.passwordHashing, on: req.db)
        let session = try await Accounts.startSession(for: user, now: req.now, gate: req.application.writeGate, on: req.db)
        let response = try await req.created(SetupResult(session: session, library: library.dto(role: .owner)))
        setCookie(session, on: response, req: req)
        return response
    }

    @Sendable static func login(req: Request) async throws -> Response {
        let input = try req.content.decode(LoginInput.self)
        let session = try await Accounts.login(input, from: req.clientAddress, now: req.now, passwords: req.passwordHashing,
                                               gate: req.application.writeGate, on: req.db)
        let response = Response(status: .ok)
        try response.content.encode(session)
        setCookie(session, on: response, req: req)
        return response
    }

    @Sendable static func logout(req: Request) async throws -> Response {
        _ = try req.user
        if let token = req.headers.bearerAuthorization?.token ?? req.cookies[Credential.cookieName]?.string,
           token.hasPrefix(Credential.sessionPrefix) {
            try await Accounts.logout(token: token, gate: req.application.writeGate, on: req.db)
        }
        let response = Response(status: .ok)
        try response.content.encode(Empty())
        response.cookies[Credential.cookieName] = req.cookie("", maxAge: 0)
        return response
    }

    @Sendable static func me(req: Request) async throws -> UserDTO {
        let user = try req.user
        return UserDTO(id: user.id, username: user.username, displayName: user.displayName)
    }

    @Sendable static func tokens(req: Request) async throws -> [TokenDTO] {
        let user = try req.user
        return try await APIToken.query(on: req.db).filter(\.$user.$id == user.id).sort(\.$createdAt).all()
            .map { TokenDTO(id: $0.id!, name: $0.name, createdAt: $0.createdAt, expiresAt: $0.expiresAt, token: nil) }
    }

    @Sendable static func createToken(req: Request) async throws -> Response {
        let user = try req.user
        let input = try req.content.decode(TokenInput.self)
        return try await req.created(try await Accounts.createToken(name: input.name, expiresInDays: input.expiresInDays, user: user, now: req.now,
                                                                    gate: req.application.writeGate, on: req.db))
    }

    @Sendable static func revokeToken(req: Request) async throws -> HTTPStatus {
        try await Accounts.revokeToken(try req.uuid("tokenID"), user: try req.user, gate: req.application.writeGate, on: req.db)
        return .noContent
    }

    static func setCookie(_ session: SessionDTO, on response: Response, req: Request) {
        response.cookies[Credential.cookieName] = req.cookie(session.token, maxAge: Int(Credential.sessionLifetime))
    }
}
