import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkMail
import SQLKit
import Vapor

/// How often a saved report is mailed.
enum SavedReportSchedule: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case none
    /// On the first morning of each month, as the month just ended left it.
    case monthly
    /// On the first morning of each term (`ReportPeriod.termMonths`), as the term just ended left it.
    case termly
}

/// A saved report as stored (and in a backup).
struct SavedReportRow: Codable, Sendable, Equatable {
    var id: UUID
    var name: String
    var name_key: String
    var kind: String
    var options: String
    var schedule: String
    var recipients: String
    var language: String
    var created_by: String
    var created_at: Date
    var updated_at: Date
    var last_period: String?
    var last_sent_at: Date?

    var addresses: [String] { recipients.split(separator: "\n").map(String.init) }
}

struct SavedReportDTO: Content, Equatable {
    var id: UUID
    var name: String
    var kind: ReportKind
    /// The report's period and filters as a query string (`period=last-month&class=4A`).
    var options: String
    var schedule: SavedReportSchedule
    var recipients: [String]
    /// The language it is mailed in.
    var language: String
    var createdBy: String
    var createdAt: Date
    var lastSentAt: Date?
    /// When it is mailed next (scheduled ones).
    var nextMailing: Date?
}

/// A new saved report (`name`, `kind`, `options`), or a change to one (any of the fields).
struct SavedReportInput: Content, SchemaConstrained {
    var name: String?
    var kind: String?
    var options: String?
    var schedule: String?
    var recipients: [String]?
    var language: String?

    static var schemaConstraints: [String: JSONValue] {
        ["name": Rule.optionalText(SavedReports.maxName), "kind": ["enum": .array(ReportKind.allCases.map { .string($0.rawValue) })],
         "options": Rule.optionalText(SavedReports.maxOptions),
         "schedule": ["enum": .array(SavedReportSchedule.allCases.map { .string($0.rawValue) })],
         "recipients": Rule.items(["maxLength": .number(Double(EmailAddress.maxLength))], max: SavedReports.maxRecipients),
         "language": ["maxLength": 16]]
    }
}

enum SavedReportError: DomainError, Equatable {
    case notFound
    case nameTaken(String)
    case tooMany(max: Int)
    case needsRecipients
    case tooManyRecipients(max: Int)
    case tooManySent(max: Int)
    /// Mailed now, and not every message reached the server (the delivery log says why).
    case notDelivered(sent: Int, of: Int)

    var described: Described {
        switch self {
        case .notFound: .init(.notFound, "saved_report_not_found") { $0(.errSavedReportNotFound) }
        case .nameTaken(let name): .init(.conflict, "saved_report_name_taken", field: "name") { $0.format(.errSavedReportNameTaken, name) }
        case .tooMany(let max): .init(.conflict, "too_many_saved_reports") { $0.format(.errSavedReportsTooMany, $0.number(max)) }
        case .needsRecipients: .init(.invalid, "recipients_missing", field: "recipients") { $0(.errSavedReportNeedsRecipients) }
        case .tooManyRecipients(let max):
            .init(.invalid, "too_many_recipients", field: "recipients") { $0.format(.errSavedReportTooManyRecipients, $0.number(max)) }
        case .tooManySent(let max): .init(.tooManyRequests, "too_many_report_mails") { $0.format(.errSavedReportTooManySent, $0.number(max)) }
        case .notDelivered(let sent, let total):
            .init(.conflict, "report_not_delivered") { $0.format(.errSavedReportNotDelivered, $0.number(sent), $0.number(total)) }
        }
    }
}

/// Reports a librarian saved under a name, and the ones an owner has mailed monthly or termly: on
/// the first morning of the month (or term) the report is made as the period just ended left it
/// ("this month" is the month just ended) and queued to each recipient with its PDF and its CSV
/// attached, through the library's mail server and the delivery log.
enum SavedReports {
    static let maxName = 80
    static let maxOptions = 1_000
    static let maxPerLibrary = 50
    static let maxRecipients = 10
    /// Messages sent by hand ("send now") in an hour, per library.
    static let maxSentByHandPerHour = 20
    /// Files larger than this together are not attached (in base64 they stay under the 10 MB many mail
    /// servers take); the message says where the report is.
    static let maxAttachmentBytes = 7_000_000
    /// The hour scheduled reports are mailed, in the library's time zone.
    static let hour = 6
    static let columns: SQLQueryString = """
        id, name, name_key, kind, options, schedule, recipients, language, created_by, created_at, updated_at, last_period, last_sent_at
        """

    static func list(library: UUID, on db: any Database) async throws -> [SavedReportRow] {
        try await db.sql.raw("SELECT \(columns) FROM saved_reports WHERE library_id = \(bind: library) ORDER BY name_key")
            .all(decoding: SavedReportRow.self)
    }

    static func get(_ id: UUID, library: UUID, on db: any Database) async throws -> SavedReportRow {
        guard let row = try await db.sql.raw("SELECT \(columns) FROM saved_reports WHERE id = \(bind: id) AND library_id = \(bind: library)")
            .first(decoding: SavedReportRow.self) else { throw SavedReportError.notFound }
        return row
    }

    static func dto(_ row: SavedReportRow, zone: TimeZone, now: Date) -> SavedReportDTO {
        let schedule = SavedReportSchedule(rawValue: row.schedule) ?? .none
        return SavedReportDTO(id: row.id, name: row.name, kind: ReportKind(rawValue: row.kind) ?? .circulation, options: row.options,
                              schedule: schedule, recipients: row.addresses, language: row.language, createdBy: row.created_by,
                              createdAt: row.created_at, lastSentAt: row.last_sent_at, nextMailing: next(schedule, after: now, zone: zone))
    }

    // MARK: Saving

    static func create(_ input: SavedReportInput, in scope: Scope, t: Strings, languages: [Lang]) async throws -> SavedReportRow {
        let name = try Check.required(input.name, field: "name", max: maxName)
        guard let rawKind = input.kind, let kind = ReportKind(rawValue: rawKind) else {
            throw RequestError.oneOf(field: "kind", allowed: ReportKind.allCases.map(\.rawValue), got: input.kind ?? "")
        }
        let options = try normalized(input.options ?? "")
        let language = try language(input.language, default: t.lang, among: languages)
        let now = scope.now
        var row = SavedReportRow(id: UUID(), name: name, name_key: name.lowercased(), kind: kind.rawValue, options: options, schedule: "none",
                                 recipients: "", language: language.rawValue, created_by: scope.library.user.username, created_at: now,
                                 updated_at: now, last_period: nil, last_sent_at: nil)
        try await apply(input, to: &row, scope: scope)
        let made = row
        try await scope.gate.transaction(on: scope.db) { db in
            struct Count: Decodable { var n: Int }
            let count = try await db.sql.raw("SELECT COUNT(*) AS n FROM saved_reports WHERE library_id = \(bind: scope.libraryID)")
                .first(decoding: Count.self)?.n ?? 0
            guard count < maxPerLibrary else { throw SavedReportError.tooMany(max: maxPerLibrary) }
            try await ensureFree(made.name_key, name: made.name, except: nil, library: scope.libraryID, on: db)
            try await db.sql.insert(into: "saved_reports").model(InLibrary(row: made, libraryID: scope.libraryID), nilEncodingStrategy: .asNil).run()
        }
        return made
    }

    /// Renames a saved report, changes its options, or (owners) when and to whom it is mailed.
    static func update(_ id: UUID, _ input: SavedReportInput, in scope: Scope, languages: [Lang]) async throws -> SavedReportRow {
        var row = try await get(id, library: scope.libraryID, on: scope.db)
        if let name = input.name {
            row.name = try Check.required(name, field: "name", max: maxName)
            row.name_key = row.name.lowercased()
        }
        if let kind = input.kind {
            guard ReportKind(rawValue: kind) != nil else { throw RequestError.oneOf(field: "kind", allowed: ReportKind.allCases.map(\.rawValue), got: kind) }
            row.kind = kind
        }
        if let options = input.options { row.options = try normalized(options) }
        if input.language != nil { row.language = try language(input.language, default: .en, among: languages).rawValue }
        try await apply(input, to: &row, scope: scope)
        row.updated_at = scope.now
        let changed = row
        try await scope.gate.transaction(on: scope.db) { db in
            try await ensureFree(changed.name_key, name: changed.name, except: id, library: scope.libraryID, on: db)
            try await db.sql.update("saved_reports").set(model: InLibrary(row: changed, libraryID: scope.libraryID), nilEncodingStrategy: .asNil)
                .where("id", .equal, id).where("library_id", .equal, scope.libraryID).run()
        }
        return changed
    }

    /// A scheduled report is the owner's to delete; any other, the staff who may read reports.
    static func delete(_ id: UUID, in scope: Scope) async throws {
        let row = try await get(id, library: scope.libraryID, on: scope.db)
        if row.schedule != SavedReportSchedule.none.rawValue, !scope.library.role.may(.administer) {
            throw AccountError.roleTooLow(scope.library.role, needs: .owner)
        }
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("DELETE FROM saved_reports WHERE id = \(bind: id) AND library_id = \(bind: scope.libraryID)").run()
        }
    }

    /// The schedule and the recipients: only an owner sets them. A schedule needs someone to mail; a
    /// new schedule starts with the next month (or term), not with the one just ended.
    private static func apply(_ input: SavedReportInput, to row: inout SavedReportRow, scope: Scope) async throws {
        guard input.schedule != nil || input.recipients != nil else { return }
        guard scope.library.role.may(.administer) else { throw AccountError.roleTooLow(scope.library.role, needs: .owner) }
        if let recipients = input.recipients {
            var seen = Set<String>(), kept: [String] = []
            for (i, text) in recipients.enumerated() {
                guard let address = try Check.email(text, field: "recipients[\(i)]") else { continue }
                if seen.insert(address.lowercased()).inserted { kept.append(address) }
            }
            guard kept.count <= maxRecipients else { throw SavedReportError.tooManyRecipients(max: maxRecipients) }
            row.recipients = kept.joined(separator: "\n")
        }
        if let raw = input.schedule {
            guard let schedule = SavedReportSchedule(rawValue: raw) else {
                throw RequestError.oneOf(field: "schedule", allowed: SavedReportSchedule.allCases.map(\.rawValue), got: raw)
            }
            if schedule.rawValue != row.schedule {
                let zone = try await zone(scope.libraryID, on: scope.db)
                row.last_period = period(schedule, at: scope.now, zone: zone)?.key
            }
            row.schedule = schedule.rawValue
        }
        if row.schedule != SavedReportSchedule.none.rawValue, row.recipients.isEmpty { throw SavedReportError.needsRecipients }
    }

    private static func ensureFree(_ key: String, name: String, except: UUID?, library: UUID, on db: any Database) async throws {
        let other: SQLQueryString = except.map { "AND id <> \(bind: $0)" } ?? ""
        if try await db.sql.raw("SELECT id FROM saved_reports WHERE library_id = \(bind: library) AND name_key = \(bind: key) \(other)").first() != nil {
            throw SavedReportError.nameTaken(name)
        }
    }

    /// The options as the report reads them, written back in one order (a value it would refuse is refused here).
    static func normalized(_ query: String) throws -> String {
        guard query.count <= maxOptions else { throw InputProblem.tooLong(field: "options", max: maxOptions) }
        let text = query.hasPrefix("?") ? String(query.dropFirst()) : query
        return try ReportOptions.read(query: text).queryString
    }

    private static func language(_ raw: String?, default fallback: Lang, among languages: [Lang]) throws -> Lang {
        guard let raw, !raw.isEmpty else { return languages.contains(fallback) ? fallback : (languages.first ?? .en) }
        guard let lang = Lang(rawValue: raw), languages.contains(lang) else { throw MailError.unknownLanguage(raw) }
        return lang
    }

    private static func zone(_ library: UUID, on db: any Database) async throws -> TimeZone {
        struct Row: Decodable { var time_zone: String? }
        let row = try await db.sql.raw("SELECT time_zone FROM libraries WHERE id = \(bind: library)").first(decoding: Row.self)
        return Library.zone(row?.time_zone)
    }

    // MARK: When

    /// The last period of `schedule` that has ended by `now`: its key ("2026-10", "term 2026-08") and
    /// the last moment in it (the report is made as of then).
    static func period(_ schedule: SavedReportSchedule, at now: Date, zone: TimeZone) -> (key: String, asOf: Date)? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: now)
        let start: Date
        switch schedule {
        case .none: return nil
        case .monthly: start = calendar.date(from: calendar.dateComponents([.year, .month], from: today))!
        case .termly: start = ReportPeriod.termStart(of: today, calendar: calendar)
        }
        let asOf = start.addingTimeInterval(-1)
        let ended = schedule == .monthly ? calendar.date(from: calendar.dateComponents([.year, .month], from: asOf))!
            : ReportPeriod.termStart(of: asOf, calendar: calendar)
        let c = calendar.dateComponents([.year, .month], from: ended)
        return ((schedule == .termly ? "term " : "") + String(format: "%04d-%02d", c.year ?? 0, c.month ?? 0), asOf)
    }

    /// The next morning it is mailed: the first of the next month (or term) at `hour`.
    static func next(_ schedule: SavedReportSchedule, after now: Date, zone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let today = calendar.startOfDay(for: now)
        let next: Date
        switch schedule {
        case .none: return nil
        case .monthly:
            next = calendar.date(byAdding: .month, value: 1, to: calendar.date(from: calendar.dateComponents([.year, .month], from: today))!)!
        case .termly:
            // The first term start after today: step a month at a time (at most a year).
            var cursor = calendar.date(byAdding: .month, value: 1, to: calendar.date(from: calendar.dateComponents([.year, .month], from: today))!)!
            for _ in 0..<12 where ReportPeriod.termStart(of: cursor, calendar: calendar) != cursor {
                cursor = calendar.date(byAdding: .month, value: 1, to: cursor)!
            }
            next = cursor
        }
        return calendar.date(bySettingHour: hour, minute: 0, second: 0, of: next)
    }

    // MARK: Mailing

    /// The library's scheduled reports whose month or term has ended and that were not mailed for it,
    /// each claimed (so one instance mails it), made and queued; then delivered.
    static func mailDue(library: UUID, app: Application) async throws -> RecurringJobs.Outcome {
        let now = app.clock.now()
        let zone = try await zone(library, on: app.db)
        var queued: [UUID] = []
        for row in try await list(library: library, on: app.db) {
            guard let schedule = SavedReportSchedule(rawValue: row.schedule), let due = period(schedule, at: now, zone: zone),
                  row.last_period != due.key else { continue }
            let (key, asOf) = due
            let claimed = try await app.writeGate.transaction(on: app.db) { db in
                try await db.sql.raw("""
                    UPDATE saved_reports SET last_period = \(bind: key), last_sent_at = \(bind: now)
                    WHERE id = \(bind: row.id) AND (last_period IS NULL OR last_period <> \(bind: key)) RETURNING id
                    """).first()
            }
            guard claimed != nil else { continue }
            queued += try await queue(row, asOf: asOf, library: library, by: "schedule", app: app)
        }
        guard !queued.isEmpty else { return RecurringJobs.Outcome(queued: 0, sent: 0, failed: 0) }
        let (sent, failed) = try await Mailer.deliver(library: library, app: app, only: queued)
        return RecurringJobs.Outcome(queued: queued.count, sent: sent, failed: failed)
    }

    /// A saved report mailed now to its recipients (or to `to`), as it stands today (an owner's "send now").
    static func send(_ id: UUID, to: [String]?, in scope: Scope, app: Application) async throws -> [MailMessageDTO] {
        guard scope.library.role.may(.administer) else { throw AccountError.roleTooLow(scope.library.role, needs: .owner) }
        var row = try await get(id, library: scope.libraryID, on: scope.db)
        if let to { try await apply(SavedReportInput(recipients: to), to: &row, scope: scope) }
        guard !row.addresses.isEmpty else { throw SavedReportError.needsRecipients }
        struct Count: Decodable { var n: Int }
        let recent = try await scope.db.sql.raw("""
            SELECT COUNT(*) AS n FROM mail_messages WHERE library_id = \(bind: scope.libraryID) AND kind = 'report' AND created_by <> 'schedule'
              AND created_at > \(bind: scope.now.addingTimeInterval(-3_600))
            """).first(decoding: Count.self)?.n ?? 0
        guard recent + row.addresses.count <= maxSentByHandPerHour else { throw SavedReportError.tooManySent(max: maxSentByHandPerHour) }
        guard try await MailServers.effective(library: scope.libraryID, on: scope.db) != nil else { throw MailError.noServer }
        let ids = try await queue(row, asOf: scope.now, library: scope.libraryID, by: scope.library.user.username, app: app)
        try await app.writeGate.transaction(on: app.db) { db in
            try await db.sql.raw("UPDATE saved_reports SET last_sent_at = \(bind: scope.now) WHERE id = \(bind: id)").run()
        }
        try await Mailer.deliver(library: scope.libraryID, app: app, only: ids)
        var sent: [MailMessageDTO] = []
        for message in ids { sent.append(try await Mailer.message(message, library: scope.libraryID, on: scope.db).plainWords) }
        return sent
    }

    /// Makes the report as of `asOf` and queues it to each recipient; a report that cannot be made (a
    /// collection since deleted) is mailed as a message that says why.
    private static func queue(_ row: SavedReportRow, asOf: Date, library: UUID, by: String, app: Application) async throws -> [UUID] {
        let sender = try await Reminders.sender(library, on: app.db)
        let lang = Lang(rawValue: row.language).flatMap { app.languages.contains($0) ? $0 : nil } ?? app.languages.first ?? .en
        let calendar = sender.loans.calendar
        let t = { var t = Strings(lang: lang); t.timeZone = calendar.timeZone; return t }()
        let kind = ReportKind(rawValue: row.kind) ?? .circulation
        var subject = t.format(.mailReportSubject, row.name, sender.name)
        var body: String
        var files: [MailAttachment] = []
        do {
            let options = try ReportOptions.read(query: row.options)
            let report = try await Reports.make(kind, options, library: library, calendar: calendar, now: asOf, t: t, on: app.db)
            let filters = try await Reports.filterTexts(options, kind: kind, library: library, t: t, on: app.db)
            let period = ReportOutput.periodText(report, now: asOf, t: t)
            subject = t.format(.mailReportSubject, row.name + " · " + period, sender.name)
            let header = sender.name + " · " + t.date(asOf)
            let pdf = try await app.threadPool.runIfActive { try ReportOutput.pdf(report, header: header, filters: filters, now: asOf, paper: .a4, t: t) }
            let csv = ReportOutput.csv(report, only: nil, calendar: calendar, t: t)
            let base = fileName(row.name + " " + period)
            body = t.format(.mailReportBody, row.name, sender.name, ([period] + filters).joined(separator: " · "), t(kind.titleKey))
            if pdf.count + csv.count <= maxAttachmentBytes {
                files = [MailAttachment(name: base + ".pdf", type: "application/pdf", data: Data(pdf)),
                         MailAttachment(name: base + ".csv", type: "text/csv; charset=utf-8", data: csv)]
            } else {
                body += "\n\n" + t.format(.mailReportTooLarge, t.number((pdf.count + csv.count) / 1_000_000 + 1))
            }
        } catch {
            body = t.format(.mailReportFailed, row.name, t.message(error), sender.name)
        }
        let attachments = files.isEmpty ? nil : String(decoding: try JSONEncoder().encode(files), as: UTF8.self)
        let (subjectText, bodyText) = (subject, body)
        return try await app.writeGate.transaction(on: app.db) { db in
            var ids: [UUID] = []
            for address in row.addresses {
                ids.append(try await Mailer.queue(.init(kind: .report, recipient: address, language: lang.rawValue, subject: subjectText, body: bodyText,
                                                        attachments: attachments),
                                                  library: library, createdBy: by, now: app.clock.now(), on: db))
            }
            return ids
        }
    }

    /// A file name from a report's name and period: no path separators or control characters.
    static func fileName(_ text: String) -> String {
        let kept = text.unicodeScalars.map { s -> Character in
            if s.properties.generalCategory == .control || "/\\:*?\"<>|".unicodeScalars.contains(s) { return "-" }
            return Character(s)
        }
        return String(String(kept).replacingOccurrences(of: "\u{A0}", with: " ").prefix(120)).trimmingCharacters(in: .whitespaces)
    }
}
