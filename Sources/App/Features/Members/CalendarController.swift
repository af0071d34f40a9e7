import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Due dates in a calendar: secret, revocable iCalendar links for a member and for the
/// library's staff, and the feed itself (no sign-in: the link is the key).
enum CalendarController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        lib.on(.POST, "members", ":memberID", "calendar", doc: .init(
            summary: "Make the member's calendar link (their open loans on their due dates); a new link replaces the old one. The link is answered once: only its hash is kept",
            tag: "Calendar", response: CalendarLink.self, status: .created), use: makeMember)
        lib.on(.DELETE, "members", ":memberID", "calendar", doc: .init(summary: "Stop the member's calendar link", tag: "Calendar",
                                                                        status: .noContent), use: stopMember)
        lib.on(.POST, "calendar", doc: .init(
            summary: "Make the staff's calendar link (every open loan on its due date); a new link replaces the old one",
            tag: "Calendar", response: CalendarLink.self, status: .created), use: makeStaff)
        lib.on(.DELETE, "calendar", doc: .init(summary: "Stop the staff's calendar link", tag: "Calendar", status: .noContent), use: stopStaff)
        api.on(.GET, "public", "calendar", ":token", doc: .init(
            summary: "An iCalendar feed (text/calendar, RFC 5545) behind a secret link: one all-day event per open loan on its due day, UID the loan, SEQUENCE its renewals; 404 for an unknown or stopped link",
            tag: "Calendar", authenticated: false), use: feed)
    }

    @Sendable static func makeMember(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let token = try await CalendarFeeds.make(member: try req.uuid("memberID"), lang: req.lang, in: req.scope(ctx))
        return try await req.created(CalendarLink(token: token, req: req))
    }

    @Sendable static func stopMember(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.circulate)
        try await CalendarFeeds.stop(member: try req.uuid("memberID"), in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func makeStaff(req: Request) async throws -> Response {
        let ctx = try await req.library(.circulate)
        let token = try await CalendarFeeds.make(member: nil, lang: req.lang, in: req.scope(ctx))
        return try await req.created(CalendarLink(token: token, req: req))
    }

    @Sendable static func stopStaff(req: Request) async throws -> HTTPStatus {
        let ctx = try await req.library(.circulate)
        try await CalendarFeeds.stop(member: nil, in: req.scope(ctx))
        return .noContent
    }

    @Sendable static func feed(req: Request) async throws -> Response {
        guard let text = try await CalendarFeeds.feed(token: req.parameters.get("token") ?? "", app: req.application, now: req.now) else {
            throw EdgeError.calendarGone
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "text/calendar; charset=utf-8")
        headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=300")
        headers.replaceOrAdd(name: "X-Robots-Tag", value: "noindex")
        return Response(status: .ok, headers: headers, body: .init(string: text))
    }
}

/// A calendar link, answered once: the feed's address, and the same as `webcal://` (which phones open
/// in their calendar app).
struct CalendarLink: Content {
    var url: String
    var webcalUrl: String

    init(token: String, req: Request) {
        url = CalendarLink.origin(req) + "/api/v1/public/calendar/\(token).ics"
        webcalUrl = url.replacingOccurrences(of: #"^https?://"#, with: "webcal://", options: .regularExpression)
    }

    /// Where this server was reached (`Host`), as the reading page's shared-year link does.
    static func origin(_ req: Request) -> String { ReadingPages.origin(req) }
}
