import ShelfmarkCore
import Vapor

/// Turns any error into the JSON error shape and the right status, never leaking internals on a 500.
struct JSONErrorMiddleware: AsyncMiddleware {
    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        do {
            let response = try await next.respond(to: request)
            if request.method != .GET, request.method != .HEAD, response.status.code < 400, request.application.storageHealth.writesFailing {
                request.application.storageHealth.markWorking()
            }
            return response
        } catch {
            let appError = Self.appError(for: error)
            // No route for this method: 405 when the path exists with others.
            if appError.status == .notFound, let allowed = Self.methodNotAllowed(request) {
                let allow = allowed.map(\.rawValue).joined(separator: ", ")
                let response: Response
                if Self.wantsPage(request) {
                    // A person who opened a form's address (from history, a bookmark): a page in their language.
                    let t = request.t
                    response = try await WebMiddleware.page(status: .methodNotAllowed, title: t(.errorTitle), message: t(.errNotAPage), req: request)
                } else {
                    response = Response(status: .methodNotAllowed)
                    try response.content.encode(ErrorBody(error: .init(
                        code: "method_not_allowed", message: request.t.format(.errMethodNotAllowed, request.method.rawValue, allow))))
                    if request.lang != .en { response.headers.replaceOrAdd(name: .contentLanguage, value: request.lang.rawValue) }
                }
                response.headers.replaceOrAdd(name: .allow, value: allow)
                return response
            }
            // A browser asking for a page that does not exist gets a page in its language, not JSON.
            if appError.status == .notFound, Self.wantsPage(request) {
                return try await WebMiddleware.errorPage(error, req: request)
            }
            if appError.status == .internalServerError {
                // An error, with its cause (a database's own message, say): Vapor's `report` logs
                // most errors as warnings, where a server's failure is easily missed.
                request.logger.error("\(request.method) \(request.url.path) failed: \(String(reflecting: error))")
            } else if appError.code == "disk_full" {
                Self.reportDiskFull(error, request: request)
            }
            let response = Response(status: appError.status)
            // The message in the language the request asks for (Accept-Language, or the web app's
            // language cookie); the code, field and details are the same in every language.
            let lang = request.lang
            let message = lang == .en ? appError.message : request.t.message(error)
            try response.content.encode(ErrorBody(error: .init(
                code: appError.code, message: message, field: appError.field, details: appError.details)))
            if lang != .en { response.headers.replaceOrAdd(name: .contentLanguage, value: lang.rawValue) }
            response.sayRetryAfter(appError)
            return response
        }
    }

    /// A browser opening an address of the web app (not the API): it is answered with a page.
    static func wantsPage(_ request: Request) -> Bool {
        (request.method == .GET || request.method == .HEAD) && !request.url.path.hasPrefix("/api/")
            && request.headers.first(name: .accept)?.contains("text/html") == true
    }

    /// The methods the path takes when this request's method is not one of them (nil otherwise).
    static func methodNotAllowed(_ request: Request) -> [HTTPMethod]? {
        let allowed = MethodNotAllowed.allowed(at: request.url.path, routes: request.application.routes)
        return allowed.isEmpty || allowed.contains(request.method) ? nil : allowed
    }

    static let diskFull = AppError(status: .insufficientStorage, code: "disk_full",
                                   message: "The server's disk is full, so nothing was saved. Free some space on the server; Shelfmark carries on by itself as soon as there is room.")

    static func reportDiskFull(_ error: any Error, request: Request) {
        request.application.storageHealth.markFailing(at: Date())
        request.logger.error("a write failed because the disk is full: \(String(reflecting: error))")
    }

    static func appError(for error: any Error) -> AppError {
        if !(error is AppError), StorageHealth.isDiskFull(error) { return diskFull }
        switch error {
        case let error as AppError:
            return error
        case let error as any DomainError:
            return AppError(status: error.refusal.status, code: error.code, message: error.message(Strings(lang: .en)),
                            field: error.field, details: error.details)
        case let error as DecodingError:
            return decodingError(error, t: Strings(lang: .en))
        case let error as any AbortError where error.status == .payloadTooLarge:
            return appError(for: EdgeError.uploadTooLarge)
        case let error as any AbortError:
            let code = error.status == .notFound ? "not_found" : error.status.reasonPhrase.lowercased().replacingOccurrences(of: " ", with: "_")
            return AppError(status: error.status, code: code, message: error.reason)
        default:
            return AppError(status: .internalServerError, code: "internal", message: "Something went wrong on the server; it has been logged.")
        }
    }

    /// A body that does not decode, said in `t`'s language: the field's path (`authors.0`) and, for a
    /// value of the wrong kind, the kind it must be (also in `details.expected` for programs).
    static func decodingError(_ error: DecodingError, t: Strings) -> AppError {
        func path(_ ctx: DecodingError.Context) -> String? {
            let p = ctx.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? nil : p
        }
        switch error {
        case .keyNotFound(let key, let ctx):
            let field = (path(ctx).map { $0 + "." } ?? "") + key.stringValue
            return AppError(status: .badRequest, code: "missing_field", message: t.format(.errFieldRequired, field), field: field)
        case .typeMismatch(let type, let ctx), .valueNotFound(let type, let ctx):
            let field = path(ctx)
            let (kind, key) = Self.kind(type)
            return AppError(status: .badRequest, code: "wrong_type", message: t.format(.errFieldType, field ?? "body", t(key)), field: field,
                            details: ["expected": kind])
        case .dataCorrupted(let ctx):
            return AppError(status: .badRequest, code: "bad_body", message: t(.errBodyNotJSON), field: path(ctx),
                            details: ["reason": String(ctx.debugDescription.prefix(200))])
        @unknown default:
            return AppError(status: .badRequest, code: "bad_body", message: t(.errBodyNotJSON))
        }
    }

    /// The kind of value a Swift type takes in JSON, for programs and for people.
    private static func kind(_ type: Any.Type) -> (String, L) {
        switch type {
        case is String.Type: ("string", .kindText)
        case is Int.Type, is Double.Type: ("number", .kindNumber)
        case is Bool.Type: ("boolean", .kindTrueFalse)
        case is Date.Type: ("date", .kindDate)
        case is UUID.Type: ("id", .kindID)
        default: ("value", .kindValue)
        }
    }
}

extension Response {
    /// A refusal that says how long to wait (`details.retryAfter` of a 429) says it to programs too:
    /// the API's answers and the pages that show a refused form.
    func sayRetryAfter(_ error: AppError) {
        if error.status == .tooManyRequests, let wait = error.details?["retryAfter"] { headers.replaceOrAdd(name: "Retry-After", value: wait) }
    }
}
