@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// A browser-like client for the web pages: keeps cookies, sends forms with the CSRF token.
struct Browser {
    let app: Application
    var cookies: [String: String] = [:]
    var language: String?

    struct Page {
        var status: HTTPStatus
        var html: String
        var location: String?
        var setCookies: [String] = []
    }

    /// The token a page of this browser carries: bound to the session once signed in, else the cookie's.
    var csrfToken: String {
        if let session = cookies[Credential.cookieName], !session.isEmpty { return CSRF.token(forSession: session) }
        return cookies["shelfmark_csrf"] ?? ""
    }

    mutating func get(_ path: String) async throws -> Page {
        try await send(.GET, path, form: nil)
    }

    mutating func post(_ path: String, _ form: [String: String], csrf: Bool = true) async throws -> Page {
        var fields = form
        if csrf, fields["_csrf"] == nil { fields["_csrf"] = csrfToken }
        return try await send(.POST, path, form: fields)
    }

    /// A form whose fields may repeat (a list's checkboxes), in the order given.
    mutating func post(_ path: String, fields: [(String, String)]) async throws -> Page {
        try await send(.POST, path, pairs: [("_csrf", csrfToken)] + fields)
    }

    private mutating func send(_ method: HTTPMethod, _ path: String, form: [String: String]?) async throws -> Page {
        try await send(method, path, pairs: form.map { $0.map { ($0.key, $0.value) } })
    }

    private mutating func send(_ method: HTTPMethod, _ path: String, pairs form: [(String, String)]?) async throws -> Page {
        var headers = HTTPHeaders()
        if !cookies.isEmpty { headers.add(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")) }
        if let language { headers.add(name: .acceptLanguage, value: language) }
        var body: ByteBuffer?
        if let form {
            headers.contentType = .urlEncodedForm
            let encoded = form.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(separator: "&")
            body = ByteBuffer(string: encoded)
        }
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: body)
        for cookie in response.headers[.setCookie] {
            let pair = cookie.split(separator: ";").first.map(String.init) ?? ""
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { cookies[parts[0]] = parts[1] } else if parts.count == 1 { cookies.removeValue(forKey: parts[0]) }
        }
        return Page(status: response.status, html: String(buffer: response.body), location: response.headers.first(name: .location),
                    setCookies: response.headers[.setCookie])
    }

    /// A multipart form with one file field, as a browser sends an upload.
    mutating func upload(_ path: String, file: (field: String, name: String, data: Data), fields: [String: String] = [:]) async throws -> Page {
        let boundary = "shelfmark-test-boundary"
        var body = Data()
        for (name, value) in fields.merging(["_csrf": csrfToken], uniquingKeysWith: { a, _ in a }) {
            body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.field)\"; filename=\"\(file.name)\"\r\nContent-Type: text/csv\r\n\r\n".utf8)
        body += file.data + Data("\r\n--\(boundary)--\r\n".utf8)
        var headers = HTTPHeaders()
        headers.add(name: .cookie, value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
        if let language { headers.add(name: .acceptLanguage, value: language) }
        headers.replaceOrAdd(name: .contentType, value: "multipart/form-data; boundary=\(boundary)")
        let response = try await app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(data: body))
        return Page(status: response.status, html: String(buffer: response.body), location: response.headers.first(name: .location))
    }

    /// First run: setup through the form, signed in afterwards.
    mutating func setUp() async throws -> String {
        _ = try await get("/setup")
        let done = try await post("/setup", ["libraryName": "Room 12", "username": "teacher", "password": "a long password"])
        #expect(done.status == .seeOther, "\(done.html.prefix(500))")
        return try #require(done.location)
    }
}
