import Crypto
import Foundation
import ShelfmarkCore
import Vapor

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
            throw EdgeError.unauthenticated
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
                throw EdgeError.csrf
            }
        }
        return try await next.respond(to: request)
    }
}
