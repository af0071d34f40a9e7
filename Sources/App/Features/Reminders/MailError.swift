import ShelfmarkCore
import Vapor

/// The refusals of reminders and mail.
enum MailError: DomainError, Equatable {
    /// Reminders cannot be switched on before a mail server is set up.
    case noServer
    /// A template uses a placeholder its kind does not have.
    case unknownPlaceholder(field: String, name: String)
    /// A reminder's text must say where the loans go.
    case loansMissing
    /// A sign-in link's text must say where the link goes (`{link}`).
    case linkMissing
    /// A password over a connection without encryption would travel in clear.
    case passwordInClear
    /// The overdue reminders' days must grow.
    case overdueNotIncreasing(field: String)
    /// A language this installation does not have.
    case unknownLanguage(String)
    /// The member has no email address (print a letter instead).
    case memberWithoutEmail(name: String)
    /// Nothing to remind the member of.
    case nothingToRemind
    /// The member had a reminder today already (by the daily run, or by someone's "Remind now").
    case remindedToday(at: Date, byDailyRun: Bool)
    /// A message that did not fail cannot be sent again.
    case notFailed
    case messageNotFound
    /// The library (or the installation) has no mail server of its own.
    case noOwnServer
    /// A mail server on this machine or a private network, set by someone who is not the administrator.
    case privateHost
    /// A test message to an address that is not the library's own, by someone not the administrator.
    case testOnlyToLibrary(String)
    case tooManyTests(max: Int)

    var described: Described {
        switch self {
        case .noServer: .init(.conflict, "no_mail_server") { $0(.errNoMailServer) }
        case .unknownPlaceholder(let field, let name):
            .init(.invalid, "unknown_placeholder", field: field, details: ["placeholder": name]) { $0.format(.errUnknownPlaceholder, "{\(name)}") }
        case .loansMissing: .init(.invalid, "loans_missing", field: "body") { $0(.errLoansMissing) }
        case .linkMissing: .init(.invalid, "link_missing", field: "body") { $0(.errLinkMissing) }
        case .testOnlyToLibrary(let own): .init(.forbidden, "test_only_to_library", field: "to") { $0.format(.errTestOnlyToLibrary, own) }
        case .tooManyTests(let max): .init(.tooManyRequests, "too_many_tests", field: "to", details: ["retryAfter": "3600"]) { $0.format(.errTooManyTests, $0.number(max)) }
        case .privateHost: .init(.forbidden, "private_mail_host", field: "host") { $0(.errPrivateMailHost) }
        case .passwordInClear: .init(.invalid, "password_in_clear", field: "security") { $0(.errPasswordInClear) }
        case .overdueNotIncreasing(let field): .init(.invalid, "invalid", field: field) { $0(.errOverdueSameDay) }
        case .unknownLanguage(let code): .init(.invalid, "invalid", field: "language") { $0.format(.errUnknownLanguage, code) }
        case .memberWithoutEmail(let name): .init(.conflict, "no_email") { $0.format(.errMemberWithoutEmail, name) }
        case .nothingToRemind: .init(.conflict, "nothing_to_remind") { $0(.errNothingToRemind) }
        case .remindedToday(let at, let daily):
            .init(.conflict, "reminded_today", details: ["at": at.formatted(.iso8601)]) {
                $0.format(daily ? .errRemindedTodayDaily : .errRemindedToday, $0.time(at))
            }
        case .notFailed: .init(.conflict, "not_failed") { $0(.errMailNotFailed) }
        case .noOwnServer: .init(.notFound, "no_mail_server") { $0(.errNoMailServer) }
        case .messageNotFound: .init(.notFound, "message_not_found") { $0(.errMessageNotFound) }
        }
    }
}
