import Fluent
import Foundation
import Plot
import ShelfmarkCore
import ShelfmarkTLS
import SQLKit
import Vapor

/// The public catalog: a library's books for anyone when the library published its
/// catalog (Settings), and its members' own pages after they sign in with card and PIN or an emailed
/// link. No staff session is needed or used; nothing about members is on a page but the signed-in
/// member's own loans and holds. Pages say `noindex` unless the library lets search engines in.
enum PublicPages {
    static let memberCookie = "shelfmark_member"

    static func register(_ web: any RoutesBuilder) {
        web.get(.publicCatalog(library: .pattern), use: catalog)
        web.get(.publicTitle(library: .pattern, title: .pattern), use: title)
        web.get(.publicWishlist(library: .pattern), use: PublicWishlistPage.show)
        web.post(.publicHold(library: .pattern, title: .pattern), use: placeHold)
        web.get(.publicSignIn(library: .pattern), use: signInPage)
        web.post(.publicSignIn(library: .pattern), use: signIn)
        web.post(.publicEmailLink(library: .pattern), use: emailLink)
        web.get(.publicLink(library: .pattern, token: "pattern"), use: linkPage)
        web.post(.publicLink(library: .pattern, token: "pattern"), use: redeemLink)
        web.get(.publicAccount(library: .pattern), use: account)
        web.post(.publicRenew(library: .pattern, loan: .pattern), use: renew)
        web.post(.publicHoldCancel(library: .pattern, hold: .pattern), use: cancelHold)
        web.post(.publicCalendar(library: .pattern), use: calendar)
        web.post(.publicSignOut(library: .pattern), use: signOut)
    }

    /// Search engines: nothing of the server, but the public catalogs whose library lets them in
    /// (their members' pages say `noindex` regardless).
    @Sendable static func robots(req: Request) async throws -> Response {
        let open = try await req.db.sql.raw("""
            SELECT id FROM libraries WHERE public_catalog = \(bind: true) AND catalog_indexable = \(bind: true) AND pending_job_id IS NULL
            """).all().map { try $0.decode(column: "id", as: UUID.self) }
        var lines = ["User-agent: *"]
        for id in open {
            let base = WebRoute.publicCatalog(library: id).path
            lines += ["Disallow: \(base)/account", "Disallow: \(base)/sign-in", "Allow: \(base)"]
        }
        lines.append("Disallow: /")
        var headers = HTTPHeaders()
        headers.contentType = .plainText
        headers.replaceOrAdd(name: .cacheControl, value: "max-age=3600")
        return Response(status: .ok, headers: headers, body: .init(string: lines.joined(separator: "\n") + "\n"))
    }

    // MARK: - Context

    /// The published library of the path, the member signed in to it (if any), and the page's context.
    struct Visit: Sendable {
        var library: MemberPortal.PublicLibrary
        var member: MemberPortal.SignedIn?
        var page: PageContext
    }

    static func visit(_ req: Request) async throws -> Visit {
        let library = try await MemberPortal.publicLibrary(try req.uuid("libraryID"), on: req.db)
        let member = try await MemberPortal.member(session: req.cookies[memberCookie]?.string, library: library.id, now: req.now, on: req.db)
        var page = try await req.page()
        page.t.timeZone = library.policy.timeZone
        page.portal = .init(libraryID: library.id, name: library.name, member: member?.name, indexable: library.indexable)
        return Visit(library: library, member: member, page: page)
    }

    /// A page of the catalog: indexable only when the library says so; never stored by a shared cache.
    static func respond(_ html: HTML, _ visit: Visit, req: Request, privatePage: Bool = false) async throws -> Response {
        let response = try await html.encodeResponse(for: req)
        if privatePage || !visit.library.indexable { response.headers.replaceOrAdd(name: "X-Robots-Tag", value: "noindex, nofollow") }
        response.headers.replaceOrAdd(name: .cacheControl, value: "private, no-store")
        if privatePage { response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer") }
        return response
    }

    static func setSession(_ token: String?, on response: Response, library: UUID, req: Request) {
        var cookie = req.cookie(token ?? "", maxAge: token == nil ? 0 : Int(MemberPortal.sessionLifetime), sameSite: .lax)
        cookie.path = WebRoute.publicCatalog(library: library).path
        response.cookies[memberCookie] = cookie
    }

    // MARK: - The catalog

    @Sendable static func catalog(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let q = req.query[String.self, at: "q"].map { String($0.prefix(200)) }
        let narrow = CatalogPage.Narrowing { req.query[String.self, at: $0] }
        let series = req.query[String.self, at: "series"].map { String($0.cleanedInput.prefix(300)) }.flatMap { $0.isEmpty ? nil : $0 }
        if let letter = req.query[String.self, at: "letter"].map({ String($0.prefix(2)) }), !letter.isEmpty {
            let start = try await PublicCatalogPage.page(ofSection: letter, q: q, narrow: narrow, series: series, library: visit.library.id,
                                                         now: req.now, on: req.db)
            let link = PublicCatalogPage.link(visit.library.id, q: q?.cleanedInput, page: start?.number ?? 1, seek: start?.start.map { .from($0) },
                                              narrow: narrow, series: series)
            return req.redirect(to: link + "#sec-" + (letter == "#" ? "num" : letter))
        }
        let page = try await PublicCatalogPage.make(q: q, paging: Paging(req.query[Int.self, at: "page"]),
                                                    seek: CatalogPage.seek(after: req.query["after"], before: req.query["before"],
                                                                           from: req.query["from"], end: req.query["end"]),
                                                    narrow: narrow, series: series, library: visit.library, now: req.now, on: req.db)
        return try await respond(page.render(visit.page), visit, req: req)
    }

    @Sendable static func title(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let page = try await PublicTitlePage.make(try req.uuid("titleID"), member: visit.member, library: visit.library, now: req.now, on: req.db)
        return try await respond(page.render(visit.page), visit, req: req)
    }

    @Sendable static func placeHold(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let titleID = try req.uuid("titleID")
        let book = WebRoute.publicTitle(library: visit.library.id, title: titleID).path
        guard let member = visit.member else {
            return req.redirect(to: WebRoute.publicSignIn(library: visit.library.id).path(query: [("next", book)]))
        }
        let t = visit.page.t
        return try await req.seeOther(book) {
            let hold = try await MemberPortal.placeHold(title: titleID, member: member,
                                                        in: MemberPortal.scope(member, library: visit.library, now: req.now, app: req.application))
            if hold.state == .ready, let by = hold.pickupBy { return t.format(.portalHoldReady, hold.title, t.date(by)) }
            return t.format(.portalHoldPlaced, t.number(hold.position ?? 1), hold.title)
        }
    }

    // MARK: - Signing in

    struct SignInForm: WebForm {
        var cardId: String?
        var pin: String?
        var next: String?
        static var maxLength: [String: Int] { ["cardId": 64, "pin": 64, "next": 500] }
    }

    /// Where to go after signing in: a page of this public catalog, else the account.
    static func next(_ raw: String?, library: UUID) -> String {
        let home = WebRoute.publicCatalog(library: library).path
        guard let raw, raw.hasPrefix(home), !raw.contains("//"), !raw.contains("\\") else { return WebRoute.publicAccount(library: library).path }
        return raw
    }

    @Sendable static func signInPage(req: Request) async throws -> Response {
        let visit = try await visit(req)
        if visit.member != nil { return req.redirect(to: WebRoute.publicAccount(library: visit.library.id).path) }
        return try await signInForm(req, visit, next: req.query[String.self, at: "next"].map { String($0.prefix(500)) }, form: FormState(),
                                    linkSent: req.query[String.self, at: "sent"] == "1")
    }

    /// The sign-in page (by PIN; by an emailed link when the library can send one).
    static func signInForm(_ req: Request, _ visit: Visit, next: String?, form: FormState, linkSent: Bool) async throws -> Response {
        let school = try await SchoolSignInSettings.load(on: req.db)
        let page = PublicSignInPage(library: visit.library, next: next, form: form, linkSent: linkSent,
                                    mailReady: try await MemberPortal.canSendLinks(visit.library, on: req.db),
                                    school: school.membersEnabled ? school.providerName : nil,
                                    pinOff: school.membersEnabled && school.passwordOff.contains(SchoolSignInSettings.memberRole))
        return try await respond(page.render(visit.page), visit, req: req, privatePage: true)
    }

    @Sendable static func signIn(req: Request) async throws -> Response {
        var visit = try await visit(req)
        let form = try req.form(SignInForm.self)
        do {
            let token = try await MemberPortal.signIn(library: visit.library.id, card: form.cardId ?? "", pin: form.pin ?? "",
                                                      address: req.clientAddress, now: req.now, passwords: req.passwordHashing,
                                                      gate: req.application.writeGate, on: req.db)
            let response = req.redirect(to: next(form.next, library: visit.library.id), redirectType: .normal)
            setSession(token, on: response, library: visit.library.id, req: req)
            return response
        } catch let error where error.isFormRefusal {
            var state = FormState(values: ["cardId": form.cardId ?? ""])
            state.errors["pin"] = visit.page.t.message(error)
            visit.page.flash = nil
            let response = try await signInForm(req, visit, next: form.next, form: state, linkSent: false)
            let answered = error.answered
            response.status = answered.status
            response.sayRetryAfter(answered)
            return response
        }
    }

    struct LinkForm: WebForm {
        var cardId: String?
        static var maxLength: [String: Int] { ["cardId": 64] }
    }

    @Sendable static func emailLink(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let back = WebRoute.publicSignIn(library: visit.library.id).path
        let form = try req.form(LinkForm.self)
        guard let origin = linkOrigin(req) else {
            req.logger.warning("public catalog: no sign-in link sent, the request came to \(req.headers.first(name: .host) ?? "?"), not one of this server's names (set SHELFMARK_PUBLIC_URL)")
            return req.seeOther(back, flash: visit.page.t(.portalLinkNoAddress), isError: true)
        }
        return try await req.seeOther(back + "?sent=1") {
            try await MemberPortal.requestLink(library: visit.library, card: form.cardId ?? "", address: req.clientAddress, origin: origin,
                                               now: req.now, app: req.application)
            return visit.page.t(.portalLinkSent)
        }
    }

    /// Where an emailed link points: `SHELFMARK_PUBLIC_URL`, else the address this request came to when it
    /// is this machine's (a forged `Host` must not put someone else's server in a member's sign-in link).
    static func linkOrigin(_ req: Request) -> String? {
        if let configured = req.application.publicURL { return configured }
        guard let header = req.headers.first(name: .host), let host = HostName(parsing: header),
              NetworkAddresses.isThisMachine(host) else { return nil }
        return (req.isSecureTransport ? "https://" : "http://") + host.description
    }

    /// The emailed link's page: a button that signs in (a mail scanner opening the link uses nothing up).
    @Sendable static func linkPage(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let token = req.parameters.get("token") ?? ""
        let live = try await MemberPortal.linkIsLive(token, library: visit.library.id, now: req.now, on: req.db)
        let page = PublicLinkPage(library: visit.library, token: token, live: live)
        let response = try await respond(page.render(visit.page), visit, req: req, privatePage: true)
        return response
    }

    @Sendable static func redeemLink(req: Request) async throws -> Response {
        let visit = try await visit(req)
        let token = req.parameters.get("token") ?? ""
        do {
            let session = try await MemberPortal.redeem(link: token, library: visit.library.id, now: req.now, gate: req.application.writeGate, on: req.db)
            let response = req.seeOther(WebRoute.publicAccount(library: visit.library.id).path)
            setSession(session, on: response, library: visit.library.id, req: req)
            return response
        } catch let error as PortalError {
            return req.seeOther(WebRoute.publicSignIn(library: visit.library.id).path, flash: visit.page.t.message(error), isError: true)
        }
    }

    @Sendable static func signOut(req: Request) async throws -> Response {
        let visit = try await visit(req)
        if let token = req.cookies[memberCookie]?.string { try await MemberPortal.signOut(session: token, gate: req.application.writeGate, on: req.db) }
        let response = req.seeOther(WebRoute.publicCatalog(library: visit.library.id).path, flash: visit.page.t(.portalSignedOut))
        setSession(nil, on: response, library: visit.library.id, req: req)
        return response
    }

    // MARK: - The member's account

    @Sendable static func account(req: Request) async throws -> Response {
        let visit = try await visit(req)
        guard let member = visit.member else {
            // Signed out (or the session ended): the sign-in form, here, coming back to this page.
            return try await signInForm(req, visit, next: req.url.path, form: FormState(), linkSent: false)
        }
        let account = try await MemberPortal.account(member, library: visit.library, now: req.now, on: req.db)
        let page = PublicAccountPage(library: visit.library, member: member, account: account, newCalendar: HoldPages.newCalendarLink(req))
        let response = try await respond(page.render(visit.page), visit, req: req, privatePage: true)
        if response.cookies[HoldPages.newCalendarCookie] == nil, req.cookies[HoldPages.newCalendarCookie] != nil {
            response.cookies[HoldPages.newCalendarCookie] = req.cookie("", maxAge: 0)
        }
        return response
    }

    /// A member's form sent after their session ended: to the sign-in page, coming back to their account.
    static func signInFirst(_ req: Request, _ visit: Visit) -> Response {
        let back = WebRoute.publicAccount(library: visit.library.id).path
        return req.seeOther(WebRoute.publicSignIn(library: visit.library.id).path(query: [("next", back)]),
                            flash: visit.page.t(.errPortalSignedOut), isError: true)
    }

    /// A member's form: runs `body` for the signed-in member and goes back to the account with what it says.
    static func memberAction(_ req: Request, anchor: String,
                             _ body: @escaping (Visit, MemberPortal.SignedIn, Scope) async throws -> String) async throws -> Response {
        let visit = try await visit(req)
        let back = WebRoute.publicAccount(library: visit.library.id).path
        guard let member = visit.member else { return signInFirst(req, visit) }
        let scope = MemberPortal.scope(member, library: visit.library, now: req.now, app: req.application)
        return try await req.seeOther(back + anchor) { try await body(visit, member, scope) }
    }

    @Sendable static func renew(req: Request) async throws -> Response {
        let loanID = try req.uuid("loanID")
        return try await memberAction(req, anchor: "#loans") { visit, member, scope in
            let loan = try await MemberPortal.renew(loanID, member: member, in: scope)
            return visit.page.t.format(.portalRenewed, loan.title, visit.page.t.date(loan.dueAt))
        }
    }

    @Sendable static func cancelHold(req: Request) async throws -> Response {
        let holdID = try req.uuid("holdID")
        return try await memberAction(req, anchor: "#holds") { visit, member, scope in
            let hold = try await MemberPortal.cancelHold(holdID, member: member, in: scope)
            return visit.page.t.format(.portalHoldCancelled, hold.title)
        }
    }

    /// The member's own calendar link: the staff's action, in the member's scope.
    @Sendable static func calendar(req: Request) async throws -> Response {
        let visit = try await visit(req)
        guard let member = visit.member else { return signInFirst(req, visit) }
        return try await HoldPages.calendar(req, scope: MemberPortal.scope(member, library: visit.library, now: req.now, app: req.application),
                                            member: member.id, back: WebRoute.publicAccount(library: visit.library.id).path + "#calendar")
    }
}
