import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Due dates in a phone's calendar: a secret, revocable link per member (their open
/// loans) and one for the library's staff (every open loan). The token is shown once and kept only as
/// its hash; a new link replaces the old one. Each loan is one all-day event on its due day (in the
/// library's time zone), its UID the loan's id, its SEQUENCE the renewals (a renewal moves it); a
/// returned loan is no longer in the feed, so the event goes.
enum CalendarFeeds {
    /// Makes the link of `member` (nil: the staff feed) and returns its token.
    static func make(member: UUID?, lang: Lang, in scope: Scope) async throws -> String {
        if let member { _ = try await Members.find(member, library: scope.libraryID, on: scope.db) }
        let token = Credential.newLinkToken()
        try await scope.gate.transaction(on: scope.db) { db in
            try await delete(member: member, libraryID: scope.libraryID, on: db)
            try await db.sql.raw("""
                INSERT INTO calendar_feeds (id, library_id, member_id, token_hash, lang, created_at, made_by)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: member), \(bind: Credential.hash(token)), \(bind: lang.rawValue),
                        \(bind: scope.now), \(bind: member == nil ? scope.library.user.id : nil))
                """).run()
        }
        return token
    }

    static func stop(member: UUID?, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in try await delete(member: member, libraryID: scope.libraryID, on: db) }
    }

    private static func delete(member: UUID?, libraryID: UUID, on db: any Database) async throws {
        let which: SQLQueryString = member.map { "member_id = \(bind: $0)" } ?? "member_id IS NULL"
        try await db.sql.raw("DELETE FROM calendar_feeds WHERE library_id = \(bind: libraryID) AND " + which).run()
    }

    /// When the link of `member` (nil: the staff feed) was made; nil when there is none.
    static func since(member: UUID?, libraryID: UUID, on db: any Database) async throws -> Date? {
        let which: SQLQueryString = member.map { "member_id = \(bind: $0)" } ?? "member_id IS NULL"
        return try await db.sql.raw("SELECT created_at FROM calendar_feeds WHERE library_id = \(bind: libraryID) AND " + which)
            .first()?.decode(column: "created_at", as: Date.self)
    }

    /// The feed behind a token, or nil (an unknown or stopped link).
    static func feed(token raw: String, app: Application, now: Date) async throws -> String? {
        let token = raw.hasSuffix(".ics") ? String(raw.dropLast(4)) : raw
        guard Credential.isLinkToken(token) else { return nil }
        struct Feed: Decodable {
            var library_id: UUID; var member_id: UUID?; var lang: String; var name: String; var time_zone: String?
            var first_name: String?; var last_name: String?
        }
        guard let feed = try await app.db.sql.raw("""
            SELECT f.library_id, f.member_id, f.lang, l.name, l.time_zone, m.first_name, m.last_name FROM calendar_feeds f
            JOIN libraries l ON l.id = f.library_id LEFT JOIN members m ON m.id = f.member_id
            WHERE f.token_hash = \(bind: Credential.hash(token)) AND l.pending_job_id IS NULL
              AND (f.member_id IS NOT NULL OR f.made_by IS NULL OR EXISTS (
                SELECT 1 FROM memberships s WHERE s.user_id = f.made_by AND s.library_id = f.library_id
                  AND s.role IN (\(binds: Role.allCases.filter { $0.may(.circulate) }.map(\.rawValue)))))
            """).first(decoding: Feed.self) else { return nil }
        let t = Strings(lang: Lang(rawValue: feed.lang) ?? .en, timeZone: Library.zone(feed.time_zone))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Library.zone(feed.time_zone)
        struct Open: Decodable { var id: UUID; var title_text: String; var member_name: String; var member_card_id: String; var due_at: Date; var renewals: Int }
        let which: SQLQueryString = feed.member_id.map { " AND member_id = \(bind: $0)" } ?? ""
        let loans = try await app.db.sql.raw("""
            SELECT id, title_text, member_name, member_card_id, due_at, renewals FROM loans
            WHERE \(LibraryNumber.rows(of: "loans", feed.library_id)) AND returned_at IS NULL
            """ + which + " ORDER BY due_at, id LIMIT 5000").all(decoding: Open.self)
        let events = loans.map { loan in
            let day = calendar.dateComponents([.year, .month, .day], from: loan.due_at)
            let summary = feed.member_id == nil
                ? t.format(.calendarDueStaff, loan.title_text, loan.member_name, loan.member_card_id)
                : t.format(.calendarDue, loan.title_text)
            return ICalendar.Event(uid: "loan-\(loan.id.uuidString.lowercased())@shelfmark", year: day.year!, month: day.month!, day: day.day!,
                                   summary: summary, description: t.format(.calendarDueDetail, feed.name), sequence: loan.renewals)
        }
        let name = feed.member_id == nil ? t.format(.calendarStaffName, feed.name)
            : t.format(.calendarMemberName, feed.name, Member.fullName(first: feed.first_name ?? "", last: feed.last_name ?? ""))
        return ICalendar(name: name, events: events, stamp: now).render()
    }
}
