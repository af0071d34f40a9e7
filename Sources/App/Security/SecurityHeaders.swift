import Foundation
import Vapor

/// Whether the server is reached over HTTPS (`SHELFMARK_HTTPS=true`, e.g. behind a TLS proxy): then
/// cookies are `Secure` and responses carry HSTS.
struct TransportSecurity: Sendable {
    var https = false

    static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> TransportSecurity {
        guard let raw = env["SHELFMARK_HTTPS"]?.lowercased(), !raw.isEmpty else { return TransportSecurity() }
        switch raw {
        case "1", "true", "yes": return TransportSecurity(https: true)
        case "0", "false", "no": return TransportSecurity(https: false)
        default: throw AppError.invalid("SHELFMARK_HTTPS", "SHELFMARK_HTTPS is true or false (got “\(raw)”).")
        }
    }
}

extension Application {
    private struct TransportSecurityKey: StorageKey { typealias Value = TransportSecurity }

    var transportSecurity: TransportSecurity {
        get { storage[TransportSecurityKey.self] ?? TransportSecurity() }
        set { storage[TransportSecurityKey.self] = newValue }
    }
}

extension Request {
    /// A cookie with the installation's transport settings (`Secure` behind HTTPS), HTTP-only unless said.
    func cookie(_ value: String, maxAge: Int?, httpOnly: Bool = true, sameSite: HTTPCookies.SameSitePolicy = .lax) -> HTTPCookies.Value {
        HTTPCookies.Value(string: value, expires: maxAge == 0 ? Date(timeIntervalSince1970: 0) : nil, maxAge: maxAge, path: "/",
                          isSecure: isSecureTransport, isHTTPOnly: httpOnly, sameSite: sameSite)
    }
}

/// Headers on every response, errors included. Pages get a Content-Security-Policy without inline
/// script (the app's only script is `/js/app.js`); everything else (JSON, covers, exports, files) a
/// policy that allows nothing and sandboxes the document, so a file opened directly in the browser
/// can never run script in the app's origin. No response may be framed.
struct SecurityHeadersMiddleware: AsyncMiddleware {
    static let pagePolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: http: data: blob:; "
        + "media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    static let resourcePolicy = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox"

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let response = try await next.respond(to: request)
        let h = response.headers
        var headers = response.headers
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        headers.replaceOrAdd(name: "Referrer-Policy", value: "same-origin")
        headers.replaceOrAdd(name: "X-Frame-Options", value: "DENY")
        headers.replaceOrAdd(name: "Cross-Origin-Opener-Policy", value: "same-origin")
        if !h.contains(name: "Content-Security-Policy") {
            let isPage = h.contentType?.type == "text" && h.contentType?.subType == "html"
            headers.replaceOrAdd(name: "Content-Security-Policy", value: isPage ? Self.pagePolicy : Self.resourcePolicy)
        }
        if request.isSecureTransport {
            headers.replaceOrAdd(name: "Strict-Transport-Security", value: "max-age=31536000; includeSubDomains")
        }
        response.headers = headers
        return response
    }
}
