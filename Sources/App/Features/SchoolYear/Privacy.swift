import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// A member's data on request, and their erasure. The export is everything the library holds about
/// them — the member record, every loan, hold and fine, their reading log and the messages sent to
/// them — as one JSON file and one PDF in their language. The erasure removes the member and every
/// trace that names them (their name and card in the loan history, the activity log, the borrower
/// counts, the messages, rosters and rollover backups that hold them), keeping the anonymous counts:
/// refused while they have books out or owe money.
enum Privacy {
    static let maxReason = 500

    // MARK: The export

    static func export(_ id: UUID, in scope: Scope) async throws -> MemberDataDTO {
        let (library, db) = (scope.libraryID, scope.db)
        let member = try await Members.find(id, library: library, on: db)
        let sql = db.sql
        struct Loan: Decodable { var title_text: String; var barcode: String?; var checked_out_at: Date; var due_at: Date; var returned_at: Date?; var renewals: Int }
        let loans = try await sql.raw("""
            SELECT l.title_text, c.barcode, l.checked_out_at, l.due_at, l.returned_at, l.renewals FROM loans l LEFT JOIN copies c ON c.id = l.copy_id
            WHERE l.member_id = \(bind: id) ORDER BY l.checked_out_at
            """).all(decoding: Loan.self)
        struct Hold: Decodable { var title: String?; var state: String; var created_at: Date; var ready_until: Date?; var closed_at: Date? }
        let holds = try await sql.raw("""
            SELECT t.title, h.state, h.created_at, h.pickup_by AS ready_until, h.closed_at FROM holds h LEFT JOIN titles t ON t.id = h.title_id
            WHERE h.member_id = \(bind: id) ORDER BY h.created_at
            """).all(decoding: Hold.self)
        struct Fine: Decodable { var kind: String; var amount: Int; var title_text: String?; var reason: String?; var created_at: Date }
        let fines = try await sql.raw("""
            SELECT kind, amount, title_text, reason, created_at FROM fines WHERE member_id = \(bind: id) ORDER BY created_at
            """).all(decoding: Fine.self)
        struct Read: Decodable {
            var title_text: String; var author_text: String?; var status: String; var started_at: Date?; var finished_at: Date?
            var rating: Double?; var review: String?; var progress_page: Int?; var page_count: Int?
        }
        let reads = try await sql.raw("""
            SELECT title_text, author_text, status, started_at, finished_at, rating, review, progress_page, page_count FROM reads
            WHERE member_id = \(bind: id) ORDER BY created_at
            """).all(decoding: Read.self)
        struct Message: Decodable { var kind: String; var recipient: String; var subject: String; var status: String; var created_at: Date; var sent_at: Date? }
        let messages = try await sql.raw("""
            SELECT kind, recipient, subject, status, created_at, sent_at FROM mail_messages WHERE member_id = \(bind: id) ORDER BY created_at
            """).all(decoding: Message.self)
        struct Currency: Decodable { var currency: String; var name: String }
        let lib = try await sql.raw("SELECT currency, name FROM libraries WHERE id = \(bind: library)").first(decoding: Currency.self)
        try await scope.gate.transaction(on: db) { db in
            try await AuditLog.record(.init(action: .memberExported, member: id), in: scope, on: db)
        }
        return MemberDataDTO(
            exportedAt: scope.now, library: lib?.name ?? "", currency: lib?.currency ?? "EUR",
            member: .init(cardId: member.cardID, firstName: member.firstName, lastName: member.lastName, grade: member.grade, email: member.email,
                          guardianEmail: member.guardianEmail, notes: member.notes, language: member.language, schoolId: member.rosterID,
                          addedAt: member.createdAt, archivedAt: member.archivedAt),
            loans: loans.map { .init(title: $0.title_text, copyBarcode: $0.barcode, lentAt: $0.checked_out_at, dueAt: $0.due_at, returnedAt: $0.returned_at,
                                     renewals: $0.renewals) },
            holds: holds.map { .init(title: $0.title ?? "", state: $0.state, placedAt: $0.created_at, readyUntil: $0.ready_until, closedAt: $0.closed_at) },
            fines: fines.map { .init(kind: $0.kind, amount: $0.amount, title: $0.title_text, reason: $0.reason, at: $0.created_at) },
            reading: reads.map { .init(title: $0.title_text, author: $0.author_text, status: $0.status, startedAt: $0.started_at, finishedAt: $0.finished_at,
                                       rating: $0.rating, review: $0.review, page: $0.progress_page, pages: $0.page_count) },
            messages: messages.map { .init(kind: $0.kind, to: $0.recipient, subject: $0.subject, status: $0.status, createdAt: $0.created_at,
                                           sentAt: $0.sent_at) })
    }

    /// The export as a PDF, in `t`'s language.
    static func pdf(_ data: MemberDataDTO, paper: SheetLayout.Paper, t: Strings) throws -> [UInt8] {
        func col(_ key: L, _ kind: ReportColumnKind = .text) -> ReportColumnDTO { .init(title: t(key), kind: kind) }
        func date(_ d: Date?) -> ReportCellDTO { .number(d?.timeIntervalSince1970) }
        let m = data.member
        let record: [[ReportCellDTO]] = [
            [.text(t(.cardID)), .text(m.cardId)], [.text(t(.firstName)), .text(m.firstName)], [.text(t(.lastName)), .text(m.lastName)],
            [.text(t(.grade)), .text(m.grade)], [.text(t(.email)), .text(m.email)], [.text(t(.rosterColGuardian)), .text(m.guardianEmail)],
            [.text(t(.notes)), .text(m.notes)], [.text(t(.privacySchoolID)), .text(m.schoolId)],
        ]
        let tables = [
            ReportTableDTO(key: "member", title: t(.privacyRecord), columns: [col(.reportFigure), col(.reportValue)], rows: record, chart: .none),
            ReportTableDTO(key: "loans", title: t(.privacyLoans),
                           columns: [col(.title), col(.privacyLent, .date), col(.privacyDue, .date), col(.privacyReturned, .date)],
                           rows: data.loans.map { [.text($0.title), date($0.lentAt), date($0.dueAt), date($0.returnedAt)] }, chart: .none),
            ReportTableDTO(key: "holds", title: t(.memberHolds), columns: [col(.title), col(.privacyState), col(.privacyPlaced, .date)],
                           rows: data.holds.map { [.text($0.title), .text($0.state), date($0.placedAt)] }, chart: .none),
            ReportTableDTO(key: "fines", title: t(.privacyFines), columns: [col(.title), col(.privacyState), col(.reportAmount, .money), col(.privacyOn, .date)],
                           rows: data.fines.map { [.text($0.title ?? $0.reason), .text($0.kind), .number(Double($0.amount)), date($0.at)] }, chart: .none),
            ReportTableDTO(key: "reading", title: t(.privacyReading),
                           columns: [col(.title), col(.privacyState), col(.privacyStarted, .date), col(.privacyFinished, .date)],
                           rows: data.reading.map { [.text($0.title), .text($0.status), date($0.startedAt), date($0.finishedAt)] }, chart: .none),
            ReportTableDTO(key: "messages", title: t(.privacyMessages), columns: [col(.privacySubject), col(.privacyTo), col(.privacyOn, .date)],
                           rows: data.messages.map { [.text($0.subject), .text($0.to), date($0.sentAt ?? $0.createdAt)] }, chart: .none),
        ]
        let report = ReportDTO(kind: .readers, title: t.format(.privacyTitle, Member.fullName(first: m.firstName, last: m.lastName)),
                               from: nil, to: nil, grouping: nil, currency: data.currency, tables: tables)
        return try ReportOutput.pdf(report, header: data.library, filters: [], now: data.exportedAt, paper: paper, t: t)
    }

    // MARK: The erasure

    static func erase(_ id: UUID, reason rawReason: String?, in scope: Scope) async throws {
        guard let reason = try Check.optional(rawReason, field: "reason", max: maxReason) else { throw SchoolYearError.erasureNeedsReason }
        let library = scope.libraryID
        try await scope.gate.transaction(on: scope.db) { db in
            let member = try await Members.find(id, library: library, on: db)
            let out = try await Loan.query(on: db).filter(\.$member.$id == id).filter(\.$returnedAt == nil).count()
            guard out == 0 else { throw SchoolYearError.erasureLoansOut(count: out) }
            let owed = try await Fines.balance(member: id, on: db)
            let sql = db.sql
            if owed > 0 {
                struct Currency: Decodable { var currency: String }
                let currency = try await sql.raw("SELECT currency FROM libraries WHERE id = \(bind: library)").first(decoding: Currency.self)?.currency
                throw SchoolYearError.erasureOwes(amount: owed, currency: currency ?? "EUR")
            }
            let card = member.cardID
            // An anonymous key in place of the card: the counts of distinct borrowers stay, and nothing
            // leads back to the member.
            let token = "erased-" + UUID().uuidString.prefix(8).lowercased()
            try await sql.raw("""
                UPDATE loans SET member_card_id = \(bind: token), member_name = '' WHERE \(LibraryNumber.rows(of: "loans", library)) AND member_id = \(bind: id)
                """).run()
            try await sql.raw("UPDATE borrower_months SET card = \(bind: token) WHERE library_id = \(bind: library) AND card = \(bind: card)").run()
            try await sql.raw("""
                UPDATE activities SET member_card_id = \(bind: token), info = NULL WHERE library_id = \(bind: library) AND member_card_id = \(bind: card)
                """).run()
            try await sql.raw("""
                DELETE FROM mail_messages WHERE library_id = \(bind: library) AND (member_id = \(bind: id) OR member_card_id = \(bind: card))
                """).run()
            try await sql.raw("DELETE FROM login_failures WHERE key = \(bind: LoginThrottle.keys(.member, account: MemberPortal.throttleName(library: library, card: card), address: nil)[0].key)").run()
            // Rosters that name them go; rollovers forget them, and their backups (which hold everyone) go.
            struct Run: Decodable { var id: UUID; var roster: String?; var summary: String }
            let marks = [card, id.uuidString, member.rosterID].compactMap { $0 }
            let runs = try await sql.raw("SELECT id, roster, summary FROM roster_runs WHERE library_id = \(bind: library)").all(decoding: Run.self)
                .filter { run in marks.contains { run.summary.contains($0) || (run.roster?.contains($0) ?? false) } }.map(\.id)
            if !runs.isEmpty { try await sql.raw("DELETE FROM roster_runs WHERE id IN (\(binds: runs))").run() }
            try await forgetInRollovers(id, library: library, on: sql)
            // Their open holds end (a copy set aside passes on); closed holds and fines stay, without them.
            try await Holds.closeOpen(members: [id], in: scope, on: db)
            try await member.delete(on: db)
            try await ReadingDays.keepUnnamed(reader: .member(id), library: library, on: sql)
            try await ActivityLog.record(.init(type: .deleteMember, memberCardID: token), library: scope.library, at: scope.now, on: db)
            try await AuditLog.record(.init(action: .memberErased, member: id, detail: ["reason": reason]), in: scope, on: db)
        }
    }

    /// Removes the member from every rollover's record, and empties the backups taken before them.
    static func forgetInRollovers(_ id: UUID, library: UUID, on sql: any SQLDatabase) async throws {
        struct Row: Decodable { var id: UUID; var changes: String; var goals: String }
        let idText = id.uuidString
        for row in try await sql.raw("SELECT id, changes, goals FROM rollovers WHERE library_id = \(bind: library)").all(decoding: Row.self) {
            func without(_ json: String, key: String) -> String {
                guard let items = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]] else { return "[]" }
                let kept = items.filter { ($0[key] as? String)?.uppercased() != idText }
                return (try? JSONSerialization.data(withJSONObject: kept)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            }
            try await sql.raw("""
                UPDATE rollovers SET changes = \(bind: without(row.changes, key: "id")), goals = \(bind: without(row.goals, key: "member_id")),
                  backup = \(bind: Data()) WHERE id = \(bind: row.id)
                """).run()
        }
    }
}

/// Everything the library holds about one member.
struct MemberDataDTO: Content {
    struct Record: Content {
        var cardId: String
        var firstName: String
        var lastName: String
        var grade: String?
        var email: String?
        var guardianEmail: String?
        var notes: String?
        var language: String?
        /// Their id in the school's records.
        var schoolId: String?
        var addedAt: Date?
        var archivedAt: Date?
    }
    struct LoanRecord: Content { var title: String; var copyBarcode: String?; var lentAt: Date; var dueAt: Date; var returnedAt: Date?; var renewals: Int }
    struct HoldRecord: Content { var title: String; var state: String; var placedAt: Date; var readyUntil: Date?; var closedAt: Date? }
    /// A charge, payment or waiver, in the currency's minor unit.
    struct FineRecord: Content { var kind: String; var amount: Int; var title: String?; var reason: String?; var at: Date }
    struct ReadRecord: Content {
        var title: String; var author: String?; var status: String; var startedAt: Date?; var finishedAt: Date?; var rating: Double?; var review: String?
        var page: Int?; var pages: Int?
    }
    struct MessageRecord: Content { var kind: String; var to: String; var subject: String; var status: String; var createdAt: Date; var sentAt: Date? }

    var exportedAt: Date
    var library: String
    var currency: String
    var member: Record
    var loans: [LoanRecord]
    var holds: [HoldRecord]
    var fines: [FineRecord]
    var reading: [ReadRecord]
    var messages: [MessageRecord]
}
