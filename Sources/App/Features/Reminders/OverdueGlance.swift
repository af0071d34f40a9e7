import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Overdue at a glance: overdue loans grouped by member, the most overdue first, with the
/// days overdue and the last reminder sent, for the dashboard and the Loans page (one tap reminds).
enum OverdueGlance {
    static func members(library: UUID, policy: LoanPolicy, now: Date, limit: Int, on db: any Database) async throws -> [OverdueMemberDTO] {
        struct Row: Decodable {
            var id: UUID; var member_id: UUID; var title_text: String; var due_at: Date
            var card_id: String; var first_name: String; var last_name: String; var email: String?
        }
        // The members with the oldest overdue loans first, at most `limit` of them, then all their overdue loans.
        let rows = try await db.sql.raw("""
            SELECT l.id, l.member_id, l.title_text, l.due_at, m.card_id, m.first_name, m.last_name, m.email
            FROM loans l JOIN members m ON m.id = l.member_id
            WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.returned_at IS NULL AND l.due_at < \(bind: now)
              AND l.member_id IN (SELECT o.member_id FROM loans o WHERE \(LibraryNumber.rows(of: "loans", library, alias: "o")) AND o.returned_at IS NULL
                                  AND o.due_at < \(bind: now) AND o.member_id IS NOT NULL
                                  GROUP BY o.member_id ORDER BY MIN(o.due_at) LIMIT \(unsafeRaw: String(max(1, min(limit, 500)))))
            ORDER BY l.due_at, l.title_text
            """).all(decoding: Row.self)
        let calendar = policy.calendar
        func days(_ due: Date) -> Int {
            max(1, calendar.dateComponents([.day], from: calendar.startOfDay(for: due), to: calendar.startOfDay(for: now)).day ?? 1)
        }
        var order: [UUID] = []
        var groups: [UUID: OverdueMemberDTO] = [:]
        for row in rows {
            let loan = OverdueMemberDTO.Loan(loanId: row.id, title: row.title_text, dueAt: row.due_at, daysOverdue: days(row.due_at))
            if groups[row.member_id] == nil {
                order.append(row.member_id)
                groups[row.member_id] = OverdueMemberDTO(memberId: row.member_id, cardId: row.card_id,
                                                         name: Member.fullName(first: row.first_name, last: row.last_name),
                                                         hasEmail: row.email.map(MailAddress.isValid) ?? false, daysOverdue: loan.daysOverdue,
                                                         loans: [], lastReminder: nil)
            }
            groups[row.member_id]!.loans.append(loan)
        }
        let reminded = try await Reminders.lastReminded(order, library: library, on: db)
        return order.map { id in
            var group = groups[id]!
            group.lastReminder = reminded[id]
            return group
        }
    }

    /// How many members with overdue loans have no email address (their letters are printed).
    static func withoutEmail(library: UUID, now: Date, on db: any Database) async throws -> Int {
        struct Count: Decodable { var n: Int }
        return try await db.sql.raw("""
            SELECT COUNT(DISTINCT l.member_id) AS n FROM loans l JOIN members m ON m.id = l.member_id
            WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.returned_at IS NULL AND l.due_at < \(bind: now) AND (m.email IS NULL OR m.email = '')
            """).first(decoding: Count.self)?.n ?? 0
    }
}
