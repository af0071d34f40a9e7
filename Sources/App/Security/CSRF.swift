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

/// In front of every API route, before any body is read:
/// - a route that needs a signed-in user refuses an anonymous request at once (an upload route would
///   otherwise collect up to 100 MB first);
/// - calls authenticated by the session cookie (the web app's scanner) must carry the CSRF token in
///   `X-CSRF-Token` and must not be forms: a page on another site can send neither a custom header nor
///   JSON without the browser asking this server first. Bearer-token clients are not affected.
struct APIGuardMiddleware: AsyncMiddleware {
    static let authenticatedKey = "shelfmark.authenticated"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        request.cleanQuery()
        if request.route?.userInfo[Self.authenticatedKey] as? Bool == true, !request.auth.has(AuthenticatedUser.self) {
            throw AppError.unauthenticated
        }
        // A multipart body is collected here (within the route's bound) and checked before any decoder sees it.
        if request.headers.contentType?.type == "multipart" {
            if request.body.data == nil {
                let limit = request.route?.maxBody ?? request.application.routes.defaultMaxBodySize.value
                if let declared = request.headers.first(name: .contentLength).flatMap(Int.init), declared > limit { throw Abort(.payloadTooLarge) }
                _ = try await request.body.collect(max: limit).get()
            }
            try request.refuseMalformedMultipart()
        }
        if let session = request.cookieSession, ![.GET, .HEAD, .OPTIONS].contains(request.method) {
            let sent = request.headers.first(name: CSRF.header) ?? ""
            let type = request.headers.contentType
            let isForm = type == .urlEncodedForm || type?.type == "multipart" || (type?.type == "text" && type?.subType == "plain")
            guard !isForm, CSRF.same(sent, CSRF.token(forSession: session)) else {
                throw AppError(status: .forbidden, code: "csrf",
                               message: "A request signed in with the session cookie needs the page's CSRF token in the X-CSRF-Token header and a JSON body; programs should send an `Authorization: Bearer` token instead.")
            }
        }
        return try await next.respond(to: request)
    }
}

extension Request {
    /// Refuses a multipart body whose part headers the multipart parser would crash on (see
    /// `MultipartCheck`). Every way a multipart body is decoded passes here first: the web middleware
    /// and the API guard, after collecting the body within the route's bound.
    func refuseMalformedMultipart() throws {
        guard let type = headers.contentType, type.type == "multipart" else { return }
        guard let boundary = type.parameters["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw AppError(status: .badRequest, code: "bad_body", message: "The form data has no boundary.")
        }
        guard let data = body.data else { return }
        guard MultipartCheck.headerNamesAreASCII(data.readableBytesView, boundary: boundary) else {
            throw AppError(status: .badRequest, code: "bad_body", message: "The form data is malformed: a part's header is not valid.")
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
