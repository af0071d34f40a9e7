import Foundation
import ShelfmarkCore
import ShelfmarkMail
import Vapor

extension SMTPServer.Security: SchemaEnum {}

/// What a message is: a reminder at a stage, a hold waiting to be collected, a test of the settings.
enum MailKind: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case dueSoon = "due_soon"
    case overdue1 = "overdue_1"
    case overdue2 = "overdue_2"
    case overdue3 = "overdue_3"
    case holdReady = "hold_ready"
    case test
    /// A member's one-time sign-in link to the public catalog.
    case signInLink = "sign_in_link"
    /// A saved report, mailed on its schedule or by an owner, with its PDF and CSV.
    case report

    /// Whether a library may change the text: not the test message's (a free text sent to any address
    /// would make the installation's server anyone's).
    var editable: Bool { self != .test && self != .report }

    init(_ stage: ReminderPolicy.Stage) {
        self = MailKind(rawValue: stage.kind) ?? .dueSoon
    }

    /// Reminders list the member's loans; their templates must say where (`{loans}`).
    var listsLoans: Bool { [.dueSoon, .overdue1, .overdue2, .overdue3].contains(self) }

    /// The placeholders a template of this kind may use.
    var placeholders: [String] {
        let common = ["first_name", "name", "library", "contact"]
        switch self {
        case .dueSoon, .overdue1, .overdue2, .overdue3: return common + ["loans", "count"]
        case .holdReady: return common + ["title", "until"]
        case .test: return ["library", "contact"]
        case .signInLink: return common + ["link", "minutes"]
        case .report: return ["library"]
        }
    }
}

/// The mail server messages go out through: the library's own, or the installation's (`scope`).
/// The password is never returned: `hasPassword` says whether one is kept.
struct MailServerDTO: Content, Equatable {
    var scope: MailServerScope
    var host: String
    var port: Int
    var security: SMTPServer.Security
    var username: String?
    var hasPassword: Bool
    var senderAddress: String
    var senderName: String?
    var updatedAt: Date
}

enum MailServerScope: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case library, installation
}

/// A mail server's settings. `password` absent keeps the one kept; empty removes it.
struct MailServerPut: Content {
    var host: String
    var port: Int
    var security: SMTPServer.Security
    var username: String?
    var password: String?
    var senderAddress: String
    var senderName: String?
}

/// When and how a library reminds its members, and the server it sends through.
struct ReminderSettingsDTO: Content {
    var enabled: Bool
    /// The hour of the daily run, in the library's time zone.
    var hour: Int
    /// Days before the due day of the due-soon reminder; absent: none.
    var beforeDays: Int?
    /// Days after the due day of the overdue reminders (up to three, increasing).
    var overdueDays: [Int]
    /// The language of messages to members who have none of their own.
    var language: String
    /// The library's contact, in every message and letter (who to ask, where, when).
    var contact: String?
    /// The server messages go through; absent: none set up (reminders cannot be switched on).
    var mailServer: MailServerDTO?
}

/// A change to the reminder settings; absent fields stay. `beforeDays` 0 turns the due-soon reminder
/// off; `overdueDays` replaces all three (an empty list: no overdue reminders).
struct ReminderSettingsPatch: Content {
    var enabled: Bool?
    var hour: Int?
    var beforeDays: Int?
    var overdueDays: [Int]?
    var language: String?
    var contact: String?
}

/// A message template in one language: the library's text, or the default when it has none.
struct MailTemplateDTO: Content, Equatable {
    var kind: MailKind
    var language: String
    var subject: String
    var body: String
    /// Whether the library changed it (false: the default text of the language).
    var edited: Bool
    var placeholders: [String]
}

struct MailTemplatePut: Content {
    var subject: String
    var body: String
}

enum MailStatus: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case queued, sending, sent, failed
}

/// Why a message did not go (the server's own words are in `reply`).
enum MailProblem: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case noServer = "no_server"
    case connect
    case timeout
    case tls
    case auth
    case rejected
    case lost
    /// The recipient is not an address a message can be sent to: final, never retried.
    case address
}

/// One message of the delivery log.
struct MailMessageDTO: Content, Equatable {
    var id: UUID
    var kind: MailKind
    var memberId: UUID?
    var memberCardId: String?
    var memberName: String?
    var recipient: String
    var language: String
    var subject: String
    var status: MailStatus
    var problem: MailProblem?
    /// The server's answer: its queue id when it took the message, its refusal when it did not.
    var reply: String?
    var loanCount: Int
    var createdBy: String
    var createdAt: Date
    var sentAt: Date?
}

/// The delivery log, newest first, and how many messages failed in the last day.
struct MailLogDTO: Content {
    var messages: [MailMessageDTO]
    var failedLastDay: Int
    var nextCursor: String?
}

/// A test message to `to` through the library's mail server.
struct TestMailRequest: Content {
    var to: String
}

/// What a reminder run (the daily job, or "remind now") did.
struct ReminderRunDTO: Content, Equatable {
    var queued: Int
    var sent: Int
    var failed: Int
    /// Members with loans to remind of and no email address: their letters are printed.
    var withoutEmail: Int
}

/// Overdue at a glance: a member with overdue loans, the most overdue first.
struct OverdueMemberDTO: Content, Equatable {
    struct Loan: Content, Equatable {
        var loanId: UUID
        var title: String
        var dueAt: Date
        var daysOverdue: Int
    }
    var memberId: UUID
    var cardId: String
    var name: String
    var hasEmail: Bool
    /// Days the oldest loan is overdue.
    var daysOverdue: Int
    var loans: [Loan]
    /// When a reminder last went out (any reminder kind that did not fail).
    var lastReminder: Date?
}
