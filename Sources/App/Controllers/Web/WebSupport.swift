import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// Cross-site request forgery protection for the web forms: a random token in a cookie
/// (SameSite=Strict) that every POST form must repeat in its `_csrf` field (double submit).
enum CSRF {
    static let cookie = "shelfmark_csrf"
    static let field = "_csrf"

    struct Key: StorageKey { typealias Value = String }
}

extension Request {
    /// This request's CSRF token: the cookie's, or a new one set on the response.
    var csrfToken: String {
        if let existing = storage[CSRF.Key.self] { return existing }
        var token = Credential.generate(prefix: "")
        if let cookie = cookies[CSRF.cookie]?.string, cookie.count >= 32 { token = cookie }
        storage[CSRF.Key.self] = token
        return token
    }

    /// The shell's context: language, user, library (when the route has one), CSRF token.
    func page(library: LibraryContext? = nil, flash: String? = nil, error: Bool = false) async throws -> PageContext {
        let user = auth.get(AuthenticatedUser.self)
        var libraries: [PageContext.LibraryRef] = []
        if let user {
            libraries = try await Accounts.libraries(of: user, on: db).map { PageContext.LibraryRef(id: $0.id, name: $0.name) }
        }
        return PageContext(t: t, csrf: csrfToken, path: url.path, user: user,
                           library: library.map { PageContext.LibraryRef(id: $0.libraryID, name: $0.name) },
                           libraries: libraries, flash: flash ?? query[String.self, at: "done"].flatMap { $0.isEmpty ? nil : $0 }, flashIsError: error)
    }
}

/// Wraps the web pages: checks CSRF on POST, sets the CSRF cookie, and turns errors into pages in
/// the user's language (signed out → the sign-in page; 404, 403 → their pages; others → an error page
/// that says what went wrong).
struct WebMiddleware: AsyncMiddleware {
    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response: Response
        do {
            if req.method == .POST {
                // Uploads larger than one buffer arrive as a stream: collect them so the token can be read.
                if req.body.data == nil {
                    _ = try await req.body.collect(max: ExchangeController.maxImportMB << 20).get()
                }
                let sent = try? req.content.get(String.self, at: CSRF.field)
                guard let sent, let cookie = req.cookies[CSRF.cookie]?.string, !cookie.isEmpty, sent == cookie else {
                    throw WebError.csrf
                }
            }
            response = try await next.respond(to: req)
        } catch {
            response = try await Self.errorPage(error, req: req)
        }
        if req.cookies[CSRF.cookie]?.string != req.storage[CSRF.Key.self], let token = req.storage[CSRF.Key.self] {
            response.cookies[CSRF.cookie] = HTTPCookies.Value(string: token, maxAge: 60 * 60 * 24 * 30, path: "/",
                                                              isSecure: false, isHTTPOnly: true, sameSite: .strict)
        }
        return response
    }

    static func errorPage(_ error: any Error, req: Request) async throws -> Response {
        let t = req.t
        let status: HTTPResponseStatus
        let title: String
        var message: String
        switch error {
        case WebError.csrf:
            status = .forbidden; title = t(.errorTitle); message = t(.csrfText)
        case let e as AppError where e.status == .unauthorized:
            let next = req.url.path
            return req.redirect(to: "/login?next=" + (next.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "/-_"))) ?? "/"))
        case let e as AppError where e.status == .notFound:
            status = .notFound; title = t(.notFoundTitle); message = t(.notFoundText)
        case let e as AppError where e.status == .forbidden:
            status = .forbidden; title = t(.errorTitle); message = t(.forbiddenText)
        case let e as AppError:
            status = e.status; title = t(.errorTitle); message = e.message
        case let e as any AbortError where e.status == .notFound:
            status = .notFound; title = t(.notFoundTitle); message = t(.notFoundText)
        default:
            let converted = JSONErrorMiddleware.appError(for: error)
            status = converted.status; title = t(.errorTitle); message = converted.message
            if status == .internalServerError { req.logger.report(error: error) }
        }
        let ctx = try await req.page(flash: nil)
        let html = Layout.page(ctx, title: title) {
            H.el("section", ["class": "card error-page"]) {
                H.el("h1", [:]) { Text(title) }
                H.el("p", [:]) { Text(message) }
                H.el("p", [:]) { H.link(t(.backToCatalog), "/", cls: "button") }
            }
        }
        let response = try await html.encodeResponse(for: req)
        response.status = status
        return response
    }
}

enum WebError: Error { case csrf }

extension Request {
    /// A redirect after a successful POST, with a message shown once on the next page.
    func seeOther(_ path: String, flash: String? = nil) -> Response {
        guard let flash else { return redirect(to: path, redirectType: .normal) }
        let sep = path.contains("?") ? "&" : "?"
        return redirect(to: path + sep + "done=" + (flash.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(.init(charactersIn: "&=+?"))) ?? ""),
                        redirectType: .normal)
    }

    /// A form field as trimmed text, nil when empty.
    func formText(_ name: String) -> String? {
        guard let raw = try? content.get(String.self, at: name) else { return nil }
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
