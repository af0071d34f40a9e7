import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// First-run setup, sign-in and sign-out, the language choice, and `/`.
enum SessionPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.home, use: home)
        web.get(.setup, use: setupForm)
        // Forms before sign-in read at most 4 KB (a name, a username, a password, the token).
        web.post(.setup, use: setup).maxBody(4 << 10)
        web.get(.login, use: loginForm)
        web.post(.login, use: login).maxBody(4 << 10)
        web.post(.logout, use: logout).maxBody(4 << 10)
        web.post(.language, use: language).maxBody(4 << 10)
        web.get(.offline, use: offline)
    }

    /// What the service worker shows when a page cannot be reached: the same for everyone,
    /// in the reader's language, naming no user and no library (the phone keeps it).
    @Sendable static func offline(req: Request) async throws -> HTML {
        let ctx = PageContext(t: req.t, csrf: "", path: req.url.path, user: nil, library: nil, languages: req.application.languages)
        return Layout.page(ctx, title: ctx.t(.offlineTitle)) {
            H.el(.h1, [:]) { EscapedText(ctx.t(.offlineTitle)) }
            H.el(.section, [.class: "card"]) {
                H.el(.p, [:]) { EscapedText(ctx.t(.offlineBody)) }
                H.el(.p, [.class: "actions"]) { H.el(.button, [.type: "button", .class: "button primary", .dataReload: ""]) { EscapedText(ctx.t(.offlineRetry)) } }
                // The offline lending pages this phone keeps (app.js lists them).
                H.el(.ul, [.class: "menu", .id: "offline-desks", .hidden: "", .dataLabel: ctx.t(.offlineLendingTitle)]) {}
            }
        }
    }

    /// `/`: setup on a new installation, sign-in when signed out, else the first library's catalog.
    @Sendable static func home(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { return req.redirect(to: WebRoute.setup.path) }
        guard let user = req.auth.get(AuthenticatedUser.self) else { return req.redirect(to: WebRoute.login.path) }
        guard let first = try await Accounts.libraries(of: user, on: req.db).first else {
            throw AccountError.libraryNotFound
        }
        return req.redirect(to: WebRoute.catalog(library: first.id).path)
    }

    @Sendable static func setupForm(req: Request) async throws -> Response {
        guard try await Accounts.needsSetup(on: req.db) else { return req.redirect(to: WebRoute.login.path) }
        try req.requireSetupFromThisComputer()
        return try await setupPage(req, form: FormState()).encodeResponse(for: req)
    }

    static func setupPage(_ req: Request, form: FormState) async throws -> HTML {
        SetupPage(form: form).render(try await req.page())
    }

    @Sendable static func setup(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { try req.requireSetupFromThisComputer() }
        let form = (try? req.form(SetupForm.self)) ?? SetupForm()
        let values = ["libraryName": form.libraryName ?? "", "displayName": form.displayName ?? "", "username": form.username ?? ""]
        let input = SetupInput(username: form.username ?? "", password: req.password,
                               displayName: form.displayName, libraryName: form.libraryName)
        do {
            let (user, library) = try await Accounts.setup(input, now: req.now, gate: req.application.writeGate, passwords: req.passwordHashing, on: req.db)
            let session = try await Accounts.startSession(for: user, now: req.now, gate: req.application.writeGate, on: req.db)
            let response = req.redirect(to: WebRoute.catalog(library: try library.requireID()).path)
            AuthController.setCookie(session, on: response, req: req)
            return response
        } catch let error where error.isFormRefusal && error.answered.status != .conflict {
            let page = try await setupPage(req, form: FormState(values: values, refusedWith: error, t: req.t, fields: SetupPage.fields))
            return try await req.refused(page)
        }
    }

    @Sendable static func loginForm(req: Request) async throws -> Response {
        if try await Accounts.needsSetup(on: req.db) { return req.redirect(to: WebRoute.setup.path) }
        return try await loginPage(req, error: nil, username: nil).encodeResponse(for: req)
    }

    static func loginPage(_ req: Request, error: String?, username: String?) async throws -> HTML {
        let school = try await SchoolSignInSettings.load(on: req.db)
        return SignInPage(username: username, error: error, next: req.query[String.self, at: "next"].flatMap(LocalPath.validate),
                          school: school.staffEnabled ? school.providerName : nil)
            .render(try await req.page())
    }

    @Sendable static func login(req: Request) async throws -> Response {
        let username = (try? req.form(SignInForm.self))?.username ?? ""
        let input = LoginInput(username: username, password: req.password)
        do {
            let session = try await Accounts.login(input, from: req.clientAddress, now: req.now, passwords: req.passwordHashing,
                                                   gate: req.application.writeGate, on: req.db)
            let next = req.query[String.self, at: "next"].flatMap(LocalPath.validate) ?? "/"
            let response = req.redirect(to: next)
            AuthController.setCookie(session, on: response, req: req)
            return response
        } catch let error where [.unauthorized, .unprocessableEntity, .tooManyRequests].contains(error.answered.status) {
            let message = req.t.message(error)
            let page = try await loginPage(req, error: message, username: username)
            let response = try await page.encodeResponse(for: req)
            response.status = error.answered.status == .tooManyRequests ? .tooManyRequests : .unauthorized
            return response
        }
    }

    @Sendable static func logout(req: Request) async throws -> Response {
        if let token = req.cookies[Credential.cookieName]?.string {
            try await Accounts.logout(token: token, gate: req.application.writeGate, on: req.db)
        }
        let response = req.redirect(to: WebRoute.login.path)
        response.cookies[Credential.cookieName] = req.cookie("", maxAge: 0)
        return response
    }

    /// Stores the chosen language in a cookie for a year and goes back to the page.
    @Sendable static func language(req: Request) async throws -> Response {
        let form = try req.form(LanguageForm.self)
        let lang = form.lang.flatMap { code in req.application.languages.first { $0.rawValue == code } } ?? .en
        let back = form.back.flatMap(LocalPath.validate) ?? "/"
        let response = req.redirect(to: back)
        response.cookies[Lang.cookieName] = req.cookie(lang.rawValue, maxAge: 365 * 86_400, httpOnly: false)
        return response
    }
}

extension SessionPages {
    /// The first visit's form: the owner's account and the first library. Too long a field is said by
    /// `Accounts.setup` next to it, so the form keeps what was typed.
    struct SetupForm: WebForm {
        var username: String?
        var displayName: String?
        var libraryName: String?
        static var maxLength: [String: Int] { ["username": 10_000, "displayName": 10_000, "libraryName": 10_000] }
    }

    struct SignInForm: WebForm {
        var username: String?
        static var maxLength: [String: Int] { ["username": 10_000] }
    }

    /// The language menu: the language chosen and the page to go back to.
    struct LanguageForm: WebForm {
        var lang: String?
        var back: String?
    }
}

extension Request {
    /// The password field as typed: never trimmed or cleaned (a space may be part of it), unlike a form's text.
    var password: String { (try? content.get(String.self, at: "password")) ?? "" }
}
