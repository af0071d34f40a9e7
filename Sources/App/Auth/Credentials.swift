import Crypto
import ShelfmarkCore
import Foundation
import Vapor
import Fluent
import FluentSQLiteDriver
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

    /// A secret link's token (a shared year, a calendar feed): 32 random bytes, base64url, 43 characters.
    static func newLinkToken() -> String { Data([UInt8].random(count: 32)).base64URLEncodedString() }

    /// Whether `token` has a link token's shape (checked before it is hashed and looked up).
    static func isLinkToken(_ token: String) -> Bool {
        token.count == 43 && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
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

    /// The user a token belongs to and, when `library` is given, their membership of it (nil when none):
    /// one statement. On SQLite it runs straight on a connection and is read by position (this runs on
    /// every request: SQLKit's row hand-off and decoding by name were a measurable part of a page).
    static func user(for token: String, library: UUID?, now: Date, on db: any Database) async throws
        -> (user: AuthenticatedUser, membership: MembershipLookup.Membership?)? {
        guard token.utf8.count <= 100 else { return nil }
        let hash = Credential.hash(token)
        let table: String
        if token.hasPrefix(Credential.sessionPrefix) {
            table = "user_sessions"
        } else if token.hasPrefix(Credential.apiTokenPrefix) {
            table = "api_tokens"
        } else {
            return nil
        }
        // Sessions always expire; API tokens may not.
        let expiry = table == "api_tokens" ? "(s.expires_at IS NULL OR s.expires_at > ?3)" : "s.expires_at > ?3"
        let sql = """
            SELECT u.id, u.username, u.display_name, m.role, l.name, l.loan_period_days, l.max_renewals, l.time_zone
            FROM \(table) s JOIN users u ON u.id = s.user_id
            LEFT JOIN memberships m ON m.user_id = u.id AND m.library_id = ?1
            LEFT JOIN libraries l ON l.id = m.library_id AND l.pending_job_id IS NULL
            WHERE s.token_hash = ?2 AND \(expiry)
            """
        typealias Found = (user: AuthenticatedUser, membership: MembershipLookup.Membership?)
        @Sendable func make(_ id: UUID?, _ text: (Int) -> String?, _ int: (Int) -> Int?) -> Found? {
            guard let id, let username = text(1) else { return nil }
            let user = AuthenticatedUser(id: id, username: username, displayName: text(2) ?? username)
            guard library != nil, let role = text(3), let name = text(4) else { return (user, nil) }
            return (user, MembershipLookup.Membership(
                role: Role(rawValue: role) ?? .viewer, libraryName: name,
                policy: LoanPolicy(loanPeriodDays: int(5) ?? LoanPolicy().loanPeriodDays, maxRenewals: int(6) ?? LoanPolicy().maxRenewals,
                                   timeZone: Library.zone(text(7)))))
        }
        if let sqlite = db as? any SQLiteDatabase {
            let binds: [SQLiteData] = [library?.sqliteData ?? .null, .text(hash), .float(now.timeIntervalSince1970)]
            let found = try await sqlite.withConnection { connection in
                try await connection.rows(sql, binds) { row in
                    let c = row.columns
                    return make(UUID(sqliteData: c[0].data), { c[$0].data.string }, { c[$0].data.integer })
                }
            }
            return found.first ?? nil
        }
        // PostgreSQL: the same statement.
        let query = SQLQueryString(numbered: sql, [library, hash, now])
        guard let row = try await db.sql.raw(query).first() else { return nil }
        let names = ["id", "username", "display_name", "role", "name", "loan_period_days", "max_renewals", "time_zone"]
        return make(try? row.decode(column: "id", as: UUID.self), { i in
            (try? row.decode(column: names[i], as: String?.self)) ?? nil
        }, { i in
            (try? row.decode(column: names[i], as: Int?.self)) ?? nil
        })
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
            guard let user = auth.get(AuthenticatedUser.self) else { throw EdgeError.unauthenticated }
            return user
        }
    }
}
