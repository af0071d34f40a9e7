import Crypto
import Foundation
import ShelfmarkCore
import Vapor

/// Cross-site request forgery protection, for the web forms and for API calls made with the session
/// cookie. A signed-in browser's token is derived from its session (SHA-256 of a label and the session
/// secret, which only the server and that browser's HTTP-only cookie know), so it is bound to the
/// session and ends with it. Before sign-in (the sign-in and setup forms) a random token in a
/// SameSite=Strict cookie is repeated in the form (double submit).
enum CSRF {
    static let cookie = "shelfmark_csrf"
    static let field = "_csrf"
    static let header = "X-CSRF-Token"

    struct TokenKey: StorageKey { typealias Value = String }
    struct NewCookieKey: StorageKey { typealias Value = String }

    static func token(forSession session: String) -> String {
        let digest = SHA256.hash(data: Data(("shelfmark-csrf:" + session).utf8))
        return Credential.base64url(Data(digest))
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count, !x.isEmpty else { return false }
        var diff: UInt8 = 0
        for i in x.indices { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

extension Request {
    /// The session secret when this request was signed in by the session cookie (not a bearer token).
    var cookieSession: String? {
        get { storage[UserAuthenticator.CookieSessionKey.self] }
    }

    /// This request's CSRF token: bound to the session when signed in, else the anonymous cookie's
    /// (a new one is set on the response).
    var csrfToken: String {
        if let existing = storage[CSRF.TokenKey.self] { return existing }
        let token: String
        if let session = cookieSession {
            token = CSRF.token(forSession: session)
        } else if let cookie = cookies[CSRF.cookie]?.string, cookie.count >= 32, cookie.count <= 64 {
            token = cookie
        } else {
            token = Credential.generate(prefix: "")
            storage[CSRF.NewCookieKey.self] = token
        }
        storage[CSRF.TokenKey.self] = token
        return token
    }
}

extension Request {
    /// Refuses a multipart body whose part headers the multipart parser would crash on (see
    /// `MultipartCheck`). Every way a multipart body is decoded passes here first: the web middleware
    /// and the API guard, after collecting the body within the route's bound.
    func refuseMalformedMultipart() throws {
        guard let type = headers.contentType, type.type == "multipart" else { return }
        guard let boundary = type.parameters["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw EdgeError.formWithoutBoundary
        }
        guard let data = body.data else { return }
        guard MultipartCheck.headerNamesAreASCII(data.readableBytesView, boundary: boundary) else {
            throw EdgeError.formPartMalformed
        }
    }
}

extension Route {
    private static let maxBodyKey = "shelfmark.maxBody"

    /// The most a web form route reads of a body (the web middleware enforces it before reading);
    /// routes that do not say take `WebMiddleware.formBodyLimit`.
    var maxBody: Int? { userInfo[Self.maxBodyKey] as? Int }

    @discardableResult
    func maxBody(_ bytes: Int) -> Route {
        userInfo[Self.maxBodyKey] = bytes
        return self
    }
}

extension Request {
    /// Query parameters as the handlers should see them: `name=` with nothing after it means the
    /// parameter is not given (a form's empty field), and encoded control characters (`%00`, as in
    /// `?q=%00`) are removed, as `String.cleanedInput` removes them from bodies (PostgreSQL refuses a NUL).
    func cleanQuery() {
        guard var query = url.query else { return }
        if query.contains("%") {
            query = query.replacingOccurrences(of: "%(0[0-8BCEFbcef]|1[0-9A-Fa-f]|7[Ff])", with: "", options: .regularExpression)
        }
        if query.contains("=&") || query.hasSuffix("=") {
            query = query.split(separator: "&").filter { !$0.hasSuffix("=") }.joined(separator: "&")
        }
        if query != url.query { url.query = query }
    }
}
