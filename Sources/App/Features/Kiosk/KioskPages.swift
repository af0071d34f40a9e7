import Crypto
import Fluent
import Foundation
import Plot
import ShelfmarkCore
import Vapor

/// The self-service kiosk's pages (`Services/Kiosks.swift`). A librarian starts kiosk mode on
/// a tablet (they are signed out on it at once, so the tablet reaches no staff page); the start screen
/// takes a card (a wedge scanner types it and Enter), the member's screen takes books and speaks the
/// member's language, and returns to the start by itself after `Kiosks.idle` seconds. Only a
/// librarian's username and password end kiosk mode.
enum KioskPages {
    static func register(_ web: any RoutesBuilder) {
        web.get(.kioskSetup(library: .pattern), use: setup)
        web.post(.kioskSetup(library: .pattern), use: start)
        web.get(.kiosk(library: .pattern), use: startScreen)
        web.post(.kiosk(library: .pattern), use: card)
        web.get(.kioskMember(library: .pattern), use: memberScreen)
        web.post(.kioskMember(library: .pattern), use: scan)
        web.get(.kioskEnd(library: .pattern), use: endForm)
        web.post(.kioskEnd(library: .pattern), use: end)
    }

    // MARK: - Starting (staff)

    @Sendable static func setup(req: Request) async throws -> HTML {
        let ctx = try await req.library(.manageMembers)
        return KioskSetupPage(libraryID: ctx.libraryID, kiosks: try await Kiosks.list(in: req.scope(ctx))).render(try await req.page(library: ctx))
    }

    struct StartForm: WebForm {
        /// A kiosk of the list to end, instead of making this device one.
        var end: String?
        static var maxLength: [String: Int] { ["end": 40] }
    }

    @Sendable static func start(req: Request) async throws -> Response {
        let ctx = try await req.library(.manageMembers)
        if let end = try req.form(StartForm.self).end, !end.isEmpty {
            guard let id = UUID(uuidString: end) else { throw RequestError.notAnID(field: "end", got: String(end.prefix(40))) }
            return try await req.seeOther(WebRoute.kioskSetup(library: ctx.libraryID).path + "#kiosks") {
                try await Kiosks.remove(id, in: req.scope(ctx))
                return req.t(.kioskRemoved)
            }
        }
        let token = try await Kiosks.start(in: req.scope(ctx))
        let response = req.redirect(to: WebRoute.kiosk(library: ctx.libraryID).path, redirectType: .normal)
        response.cookies[Kiosks.cookie] = kioskCookie(token, library: ctx.libraryID, req: req)
        // The tablet is the members' now: the librarian is signed out on it.
        if let session = req.cookieSession {
            try await Accounts.logout(token: session, gate: req.application.writeGate, on: req.db)
            response.cookies[Credential.cookieName] = req.cookie("", maxAge: 0)
        }
        return response
    }

    static func kioskCookie(_ token: String, library: UUID, req: Request) -> HTTPCookies.Value {
        var cookie = req.cookie(token, maxAge: token.isEmpty ? 0 : 365 * 86_400, sameSite: .lax)
        cookie.path = WebRoute.kiosk(library: library).path
        return cookie
    }

    // MARK: - Context

    struct Visit {
        var kiosk: Kiosks.Kiosk
        var page: PageContext
    }

    /// The kiosk this device is, with the page's context; nil when it is not one (the page says so).
    static func visit(_ req: Request) async throws -> Visit? {
        let libraryID = try req.uuid("libraryID")
        guard let kiosk = try await Kiosks.kiosk(token: req.cookies[Kiosks.cookie]?.string, library: libraryID, now: req.now,
                                                     gate: req.application.writeGate, on: req.db) else { return nil }
        var page = try await req.page()
        page.t.timeZone = kiosk.policy.timeZone
        page.kiosk = .init(id: kiosk.libraryID, name: kiosk.name)
        return Visit(kiosk: kiosk, page: page)
    }

    static func notHere(_ req: Request) async throws -> Response {
        var page = try await req.page()
        page.kiosk = nil
        let html = KioskNotHerePage(libraryID: try req.uuid("libraryID")).render(page)
        return try await html.encodeResponse(for: req)
    }

    static func respond(_ html: HTML, req: Request) async throws -> Response {
        let response = try await html.encodeResponse(for: req)
        response.headers.replaceOrAdd(name: "X-Robots-Tag", value: "noindex, nofollow")
        return response
    }

    // MARK: - A member's turn

    /// The member whose turn it is (their card scanned less than `Kiosks.idle` seconds since the last scan).
    static func currentMember(_ req: Request, kiosk: Kiosks.Kiosk) async throws -> Kiosks.Member? {
        guard let raw = req.cookies[Kiosks.memberCookie]?.string,
              let value = Flash.message(in: raw, session: try turnKey(kiosk: kiosk.id, req: req)) else { return nil }
        let parts = value.split(separator: "|")
        guard parts.count == 2, let id = UUID(uuidString: String(parts[0])), let until = Double(parts[1]),
              Date(timeIntervalSince1970: until) > req.now else { return nil }
        return try await Kiosks.member(id: id, kiosk: kiosk, on: req.db)
    }

    /// What a member's turn is signed with: a key of this server (from its secret key) and this kiosk,
    /// nothing the device holds, so no cookie the device makes can start someone's turn.
    static func turnKey(kiosk: UUID, req: Request) throws -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(("kiosk-turn:" + kiosk.uuidString).utf8), using: try req.application.secretBox().key)
        return Credential.base64url(Data(mac))
    }

    static func memberCookie(_ member: UUID?, kiosk: UUID? = nil, req: Request) -> HTTPCookies.Value {
        guard let member, let kiosk, let key = try? turnKey(kiosk: kiosk, req: req),
              let value = Flash.value("\(member.uuidString)|\(Int(req.now.timeIntervalSince1970 + Kiosks.idle))", session: key) else {
            return req.cookie("", maxAge: 0)
        }
        return req.cookie(value, maxAge: Int(Kiosks.idle), sameSite: .strict)
    }

    /// The member's language (theirs, else the library's): the member's screen and its messages.
    static func strings(for member: Kiosks.Member, kiosk: Kiosks.Kiosk, req: Request) -> Strings {
        let code = member.language ?? kiosk.language
        let lang = req.application.languages.first { $0.rawValue == code } ?? req.lang
        return Strings(lang: lang, timeZone: kiosk.policy.timeZone)
    }

    struct CardForm: WebForm {
        var card: String?
        var pin: String?
        static var maxLength: [String: Int] { ["card": 64, "pin": 64] }
    }

    struct ScanForm: WebForm {
        var barcode: String?
        static var maxLength: [String: Int] { ["barcode": 64] }
    }

    @Sendable static func startScreen(req: Request) async throws -> Response {
        guard let visit = try await visit(req) else { return try await notHere(req) }
        let response = try await respond(KioskStartPage(kiosk: visit.kiosk, error: nil).render(visit.page), req: req)
        if req.cookies[Kiosks.memberCookie] != nil { response.cookies[Kiosks.memberCookie] = memberCookie(nil, req: req) }
        return response
    }

    @Sendable static func card(req: Request) async throws -> Response {
        guard let visit = try await visit(req) else { throw KioskError.notAKiosk }
        let form = try req.form(CardForm.self)
        do {
            let member = visit.kiosk.asksPIN
                ? try await Kiosks.member(card: form.card ?? "", pin: form.pin ?? "", kiosk: visit.kiosk, address: req.clientAddress, now: req.now,
                                          passwords: req.passwordHashing, gate: req.application.writeGate, on: req.db)
                : try await Kiosks.member(card: form.card ?? "", kiosk: visit.kiosk, on: req.db)
            let response = req.redirect(to: WebRoute.kioskMember(library: visit.kiosk.libraryID).path, redirectType: .normal)
            response.cookies[Kiosks.memberCookie] = memberCookie(member.id, kiosk: visit.kiosk.id, req: req)
            return response
        } catch let error where error.isFormRefusal {
            let response = try await respond(KioskStartPage(kiosk: visit.kiosk, error: visit.page.t.message(error)).render(visit.page), req: req)
            let answered = error.answered
            response.status = answered.status
            response.sayRetryAfter(answered)
            return response
        }
    }

    @Sendable static func memberScreen(req: Request) async throws -> Response {
        guard var visit = try await visit(req) else { return try await notHere(req) }
        guard let member = try await currentMember(req, kiosk: visit.kiosk) else {
            return req.redirect(to: WebRoute.kiosk(library: visit.kiosk.libraryID).path)
        }
        visit.page.t = strings(for: member, kiosk: visit.kiosk, req: req)
        visit.page.returnAfter = (Int(Kiosks.idle), WebRoute.kiosk(library: visit.kiosk.libraryID).path)
        let loans = try await Circulation.activeLoans(libraryID: visit.kiosk.libraryID, overdueOnly: false, memberID: member.id, now: req.now,
                                                      limit: 200, offset: 0, on: req.db)
        return try await respond(KioskMemberPage(kiosk: visit.kiosk, member: member, loans: loans).render(visit.page), req: req)
    }

    @Sendable static func scan(req: Request) async throws -> Response {
        guard let visit = try await visit(req) else { throw KioskError.notAKiosk }
        let back = WebRoute.kioskMember(library: visit.kiosk.libraryID).path
        guard let member = try await currentMember(req, kiosk: visit.kiosk) else {
            return req.seeOther(WebRoute.kiosk(library: visit.kiosk.libraryID).path)
        }
        let t = strings(for: member, kiosk: visit.kiosk, req: req)
        let barcode = try req.form(ScanForm.self).barcode ?? ""
        let response: Response
        do {
            switch try await Kiosks.scan(barcode, member: member, kiosk: visit.kiosk, now: req.now, app: req.application) {
            case .borrowed(let loan): response = req.seeOther(back, flash: t.format(.kioskBorrowed, loan.title, t.date(loan.dueAt)))
            case .returned(let loan): response = req.seeOther(back, flash: t.format(.kioskReturned, loan.title))
            }
        } catch let error where error.isFormRefusal || error is KioskError {
            response = req.seeOther(back, flash: t.message(error), isError: true)
        }
        response.cookies[Kiosks.memberCookie] = memberCookie(member.id, kiosk: visit.kiosk.id, req: req)
        return response
    }

    // MARK: - Ending (a librarian)

    struct EndForm: WebForm {
        var username: String?
        var password: String?
        static var maxLength: [String: Int] { ["username": 64, "password": 200] }
    }

    @Sendable static func endForm(req: Request) async throws -> Response {
        guard let visit = try await visit(req) else { return try await notHere(req) }
        return try await respond(KioskEndPage(kiosk: visit.kiosk, form: FormState()).render(visit.page), req: req)
    }

    @Sendable static func end(req: Request) async throws -> Response {
        guard let visit = try await visit(req) else { throw KioskError.notAKiosk }
        let form = try req.form(EndForm.self)
        do {
            try await Kiosks.end(visit.kiosk, username: form.username ?? "", password: form.password ?? "", address: req.clientAddress,
                                 now: req.now, passwords: req.passwordHashing, gate: req.application.writeGate, on: req.db)
        } catch let error where error.isFormRefusal || error is KioskError {
            var state = FormState(values: ["username": form.username ?? ""])
            state.errors["password"] = visit.page.t.message(error)
            let response = try await respond(KioskEndPage(kiosk: visit.kiosk, form: state).render(visit.page), req: req)
            response.status = error.answered.status
            return response
        }
        let response = req.seeOther(WebRoute.login.path(query: [("next", WebRoute.kioskSetup(library: visit.kiosk.libraryID).path)]),
                                    flash: visit.page.t(.kioskEnded))
        response.cookies[Kiosks.cookie] = kioskCookie("", library: visit.kiosk.libraryID, req: req)
        response.cookies[Kiosks.memberCookie] = memberCookie(nil, req: req)
        return response
    }
}
