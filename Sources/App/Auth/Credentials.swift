import Crypto
import Foundation
import Vapor
import Fluent
import SQLKit

/// Secrets handed to clients. The prefix says which table holds the hash, so a lookup is one query.
enum Credential {
    static let sessionPrefix = "sms_"
    static let apiTokenPrefix = "smt_"
    static let sessionLifetime: TimeInterval = 30 * 86_400
    static let cookieName = "shelfmark_session"

    static func generate(prefix: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in bytes.indices { bytes[i] = UInt8.random(in: .min ... .max) }
        return prefix + base64url(Data(bytes))
    }

    /// Base64 that fits in URLs and cookies (`-` and `_`, no padding): tokens, CSRF tokens, flash cookies.
    static func base64url(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}

/// The signed-in staff user of a request.
struct AuthenticatedUser: Authenticatable, Sendable {
    let id: UUID
    let username: String
    let displayName: String
}

/// Finds the user from a bearer token (session or API token) or the session cookie.
struct UserAuthenticator: AsyncMiddleware {
    /// The session secret of a request signed in by its cookie (CSRF tokens are derived from it).
    struct CookieSessionKey: StorageKey { typealias Value = String }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        if let bearer = request.headers.bearerAuthorization?.token {
            if let user = try await Self.user(for: bearer, now: request.now, on: request.db) { request.auth.login(user) }
        } else if let cookie = request.cookies[Credential.cookieName]?.string, cookie.hasPrefix(Credential.sessionPrefix),
                  let user = try await Self.user(for: cookie, now: request.now, on: request.db) {
            request.auth.login(user)
            request.storage[CookieSessionKey.self] = cookie
        }
        return try await next.respond(to: request)
    }

    /// The user a token belongs to; sessions and API tokens past their expiry are not accepted (one
    /// clock, the app's, for issuing and checking).
    static func user(for token: String, now: Date, on db: any Database) async throws -> AuthenticatedUser? {
        guard token.utf8.count <= 100 else { return nil }
        let hash = Credential.hash(token)
        let row: (any SQLRow)?
        if token.hasPrefix(Credential.sessionPrefix) {
            row = try await db.sql.raw("""
                SELECT u.id, u.username, u.display_name FROM user_sessions s JOIN users u ON u.id = s.user_id
                WHERE s.token_hash = \(bind: hash) AND s.expires_at > \(bind: now)
                """).first()
        } else if token.hasPrefix(Credential.apiTokenPrefix) {
            row = try await db.sql.raw("""
                SELECT u.id, u.username, u.display_name FROM api_tokens t JOIN users u ON u.id = t.user_id
                WHERE t.token_hash = \(bind: hash) AND (t.expires_at IS NULL OR t.expires_at > \(bind: now))
                """).first()
        } else {
            return nil
        }
        guard let row else { return nil }
        return AuthenticatedUser(
            id: try row.decode(column: "id", as: UUID.self),
            username: try row.decode(column: "username", as: String.self),
            displayName: try row.decode(column: "display_name", as: String.self))
    }
}

extension Request {
    var user: AuthenticatedUser {
        get throws {
            guard let user = auth.get(AuthenticatedUser.self) else { throw AppError.unauthenticated }
            return user
        }
    }
}
