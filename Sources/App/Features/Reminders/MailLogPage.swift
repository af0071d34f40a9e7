import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// The delivery log: every message, newest first, with its status and the server's
/// answer, so a failure is seen the same day; a failed one can be sent again.
struct MailLogPage: Sendable {
    static let size = 50

    var libraryID: UUID
    var failedOnly: Bool
    var log: MailLogDTO
    var mayRetry: Bool

    static func make(failedOnly: Bool, before: Date?, library: LibraryContext, now: Date, on db: any Database) async throws -> MailLogPage {
        MailLogPage(libraryID: library.libraryID, failedOnly: failedOnly,
                    log: try await Mailer.log(library: library.libraryID, limit: size, before: before, failedOnly: failedOnly, now: now, on: db),
                    mayRetry: library.role.may(.manageMembers))
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let log = log
        let back = WebRoute.mailLog(library: lib).path(query: [("failed", failedOnly ? "1" : nil)])
        return Layout.page(page, title: t(.mailLogTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.mailLogTitle)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(.mailLogIntro)) }
            H.el(.nav, [.class: "chips"]) {
                Components.chipLink(t(.mailLogAll), WebRoute.mailLog(library: lib).path, current: !failedOnly)
                Components.chipLink(t(.mailLogFailedOnly), WebRoute.mailLog(library: lib).path(query: [("failed", "1")]), current: failedOnly)
            }
            if log.messages.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.mailLogEmpty)) }
            } else {
                H.el(.ul, [.class: "mail-log"]) {
                    for message in log.messages {
                        H.el(.li, [.class: "mail-" + message.status.rawValue]) {
                            H.el(.span, [.class: "name"]) {
                                EscapedText(message.subject + " ")
                                H.el(.span, [.class: message.status == .failed ? "badge out" : (message.status == .sent ? "badge ok" : "badge")]) {
                                    EscapedText(Self.status(message.status, t))
                                }
                            }
                            H.el(.span, [.class: "authors"]) {
                                if let member = message.memberId, let name = message.memberName {
                                    H.link(name, WebRoute.member(library: lib, member: member).path)
                                    EscapedText(" · ")
                                }
                                EscapedText(message.recipient + " · " + RemindersPage.kindName(message.kind, t) + " · ")
                                H.el(.time, [.datetime: message.createdAt.formatted(.iso8601)]) { EscapedText(t.dateTime(message.createdAt)) }
                            }
                            if message.status == .failed {
                                H.el(.span, [.class: "error-text"]) { EscapedText(RemindersPage.problem(message.problem, t)) }
                            }
                            if let reply = message.reply { H.el(.span, [.class: "hint mail-reply"]) { EscapedText(reply) } }
                            if message.status == .failed, mayRetry, message.problem != .address {
                                H.form(WebRoute.mailRetry(library: lib, message: message.id).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                                    H.void(.input, [.type: "hidden", .name: "back", .value: back])
                                    H.button(t(.mailRetry), kind: "secondary")
                                }
                            }
                        }
                    }
                }
            }
            if let cursor = log.nextCursor {
                H.el(.nav, [.class: "pager"]) {
                    H.link(t(.nextPage), WebRoute.mailLog(library: lib).path(query: [("failed", failedOnly ? "1" : nil), ("before", cursor)]), cls: "button secondary")
                }
            }
        }
    }

    static func status(_ status: MailStatus, _ t: Strings) -> String {
        switch status {
        case .queued: t(.mailStatusQueued)
        case .sending: t(.mailStatusSending)
        case .sent: t(.mailStatusSent)
        case .failed: t(.mailStatusFailed)
        }
    }
}
