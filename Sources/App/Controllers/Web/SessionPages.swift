import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// First-run setup, sign-in and sign-out, the language choice, and `/` (G1, G2, G5).
enum SessionPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(use: home)
        web.get("setup", use: setupForm)
        // Forms before sign-in read at most 4 KB (a name, a username, a password, the token).
        web.post("setup", use: setup).maxBody(4 << 10)
        web.get("login", use: loginForm)
        web.post("login", use: login).maxBody(4 << 10)
        web.post("logout", use: logout).maxBody(4 << 10)
        web.post("language", use: language).maxBody(4 << 10)
    }

    /// `/`: setup on a new installation, sign-in when signed out, else the first library's catalog.
    @Sendable static func home(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { return req.redirect(to: "/setup") }
        guard let user = req.auth.get(AuthenticatedUser.self) else { return req.redirect(to: "/login") }
        guard let first = try await Accounts.libraries(of: user, on: req.db).first else {
            throw AppError.notFound("Library")
        }
        return req.redirect(to: WebRoute.catalog(library: first.id).path)
    }

    @Sendable static func setupForm(req: Request) async throws -> Response {
        guard try await Accounts.needsSetup(on: req.db) else { return req.redirect(to: "/login") }
        return try await setupPage(req, error: nil, values: [:]).encodeResponse(for: req)
    }

    static func setupPage(_ req: Request, error: String?, values: [String: String]) async throws -> HTML {
        let ctx = try await req.page(flash: error, error: error != nil)
        let t = ctx.t
        return Layout.page(ctx, title: t(.setupTitle)) {
            H.el("section", ["class": "card narrow"]) {
                H.el("h1", [:]) { Text(t(.setupTitle)) }
                H.el("p", [:]) { Text(t(.setupIntro)) }
                H.form("/setup", csrf: ctx.csrf) {
                    H.field(t(.libraryName), name: "libraryName", value: values["libraryName"], required: true, extra: ["autocomplete": "organization"])
                    H.field(t(.yourName), name: "displayName", value: values["displayName"], extra: ["autocomplete": "name"])
                    H.field(t(.username), name: "username", value: values["username"], required: true,
                            extra: ["autocomplete": "username", "autocapitalize": "none"])
                    H.field(t(.password), name: "password", type: "password", hint: t(.passwordHint), required: true,
                            extra: ["autocomplete": "new-password", "minlength": "8"])
                    H.button(t(.createLibrary))
                }
            }
        }
    }

    @Sendable static func setup(req: Request) async throws -> Response {
        let values = ["libraryName": req.formText("libraryName") ?? "", "displayName": req.formText("displayName") ?? "",
                      "username": req.formText("username") ?? ""]
        let input = SetupInput(username: values["username"]!, password: (try? req.content.get(String.self, at: "password")) ?? "",
                               displayName: req.formText("displayName"), libraryName: req.formText("libraryName"))
        do {
            let (user, library) = try await Accounts.setup(input, now: req.now, gate: req.application.writeGate, hasher: req.password, on: req.db)
            let session = try await Accounts.startSession(for: user, now: req.now, gate: req.application.writeGate, on: req.db)
            let response = req.redirect(to: WebRoute.catalog(library: try library.requireID()).path)
            AuthController.setCookie(session, on: response, req: req)
            return response
        } catch let error as AppError where error.status != .conflict {
            let page = try await setupPage(req, error: req.t.message(error), values: values)
            let response = try await page.encodeResponse(for: req)
            response.status = .unprocessableEntity
            return response
        }
    }

    @Sendable static func loginForm(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { return req.redirect(to: "/setup") }
        return try await loginPage(req, error: nil, username: nil).encodeResponse(for: req)
    }

    static func loginPage(_ req: Request, error: String?, username: String?) async throws -> HTML {
        let ctx = try await req.page(flash: error, error: error != nil)
        let t = ctx.t
        let next = req.query[String.self, at: "next"].flatMap(LocalPath.validate)
        return Layout.page(ctx, title: t(.signInTitle)) {
            H.el("section", ["class": "card narrow"]) {
                H.el("h1", [:]) { Text(t(.signInTitle)) }
                H.el("p", [:]) { Text(t(.signInIntro)) }
                H.form("/login" + (next.map { "?next=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "/-_"))) ?? "") } ?? ""), csrf: ctx.csrf) {
                    H.field(t(.username), name: "username", value: username, required: true, extra: ["autocomplete": "username", "autocapitalize": "none"])
                    H.field(t(.password), name: "password", type: "password", required: true, extra: ["autocomplete": "current-password"])
                    H.button(t(.signIn))
                }
            }
        }
    }

    @Sendable static func login(req: Request) async throws -> Response {
        let username = req.formText("username") ?? ""
        let input = LoginInput(username: username, password: (try? req.content.get(String.self, at: "password")) ?? "")
        do {
            let session = try await Accounts.login(input, from: req.clientAddress, now: req.now, hasher: req.password,
                                                   gate: req.application.writeGate, on: req.db)
            let next = req.query[String.self, at: "next"].flatMap(LocalPath.validate) ?? "/"
            let response = req.redirect(to: next)
            AuthController.setCookie(session, on: response, req: req)
            return response
        } catch let error as AppError where error.status == .unauthorized || error.status == .unprocessableEntity || error.status == .tooManyRequests {
            let message = req.t.message(error)
            let page = try await loginPage(req, error: message, username: username)
            let response = try await page.encodeResponse(for: req)
            response.status = error.status == .tooManyRequests ? .tooManyRequests : .unauthorized
            return response
        }
    }

    @Sendable static func logout(req: Request) async throws -> Response {
        if let token = req.cookies[Credential.cookieName]?.string {
            try await Accounts.logout(token: token, gate: req.application.writeGate, on: req.db)
        }
        let response = req.redirect(to: "/login")
        response.cookies[Credential.cookieName] = req.cookie("", maxAge: 0)
        return response
    }

    /// Stores the chosen language in a cookie for a year and goes back to the page.
    @Sendable static func language(req: Request) async throws -> Response {
        let lang = req.formText("lang").flatMap(Lang.init(rawValue:)) ?? .en
        let back = req.formText("back").flatMap(LocalPath.validate) ?? "/"
        let response = req.redirect(to: back)
        response.cookies[Lang.cookieName] = req.cookie(lang.rawValue, maxAge: 365 * 86_400, httpOnly: false)
        return response
    }
}
