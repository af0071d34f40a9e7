import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The web side of sign-in with the school's account: the way to the provider for staff and for a
/// public catalog's members, the way back, the administrator's settings page and a staff account's
/// school e-mail.
enum SchoolSignInPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.schoolSignIn, use: staffStart)
        web.get(.schoolSignInReturn, use: finish)
        web.get(.publicSchoolSignIn(library: .pattern), use: memberStart)
        web.get(.schoolSignInSettings(library: .pattern), use: show)
        web.post(.schoolSignInSettings(library: .pattern), use: save).maxBody(16 << 10)
        web.post(.staffEmail(library: .pattern, user: .pattern), use: staffEmail).maxBody(4 << 10)
    }

    /// The address the provider sends the browser back to (the one registered there): this server's
    /// configured address, else the one the request came to when it is this machine's.
    static func origin(_ req: Request) -> String? { PublicPages.linkOrigin(req) }

    private static func started(_ started: SchoolSignIn.Started, req: Request) -> Response {
        let response = req.redirect(to: started.location, redirectType: .normal)
        // Lax: the provider sends the browser back with a top-level GET from its own site.
        var cookie = req.cookie(started.cookie, maxAge: Int(SchoolSignIn.lifetime), sameSite: .lax)
        cookie.path = SchoolSignIn.returnPath
        response.cookies[SchoolSignIn.cookieName] = cookie
        return response
    }

    /// Each start keeps a row for ten minutes: an address starts at most `startsPerMinute` (a class behind
    /// one address signing in together fits; a loop filling the table does not).
    static let startsPerMinute = 120

    private static func throttle(_ req: Request) throws {
        if req.application.schoolSignInStarts.take(req.clientAddress ?? "unknown", now: req.now) != nil { throw SchoolSignInError.busy }
    }

    @Sendable static func staffStart(req: Request) async throws -> Response {
        let next = req.query[String.self, at: "next"].flatMap(LocalPath.validate)
        guard let origin = origin(req) else {
            return req.seeOther(WebRoute.login.path, flash: req.t(.errSchoolNoAddress), isError: true)
        }
        do {
            try throttle(req)
            return started(try await SchoolSignIn.start(library: nil, next: next, origin: origin, app: req.application, now: req.now), req: req)
        } catch let error as SchoolSignInError {
            return req.seeOther(WebRoute.login.path, flash: req.t.message(error), isError: true)
        }
    }

    @Sendable static func memberStart(req: Request) async throws -> Response {
        let library = try await MemberPortal.publicLibrary(try req.uuid("libraryID"), on: req.db)
        let back = WebRoute.publicSignIn(library: library.id).path
        let next = req.query[String.self, at: "next"].map { PublicPages.next(String($0.prefix(500)), library: library.id) }
        guard let origin = origin(req) else { return req.seeOther(back, flash: req.t(.errSchoolNoAddress), isError: true) }
        do {
            try throttle(req)
            return started(try await SchoolSignIn.start(library: library.id, next: next, origin: origin, app: req.application, now: req.now), req: req)
        } catch let error as SchoolSignInError {
            return req.seeOther(back, flash: req.t.message(error), isError: true)
        }
    }

    /// Back from the provider: signed in and on to the page asked for, or back to the sign-in page with
    /// why not. The cookie has done its one job either way.
    @Sendable static func finish(req: Request) async throws -> Response {
        let cookie = req.cookies[SchoolSignIn.cookieName]?.string
        let response: Response
        do {
            let done = try await SchoolSignIn.finish(code: req.query[String.self, at: "code"], state: req.query[String.self, at: "state"],
                                                     error: req.query[String.self, at: "error"], cookie: cookie, app: req.application, now: req.now)
            switch done {
            case .staff(let session, let next):
                response = req.redirect(to: next.flatMap(LocalPath.validate) ?? "/", redirectType: .normal)
                AuthController.setCookie(session, on: response, req: req)
            case .member(let token, let library, let next):
                response = req.redirect(to: PublicPages.next(next, library: library), redirectType: .normal)
                PublicPages.setSession(token, on: response, library: library, req: req)
            }
        } catch let error where error is SchoolSignInError || error is LoanError {
            req.logger.notice("school sign-in refused: \(String(describing: error))")
            let page = SchoolSignIn.libraryOfCookie(cookie).map { WebRoute.publicSignIn(library: $0).path } ?? WebRoute.login.path
            response = req.seeOther(page, flash: req.t.message(error), isError: true)
        }
        var gone = req.cookie("", maxAge: 0)
        gone.path = SchoolSignIn.returnPath
        response.cookies[SchoolSignIn.cookieName] = gone
        return response
    }

    // MARK: The administrator's page

    @Sendable static func show(req: Request) async throws -> HTML {
        let ctx = try await ServerSettings.administratorPage(req)
        return try await SchoolSignInPage.make(library: ctx, req: req).render(try await req.page(library: ctx))
    }

    /// The page's form: flat fields, one checkbox per role whose password goes.
    struct Form: WebForm {
        var preset: String?
        var issuer: String?
        var tenant: String?
        var clientId: String?
        var clientSecret: String?
        var domain: String?
        var staff: Bool?
        var members: Bool?
        var newAccountRole: String?
        var accountLibrary: String?
        var studentClaim: String?
        var offViewer: Bool?, offVolunteer: Bool?, offLibrarian: Bool?, offOwner: Bool?, offMember: Bool?

        static var maxLength: [String: Int] { SchoolSignInPatch.maxLength }

        func patch() throws -> SchoolSignInPatch {
            let off = [("viewer", offViewer), ("volunteer", offVolunteer), ("librarian", offLibrarian), ("owner", offOwner),
                       (SchoolSignInSettings.memberRole, offMember)].filter { $0.1 == true }.map(\.0)
            let preset = try preset.map { raw in
                guard let p = SchoolSignInSettings.Preset(rawValue: raw) else { throw SchoolSignInError.badIssuer }
                return p
            }
            return SchoolSignInPatch(preset: preset, issuer: issuer ?? "", tenant: tenant ?? "", clientId: clientId ?? "", clientSecret: clientSecret,
                                     domain: domain ?? "", staff: staff ?? false, members: members ?? false, newAccountRole: newAccountRole ?? "none",
                                     accountLibrary: accountLibrary.flatMap(UUID.init(uuidString:)), studentClaim: studentClaim ?? "", passwordOff: off)
        }
    }

    @Sendable static func save(req: Request) async throws -> Response {
        let ctx = try await ServerSettings.administratorPage(req)
        do {
            try await SchoolSignInAdmin.update(try req.form(Form.self).patch(), app: req.application)
            return req.seeOther(WebRoute.schoolSignInSettings(library: ctx.libraryID).path, flash: req.t(.schoolSettingsSaved))
        } catch let error where error.isFormRefusal {
            var page = try await SchoolSignInPage.make(library: ctx, req: req)
            page.typed = req.typed(SchoolSignInPage.fields)
            page.refusal = (error.answered.field, req.t.message(error))
            return try await req.refused(page.render(try await req.page(library: ctx)))
        }
    }

    struct EmailForm: WebForm {
        var email: String?
        static var maxLength: [String: Int] { ["email": EmailAddress.maxLength + 66] }
    }

    @Sendable static func staffEmail(req: Request) async throws -> Response {
        try await SettingsPages.staffAction(req) { ctx, member in
            let email = try await SchoolSignInAdmin.setStaffEmail(member.userId, email: try req.form(EmailForm.self).email, in: req.scope(ctx))
            return email.map { req.t.format(.staffEmailSaved, member.displayName, $0) } ?? req.t.format(.staffEmailRemoved, member.displayName)
        }
    }
}

/// The settings page of sign-in with the school's accounts: the provider, who signs in that way,
/// accounts made on first sign-in, passwords switched off, and the address to register at the provider.
struct SchoolSignInPage: Sendable {
    var libraryID: UUID
    var settings: SchoolSignInSettings
    var redirectURI: String?
    /// The libraries new accounts may go into (the administrator's own).
    var libraries: [(id: UUID, name: String)]
    var typed: [String: String] = [:]
    var refusal: (field: String?, message: String)?

    static let fields: Set<String> = ["preset", "issuer", "tenant", "clientId", "domain", "newAccountRole", "accountLibrary", "studentClaim"]

    static func make(library: LibraryContext, req: Request) async throws -> SchoolSignInPage {
        let mine = try await Accounts.libraries(of: library.user, on: req.db).map { (id: $0.id, name: $0.name) }
        return SchoolSignInPage(libraryID: library.libraryID, settings: try await SchoolSignInSettings.load(on: req.db),
                                redirectURI: SchoolSignInPages.origin(req).map { $0 + SchoolSignIn.returnPath }, libraries: mine)
    }

    func value(_ field: String) -> String {
        if let typed = typed[field] { return typed }
        switch field {
        case "preset": return settings.preset.rawValue
        case "issuer": return settings.preset == .other ? settings.issuer ?? "" : ""
        case "tenant": return settings.tenant ?? ""
        case "clientId": return settings.clientID ?? ""
        case "domain": return settings.domain ?? ""
        case "newAccountRole": return settings.newAccountRole?.rawValue ?? "none"
        case "accountLibrary": return settings.accountLibrary?.uuidString ?? libraryID.uuidString
        case "studentClaim": return settings.studentClaim ?? ""
        default: return ""
        }
    }

    func error(_ field: String) -> String? {
        guard let refusal, refusal.field == field else { return nil }
        return refusal.message
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        var page = page
        if let refusal, refusal.field == nil || !Self.fields.contains(refusal.field!) { (page.flash, page.flashIsError) = (refusal.message, true) }
        return Layout.page(page, title: t(.schoolSignInTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.schoolSignInTitle)) }
            H.el(.p, [.class: "muted"]) { EscapedText(t(.schoolSignInIntro)) }
            if let uri = redirectURI {
                H.el(.section, [.class: "card"]) {
                    H.el(.p, [:]) { EscapedText(t(.schoolRedirectHint)) }
                    H.el(.pre, [.class: "command"]) { H.el(.code, [:]) { EscapedText(uri) } }
                }
            }
            H.form(WebRoute.schoolSignInSettings(library: libraryID).path, csrf: page.csrf, attrs: [.class: "card"]) {
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-preset"]) { EscapedText(t(.schoolProvider)) }
                    H.el(.select, [.id: "f-preset", .name: "preset"]) {
                        for (preset, label) in [(SchoolSignInSettings.Preset.google, "Google Workspace"), (.microsoft, "Microsoft Entra ID"),
                                                (.other, t(.schoolProviderOther))] {
                            H.el(.option, [.value: preset.rawValue, .selected: value("preset") == preset.rawValue ? "" : nil]) { EscapedText(label) }
                        }
                    }
                }
                H.field(t(.schoolTenant), name: "tenant", value: value("tenant"), hint: t(.schoolTenantHint), error: error("tenant"),
                        extra: [.autocapitalize: "none"])
                H.field(t(.schoolIssuer), name: "issuer", type: "url", value: value("issuer"), hint: t(.schoolIssuerHint), error: error("issuer"))
                H.field(t(.schoolClientID), name: "clientId", value: value("clientId"), error: error("clientId"), extra: [.autocapitalize: "none"])
                H.field(t(.schoolClientSecret), name: "clientSecret", type: "password",
                        hint: settings.sealedSecret == nil ? nil : t(.schoolSecretKept), error: error("clientSecret"), extra: [.autocomplete: "off"])
                H.field(t(.schoolDomain), name: "domain", value: value("domain"), hint: t(.schoolDomainHint), error: error("domain"),
                        extra: [.autocapitalize: "none"])
                H.el(.fieldset, [.class: "field"]) {
                    H.el(.legend, [:]) { EscapedText(t(.schoolWho)) }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "staff", .value: "true", .checked: settings.staff ? "" : nil])
                        EscapedText(" " + t(.schoolForStaff))
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "members", .value: "true", .checked: settings.members ? "" : nil])
                        EscapedText(" " + t(.schoolForMembers))
                    }
                }
                H.field(t(.schoolStudentClaim), name: "studentClaim", value: value("studentClaim"), hint: t(.schoolStudentClaimHint),
                        error: error("studentClaim"), extra: [.autocapitalize: "none"])
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-newAccountRole"]) { EscapedText(t(.schoolNewAccounts)) }
                    H.el(.select, [.id: "f-newAccountRole", .name: "newAccountRole", .ariaDescribedby: "f-newAccountRole-hint"]) {
                        H.el(.option, [.value: "none", .selected: value("newAccountRole") == "none" ? "" : nil]) { EscapedText(t(.schoolNewAccountsOff)) }
                        for role in [Role.viewer, .volunteer, .librarian] {
                            H.el(.option, [.value: role.rawValue, .selected: value("newAccountRole") == role.rawValue ? "" : nil]) {
                                EscapedText(SettingsPages.roleName(role, t))
                            }
                        }
                    }
                    if let e = error("newAccountRole") { H.el(.p, [.class: "field-error"]) { EscapedText(e) } }
                    H.el(.p, [.class: "hint", .id: "f-newAccountRole-hint"]) { EscapedText(t(.schoolNewAccountsHint)) }
                }
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-accountLibrary"]) { EscapedText(t(.schoolAccountLibrary)) }
                    H.el(.select, [.id: "f-accountLibrary", .name: "accountLibrary"]) {
                        for library in libraries {
                            H.el(.option, [.value: library.id.uuidString, .selected: value("accountLibrary") == library.id.uuidString ? "" : nil]) {
                                EscapedText(library.name)
                            }
                        }
                    }
                }
                H.el(.fieldset, [.class: "field"]) {
                    H.el(.legend, [:]) { EscapedText(t(.schoolPasswordOff)) }
                    for (name, label) in [("offViewer", SettingsPages.roleName(.viewer, t)), ("offVolunteer", SettingsPages.roleName(.volunteer, t)),
                                          ("offLibrarian", SettingsPages.roleName(.librarian, t)), ("offOwner", SettingsPages.roleName(.owner, t)),
                                          ("offMember", t(.schoolMembersPIN))] {
                        let role = name == "offMember" ? SchoolSignInSettings.memberRole : String(name.dropFirst(3)).lowercased()
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "checkbox", .name: name, .value: "true", .checked: settings.passwordOff.contains(role) ? "" : nil])
                            EscapedText(" " + label)
                        }
                    }
                    if let e = error("passwordOff") { H.el(.p, [.class: "field-error"]) { EscapedText(e) } }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.schoolPasswordOffHint)) }
                }
                H.button(t(.save))
            }
        }
    }
}

extension Application {
    private struct SchoolSignInStartsKey: StorageKey { typealias Value = PublicRateLimit }

    /// Sign-ins started per address and minute (`SchoolSignInPages.startsPerMinute`); replaced by tests.
    var schoolSignInStarts: PublicRateLimit {
        get {
            if let made = storage[SchoolSignInStartsKey.self] { return made }
            let made = PublicRateLimit(perMinute: SchoolSignInPages.startsPerMinute)
            storage[SchoolSignInStartsKey.self] = made
            return made
        }
        set { storage[SchoolSignInStartsKey.self] = newValue }
    }
}
