import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Reminders: the library's policy, the daily run that composes one message per member with
/// loans at a new stage (all their loans due soon or overdue, listed in one message, in the member's
/// language), and "remind now" for one member. Messages are queued in the run's transaction together
/// with the loans' new stages, then handed to the mail server by `Mailer` over one connection.
enum Reminders {
    static let maxContact = 300

    // MARK: Settings

    static func settings(library: UUID, on db: any Database) async throws -> ReminderSettingsDTO {
        guard let row = try await Library.find(library, on: db) else { throw AccountError.libraryNotFound }
        let policy = row.reminderPolicy
        return ReminderSettingsDTO(enabled: policy.on, hour: policy.hour, beforeDays: policy.beforeDays, overdueDays: policy.overdueDays,
                                   language: row.language, contact: row.contact,
                                   mailServer: try await MailServers.effective(library: library, on: db)?.dto)
    }

    static func update(_ patch: ReminderSettingsPatch, languages: [Lang], in scope: Scope) async throws -> ReminderSettingsDTO {
        let hour = try Check.range(patch.hour, ReminderPolicy.hourRange, field: "hour")
        let before = try Check.range(patch.beforeDays, 0...ReminderPolicy.beforeRange.upperBound, field: "beforeDays")
        let overdue = try patch.overdueDays.map(checkOverdue)
        if let code = patch.language, !languages.contains(where: { $0.rawValue == code }) {
            throw MailError.unknownLanguage(String(code.prefix(20)))
        }
        let contact = try patch.contact.map { try Check.optional($0, field: "contact", max: maxContact) }
        try await scope.gate.transaction(on: scope.db) { db in
            guard let library = try await Library.find(scope.libraryID, on: db) else { throw AccountError.libraryNotFound }
            if let enabled = patch.enabled {
                if enabled, try await MailServers.effective(library: scope.libraryID, on: db) == nil { throw MailError.noServer }
                library.remindersOn = enabled
            }
            if let hour { library.reminderHour = hour }
            if let before { library.remindBeforeDays = before == 0 ? nil : before }
            if let overdue {
                library.remindOverdue1 = overdue.count > 0 ? overdue[0] : nil
                library.remindOverdue2 = overdue.count > 1 ? overdue[1] : nil
                library.remindOverdue3 = overdue.count > 2 ? overdue[2] : nil
            }
            if let code = patch.language { library.language = code }
            if let contact { library.contact = contact }
            try await library.save(on: db)
            try await ActivityLog.record(.init(type: .editLibrary, info: "reminders"), library: scope.library, at: scope.now, on: db)
        }
        return try await settings(library: scope.libraryID, on: scope.db)
    }

    /// Up to three overdue days, each in range, each after the one before.
    static func checkOverdue(_ days: [Int]) throws -> [Int] {
        guard days.count <= 3 else { throw InputProblem.outOfRange(field: "overdueDays", min: 0, max: 3, got: days.count) }
        for (i, day) in days.enumerated() { _ = try Check.range(day, ReminderPolicy.overdueRange, field: "overdueDays\(i + 1)") }
        do {
            return try ReminderPolicy.checkOverdue(days)
        } catch {
            switch error { case .overdueNotIncreasing(let field): throw MailError.overdueNotIncreasing(field: field) }
        }
    }

    // MARK: Composing

    /// An open loan of a member, as a reminder lists it.
    struct OpenLoan: Decodable, Sendable {
        var id: UUID
        var member_id: UUID
        var due_at: Date
        var reminder_stage: Int
        var title_text: String
        var authors: [String]?
        var card_id: String
        var first_name: String
        var last_name: String
        var email: String?
        var language: String?
    }

    /// The library as a run needs it.
    struct Sender: Sendable {
        var id: UUID
        var name: String
        var contact: String
        var language: String
        var policy: ReminderPolicy
        var loans: LoanPolicy
    }

    static func sender(_ library: UUID, on db: any Database) async throws -> Sender {
        guard let row = try await Library.find(library, on: db) else { throw AccountError.libraryNotFound }
        return Sender(id: library, name: row.name, contact: row.contact ?? "", language: row.language, policy: row.reminderPolicy, loans: row.policy)
    }

    /// The open loans of the library's members that are due within `days` or overdue (one member's when given).
    static func openLoans(library: UUID, before: Date, member: UUID? = nil, on db: any Database) async throws -> [OpenLoan] {
        let memberCondition: SQLQueryString = member.map { "AND l.member_id = \(bind: $0)" } ?? ""
        return try await db.sql.raw("""
            SELECT l.id, l.member_id, l.due_at, l.reminder_stage, l.title_text, t.authors, m.card_id, m.first_name, m.last_name, m.email, m.language
            FROM loans l JOIN members m ON m.id = l.member_id LEFT JOIN titles t ON t.id = l.title_id
            WHERE \(LibraryNumber.rows(of: "loans", library, alias: "l")) AND l.returned_at IS NULL AND l.due_at < \(bind: before) \(memberCondition)
            ORDER BY l.member_id, l.due_at, l.title_text
            """).all(decoding: OpenLoan.self)
    }

    /// The language a member is written to in.
    static func language(_ code: String?, library: Sender, among languages: [Lang]) -> Lang {
        code.flatMap { c in languages.first { $0.rawValue == c } } ?? languages.first { $0.rawValue == library.language } ?? .en
    }

    /// One message for a member: the template of `kind` filled with their loans.
    static func compose(kind: MailKind, loans: [OpenLoan], lang: Lang, library: Sender,
                        templates: [MailTemplates.Key: MailTemplates.Text], now: Date) -> (subject: String, body: String) {
        let t = Strings(lang: lang, timeZone: library.loans.timeZone)
        let calendar = library.loans.calendar
        let lines = loans.map { loan -> String in
            let author = (loan.authors ?? []).joined(separator: ", ")
            let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: loan.due_at), to: calendar.startOfDay(for: now)).day ?? 0
            var line = loan.due_at < now && days > 0
                ? t.format(.mailLoanOverdue, loan.title_text, author, t.date(loan.due_at), t(.daysOverdue, days))
                : t.format(.mailLoanDue, loan.title_text, author, t.date(loan.due_at))
            if author.isEmpty { line = line.replacingOccurrences(of: " ()", with: "").replacingOccurrences(of: "（）", with: "") }
            return line
        }
        let first = loans[0]
        let text = templates[.init(kind: kind, language: lang.rawValue)] ?? MailTemplates.defaultText(kind, t)
        return MailTemplates.render(text, [
            "first_name": first.first_name.isEmpty ? Member.fullName(first: first.first_name, last: first.last_name) : first.first_name,
            "name": Member.fullName(first: first.first_name, last: first.last_name),
            "library": library.name, "contact": library.contact, "loans": lines.joined(separator: "\n"), "count": t.number(loans.count),
        ])
    }

    struct Composed: Sendable {
        var queued: [UUID] = []
        var withoutEmail = 0
    }

    /// The run's first half, in one transaction: for each member with a loan at a new stage, one
    /// message listing all their loans due soon or overdue, queued; each listed loan's stage moves on.
    /// A member without email is counted (their letter is printed) and their loans keep their stage.
    static func compose(library: UUID, now: Date, languages: [Lang], actor: String, member: UUID? = nil, force: Bool = false,
                        gate: WriteGate, on db: any Database) async throws -> Composed {
        try await gate.transaction(on: db) { db in
            // One composition per library at a time (PostgreSQL: the library's row locked), so two runs
            // at once — two instances, a run and "remind now" — never both see a loan's old stage.
            try await Dialect.lockRow("libraries", id: library, on: db)
            let sender = try await sender(library, on: db)
            guard sender.policy.on || force else { return Composed() }
            let horizon = sender.loans.calendar.date(byAdding: .day, value: (sender.policy.beforeDays ?? 0) + 1,
                                                     to: sender.loans.calendar.startOfDay(for: now))!
            let loans = try await openLoans(library: library, before: horizon, member: member, on: db)
            let templates = try await MailTemplates.texts(library: library, on: db)
            var composed = Composed()
            for (_, group) in Dictionary(grouping: loans, by: \.member_id).sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                let stages = group.map { loan in
                    let stage = sender.policy.stage(dueAt: loan.due_at, now: now, calendar: sender.loans.calendar)
                    // Reminded by hand, an overdue loan is overdue whatever reminders the policy sends.
                    return force && loan.due_at < now ? max(stage, .overdue1) : stage
                }
                let listed = zip(group, stages).filter { $0.1 != .none }
                guard !listed.isEmpty else { continue }
                let fresh = listed.filter { $0.1.rawValue > $0.0.reminder_stage }
                guard force || !fresh.isEmpty else { continue }
                let top = (force ? listed : fresh).map(\.1).max()!
                let first = group[0]
                guard let email = first.email, MailAddress.isValid(email) else {
                    composed.withoutEmail += 1
                    continue
                }
                let lang = language(first.language, library: sender, among: languages)
                let message = compose(kind: MailKind(top), loans: listed.map(\.0), lang: lang, library: sender,
                                      templates: templates, now: now)
                let id = try await Mailer.queue(.init(kind: MailKind(top), memberID: first.member_id, cardID: first.card_id,
                                                      name: Member.fullName(first: first.first_name, last: first.last_name), recipient: email,
                                                      language: lang.rawValue, subject: message.subject, body: message.body, loanCount: listed.count),
                                                library: library, createdBy: actor, now: now, on: db)
                composed.queued.append(id)
                for (loan, stage) in listed where stage.rawValue > loan.reminder_stage {
                    try await db.sql.raw("UPDATE loans SET reminder_stage = \(bind: stage.rawValue), reminded_at = \(bind: now) WHERE id = \(bind: loan.id)").run()
                }
                if force {
                    try await db.sql.raw("UPDATE loans SET reminded_at = \(bind: now) WHERE id IN (\(binds: listed.map(\.0.id)))").run()
                }
            }
            return composed
        }
    }

    /// Inside the transaction that sets a copy aside: the member is told (email), when they have an
    /// address and the library a mail server; the mail worker sends it.
    static func queueHoldReady(member: UUID, title: UUID, until: Date, library: UUID, actor: String, now: Date, on db: any Database) async throws {
        struct Row: Decodable { var first_name: String; var last_name: String; var card_id: String; var email: String?; var language: String?; var title: String }
        guard let row = try await db.sql.raw("""
            SELECT m.first_name, m.last_name, m.card_id, m.email, m.language, t.title FROM members m, titles t
            WHERE m.id = \(bind: member) AND t.id = \(bind: title)
            """).first(decoding: Row.self), let email = row.email, MailAddress.isValid(email),
            try await MailServers.effective(library: library, on: db) != nil else { return }
        let sender = try await sender(library, on: db)
        let lang = language(row.language, library: sender, among: Lang.allCases)
        let t = Strings(lang: lang, timeZone: sender.loans.timeZone)
        let text = try await MailTemplates.text(library: library, kind: .holdReady, language: lang, on: db)
        let name = Member.fullName(first: row.first_name, last: row.last_name)
        let message = MailTemplates.render(text, ["first_name": row.first_name.isEmpty ? name : row.first_name, "name": name, "library": sender.name,
                                                  "contact": sender.contact, "title": row.title, "until": t.date(until)])
        _ = try await Mailer.queue(.init(kind: .holdReady, memberID: member, cardID: row.card_id, name: name, recipient: email, language: lang.rawValue,
                                         subject: message.subject, body: message.body, loanCount: 0),
                                   library: library, createdBy: actor, now: now, on: db)
        MailWorker.doorbell.ring()
    }

    /// When each of `members` was last sent a reminder (due soon or overdue), for "overdue at a glance".
    static func lastReminded(_ members: [UUID], library: UUID, on db: any Database) async throws -> [UUID: Date] {
        guard !members.isEmpty else { return [:] }
        struct Row: Decodable { var member_id: UUID; var at: Date }
        let rows = try await db.sql.raw("""
            SELECT member_id, MAX(created_at) AS at FROM mail_messages
            WHERE library_id = \(bind: library) AND member_id IN (\(binds: members))
              AND kind IN ('due_soon', 'overdue_1', 'overdue_2', 'overdue_3') AND status <> 'failed'
            GROUP BY member_id
            """).all(decoding: Row.self)
        return Dictionary(rows.map { ($0.member_id, $0.at) }, uniquingKeysWith: max)
    }

    /// The daily run for one library: compose, then send.
    static func run(library: UUID, app: Application) async throws -> RecurringJobs.Outcome {
        let composed = try await compose(library: library, now: app.clock.now(), languages: app.languages, actor: "reminders",
                                         gate: app.writeGate, on: app.db)
        let delivered = composed.queued.isEmpty ? (sent: 0, failed: 0) : try await Mailer.deliver(library: library, app: app)
        return RecurringJobs.Outcome(queued: composed.queued.count, sent: delivered.sent, failed: delivered.failed, withoutEmail: composed.withoutEmail)
    }

    /// The member's last reminder of today (in the library's time zone) that went or is going out.
    static func remindedToday(member: UUID, in scope: Scope) async throws -> (at: Date, daily: Bool)? {
        struct Row: Decodable { var created_at: Date; var sent_at: Date?; var created_by: String }
        let kinds = [MailKind.dueSoon, .overdue1, .overdue2, .overdue3].map(\.rawValue)
        let today = scope.library.policy.calendar.startOfDay(for: scope.now)
        guard let row = try await scope.db.sql.raw("""
            SELECT created_at, sent_at, created_by FROM mail_messages
            WHERE library_id = \(bind: scope.libraryID) AND member_id = \(bind: member) AND kind IN (\(binds: kinds))
              AND status IN ('queued', 'sending', 'sent') AND created_at >= \(bind: today)
            ORDER BY created_at DESC LIMIT 1
            """).first(decoding: Row.self) else { return nil }
        return (row.sent_at ?? row.created_at, row.created_by == "reminders")
    }

    /// "Remind now" for one member: a message listing their loans due soon or overdue, sent at once;
    /// the message as the log shows it (sent, or failed with the server's answer).
    /// A member reminded today already is not mailed the same again unless `again` says so.
    static func remindNow(member: UUID, again: Bool = false, in scope: Scope, app: Application) async throws -> MailMessageDTO {
        let row = try await Member.query(on: scope.db).filter(\.$id == member).filter(\.$library.$id == scope.libraryID).first()
        guard let row else { throw MemberError.notFound }
        if !again, let last = try await remindedToday(member: member, in: scope) { throw MailError.remindedToday(at: last.at, byDailyRun: last.daily) }
        guard let email = row.email, MailAddress.isValid(email) else { throw MailError.memberWithoutEmail(name: row.fullName) }
        guard try await MailServers.effective(library: scope.libraryID, on: scope.db) != nil else { throw MailError.noServer }
        let composed = try await compose(library: scope.libraryID, now: scope.now, languages: app.languages, actor: scope.library.user.username,
                                         member: member, force: true, gate: scope.gate, on: scope.db)
        guard let id = composed.queued.first else { throw MailError.nothingToRemind }
        _ = try await Mailer.deliver(library: scope.libraryID, app: app, only: [id])
        return try await Mailer.message(id, library: scope.libraryID, on: scope.db)
    }
}
