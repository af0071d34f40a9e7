import Crypto
import ShelfmarkCore
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

    /// The SHA-256 of a token as lower-case hex (what the tables store). Written by hand: this runs
    /// on every authenticated request, and `String(format:)` per byte was a measurable part of it.
    static func hash(_ token: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
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
        // The library the path names, if any: the user's membership of it is read with the user, in
        // the same query (a request about a library was two round trips before it did any work).
        let library = Self.libraryInPath(request.url.path)
        if let bearer = request.headers.bearerAuthorization?.token {
            if let found = try await Self.user(for: bearer, library: library, now: request.now, on: request.db) {
                request.auth.login(found.user)
                if let library { request.storage[MembershipLookup.Key.self] = MembershipLookup(libraryID: library, membership: found.membership) }
            }
        } else if let cookie = request.cookies[Credential.cookieName]?.string, cookie.hasPrefix(Credential.sessionPrefix),
                  let found = try await Self.user(for: cookie, library: library, now: request.now, on: request.db) {
            request.auth.login(found.user)
            request.storage[CookieSessionKey.self] = cookie
            if let library { request.storage[MembershipLookup.Key.self] = MembershipLookup(libraryID: library, membership: found.membership) }
        }
        return try await next.respond(to: request)
    }

    /// `/libraries/{id}/…` or `/api/v1/libraries/{id}/…` → the id.
    static func libraryInPath(_ path: String) -> UUID? {
        var rest = Substring(path)
        if rest.hasPrefix("/api/v1") { rest = rest.dropFirst("/api/v1".count) }
        guard rest.hasPrefix("/libraries/") else { return nil }
        rest = rest.dropFirst("/libraries/".count)
        return UUID(uuidString: String(rest.prefix(36)))
    }

    /// The user a token belongs to; sessions and API tokens past their expiry are not accepted (one
    /// clock, the app's, for issuing and checking).
    static func user(for token: String, now: Date, on db: any Database) async throws -> AuthenticatedUser? {
        try await user(for: token, library: nil, now: now, on: db)?.user
    }

    /// The user a token belongs to and, when `library` is given, their membership of it (nil when none).
    static func user(for token: String, library: UUID?, now: Date, on db: any Database) async throws
        -> (user: AuthenticatedUser, membership: MembershipLookup.Membership?)? {
        guard token.utf8.count <= 100 else { return nil }
        let hash = Credential.hash(token)
        let source: SQLQueryString
        if token.hasPrefix(Credential.sessionPrefix) {
            source = "user_sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = \(bind: hash) AND s.expires_at > \(bind: now)"
        } else if token.hasPrefix(Credential.apiTokenPrefix) {
            source = "api_tokens s JOIN users u ON u.id = s.user_id WHERE s.token_hash = \(bind: hash) AND (s.expires_at IS NULL OR s.expires_at > \(bind: now))"
        } else {
            return nil
        }
        let row: (any SQLRow)?
        if let library {
            row = try await db.sql.raw("""
                SELECT u.id, u.username, u.display_name, m.role, l.name AS library_name, l.loan_period_days, l.max_renewals
                FROM (SELECT u.id, u.username, u.display_name FROM \(source)) u
                LEFT JOIN memberships m ON m.user_id = u.id AND m.library_id = \(bind: library)
                LEFT JOIN libraries l ON l.id = m.library_id
                """).first()
        } else {
            row = try await db.sql.raw("SELECT u.id, u.username, u.display_name FROM \(source)").first()
        }
        guard let row else { return nil }
        let user = AuthenticatedUser(
            id: try row.decode(column: "id", as: UUID.self),
            username: try row.decode(column: "username", as: String.self),
            displayName: try row.decode(column: "display_name", as: String.self))
        guard library != nil, let role = try row.decode(column: "role", as: String?.self),
              let name = try row.decode(column: "library_name", as: String?.self) else { return (user, nil) }
        return (user, MembershipLookup.Membership(
            role: Role(rawValue: role) ?? .viewer, libraryName: name,
            policy: LoanPolicy(loanPeriodDays: try row.decode(column: "loan_period_days", as: Int.self),
                               maxRenewals: try row.decode(column: "max_renewals", as: Int.self))))
    }
}

/// The signed-in user's membership of the library a request's path names, read with the user
/// (`UserAuthenticator`) and used by `Request.library(_:)` in the same request.
struct MembershipLookup: Sendable {
    struct Key: StorageKey { typealias Value = MembershipLookup }
    struct Membership: Sendable {
        var role: Role
        var libraryName: String
        var policy: LoanPolicy
    }

    var libraryID: UUID
    /// Nil: the user does not belong to the library.
    var membership: Membership?
}

extension Request {
    var user: AuthenticatedUser {
        get throws {
            guard let user = auth.get(AuthenticatedUser.self) else { throw AppError.unauthenticated }
            return user
        }
    }
}
