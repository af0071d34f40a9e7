import Fluent
import Foundation
import MultipartKit
import NIOFoundationEssentialsCompat
import Plot
import ShelfmarkCore
import Vapor

extension Request {
    /// The shell's context: language, user, library (when the route has one), CSRF token.
    func page(library: LibraryContext? = nil, flash: String? = nil, error: Bool = false) async throws -> PageContext {
        let user = auth.get(AuthenticatedUser.self)
        var libraries: [PageContext.LibraryRef] = []
        if let user {
            libraries = try await Accounts.libraries(of: user, on: db).map { PageContext.LibraryRef(id: $0.id, name: $0.name) }
        }
        var t = self.t
        if let library { t.timeZone = library.policy.timeZone }
        let carried = flash == nil ? flashMessage : nil
        return PageContext(t: t, csrf: csrfToken, path: url.path, user: user,
                           library: library.map { PageContext.LibraryRef(id: $0.libraryID, name: $0.name, role: $0.role) },
                           libraries: libraries, flash: flash ?? carried?.text, flashIsError: flash != nil ? error : carried?.isError ?? false,
                           languages: application.languages)
    }
}

/// Wraps the web pages: checks CSRF on POST, sets the CSRF cookie, and turns errors into pages in
/// the user's language (signed out → the sign-in page; 404, 403 → their pages; others → an error page
/// that says what went wrong).
struct WebMiddleware: AsyncMiddleware {
    /// A form's body: a few kilobytes of text. Routes that take files say how much with `maxBody`.
    static let formBodyLimit = 64 << 10

    func respond(to req: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response: Response
        req.cleanQuery()
        do {
            if req.method == .POST {
                try await Self.readBodyAndCheckToken(req)
            }
            response = try await next.respond(to: req)
        } catch {
            response = try await Self.errorPage(error, req: req)
        }
        if let token = req.storage[CSRF.NewCookieKey.self] {
            response.cookies[CSRF.cookie] = req.cookie(token, maxAge: 60 * 60 * 24 * 30, sameSite: .strict)
        }
        // A flash message is shown once: the page that showed it clears it (a redirect passes it on).
        if req.storage[Flash.ShownKey.self] == true, response.cookies[Flash.cookie] == nil, response.status != .seeOther {
            response.cookies[Flash.cookie] = req.cookie("", maxAge: 0)
        }
        return response
    }

    /// Nothing of a body is read before it is known who sends it and that it fits its route: uploads
    /// need a signed-in user, a declared length above the route's bound is refused at once, and the
    /// body is collected only up to that bound. Then the CSRF token is checked.
    static func readBodyAndCheckToken(_ req: Request) async throws {
        let limit = req.route?.maxBody ?? formBodyLimit
        if limit > formBodyLimit, !req.auth.has(AuthenticatedUser.self) { throw EdgeError.unauthenticated }
        if let declared = req.headers.first(name: .contentLength).flatMap(Int.init), declared > limit {
            throw Abort(.payloadTooLarge)
        }
        if req.body.data == nil {
            _ = try await req.body.collect(max: limit).get()
        }
        try req.refuseMalformedMultipart()
        let sent = req.formText(CSRF.field) ?? req.headers.first(name: CSRF.header) ?? ""
        guard CSRF.same(sent, req.csrfToken) else {
            // A page signed in with a session that has since ended: sign in again rather than a CSRF error.
            if req.cookies[Credential.cookieName] != nil, req.cookieSession == nil { throw EdgeError.unauthenticated }
            throw WebError.csrf
        }
    }

    static func errorPage(_ error: any Error, req: Request) async throws -> Response {
        let t = req.t
        let status: HTTPResponseStatus
        let title: String
        var message: String
        if case WebError.csrf = error {
            (status, title, message) = (.forbidden, t(.errorTitle), t(.csrfText))
        } else {
            let answered = error.answered
            switch answered.status {
            case .unauthorized where answered.code == "unauthenticated":
                return req.redirect(to: WebRoute.login.path(query: [("next", req.url.path)]))
            case .notFound:
                (status, title, message) = (.notFound, t(.notFoundTitle), t(.notFoundText))
            case .forbidden where !(error is any DomainError):
                (status, title, message) = (.forbidden, t(.errorTitle), t(.forbiddenText))
            case .payloadTooLarge:
                (status, title, message) = (.payloadTooLarge, t(.errorTitle), t(.tooLarge))
            default:
                (status, title, message) = (answered.status, t(.errorTitle), t.message(error))
                if answered.code == "disk_full" { JSONErrorMiddleware.reportDiskFull(error, request: req) }
                if status == .internalServerError { req.logger.report(error: error) }
            }
        }
        return try await page(status: status, title: title, message: message, req: req)
    }

    /// The error page with its title and message, in the reader's language.
    static func page(status: HTTPResponseStatus, title: String, message: String, req: Request) async throws -> Response {
        try await req.answer(ErrorPage(title: title, message: message).render(try await req.page(flash: nil)), status: status)
    }
}

enum WebError: Error { case csrf }

extension Request {
    /// A page answered with the status it stands for.
    func answer(_ html: HTML, status: HTTPResponseStatus = .ok) async throws -> Response {
        let response = try await html.encodeResponse(for: self)
        response.status = status
        return response
    }

    /// A form shown again as typed because it was refused, the reason next to its field: 422 with the
    /// page (200 when `isRefused` is false: the same page where nothing was refused).
    func refused(_ html: HTML, _ isRefused: Bool = true) async throws -> Response {
        try await answer(html, status: isRefused ? .unprocessableEntity : .ok)
    }

    /// A redirect after a successful POST, with a message shown once on the next page.
    func seeOther(_ path: String, flash: String? = nil, isError: Bool = false) -> Response {
        let response = redirect(to: path, redirectType: .normal)
        if let flash, let value = Flash.value((isError ? Flash.errorMark : "") + flash, session: flashKey) {
            response.cookies[Flash.cookie] = cookie(value, maxAge: 120)
        }
        return response
    }

    /// A one-button action (return, renew, a copy's status, a staff member's role …): runs `body` and goes
    /// back to `path` with what it says, or with the refusal said as an error there.
    func seeOther(_ path: String, refusing refused: (any Error) -> Bool = { $0.isFormRefusal },
                  saying body: () async throws -> String) async throws -> Response {
        do {
            return seeOther(path, flash: try await body())
        } catch let error where refused(error) {
            return seeOther(path, flash: t.message(error), isError: true)
        }
    }

    /// A form field as text, cleaned (`String.cleanedInput`), nil when empty.
    func formText(_ name: String) -> String? {
        let raw: String?
        if let parts = try? multipartParts() {
            raw = parts.firstPart(named: name).map { String(buffer: $0.body) }
        } else {
            raw = try? content.get(String.self, at: name)
        }
        guard let text = raw?.cleanedInput, !text.isEmpty else { return nil }
        return text
    }

    /// Every value of a field a form sends more than once (a list's checkboxes), cleaned, the empty ones
    /// left out; an URL-encoded body only.
    func formValues(_ name: String) -> [String] {
        guard let body = body.string, headers.contentType == .urlEncodedForm else { return [] }
        // Read by hand: a malformed escape ("%zz") is that value dropped, never a refusal of the whole form.
        return body.split(separator: "&").compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0].replacingOccurrences(of: "+", with: " ").removingPercentEncoding == name else { return nil }
            return parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding?.cleanedInput
        }.filter { !$0.isEmpty }
    }

    /// The fields as typed, to show a refused form again with what the person wrote (an absent field: "").
    /// Reading a form's values is `form(_:)`'s job; this only echoes them back.
    func typed<Fields: Sequence<String>>(_ fields: Fields) -> [String: String] {
        fields.reduce(into: [:]) { $0[$1] = formText($1) ?? "" }
    }

    /// An uploaded file's bytes (empty when the form has none).
    func formFile(_ name: String) -> Data {
        guard let parts = try? multipartParts(), let part = parts.firstPart(named: name) else { return Data() }
        return Data(buffer: part.body)
    }

    private struct MultipartPartsKey: StorageKey { typealias Value = [MultipartPart] }

    /// The parts of a multipart form body, parsed once per request: reading each field with
    /// `content.get` parsed the whole body again, five times for one upload (27 s for a 10 MB file
    /// in a debug build before the import had even started). Nil when the body is not multipart.
    func multipartParts() throws -> [MultipartPart]? {
        guard let type = headers.contentType, type.type == "multipart", let boundary = type.parameters["boundary"],
              let body = body.data else { return nil }
        if let parts = storage[MultipartPartsKey.self] { return parts }
        var parts: [MultipartPart] = []
        var partHeaders = HTTPHeaders()
        var partBody = ByteBuffer()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in partHeaders.add(name: name, value: value) }
        parser.onBody = { chunk in partBody.writeBuffer(&chunk) }
        parser.onPartComplete = {
            parts.append(MultipartPart(headers: partHeaders, body: partBody))
            partHeaders = HTTPHeaders()
            partBody = ByteBuffer()
        }
        try parser.execute(body)
        storage[MultipartPartsKey.self] = parts
        return parts
    }
}
