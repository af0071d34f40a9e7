import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// The texts of messages: each kind in each language is the library's edited text, or the
/// language's default from the translation files. Placeholders (`{first_name}`, `{loans}`, …) are
/// filled by `MessageTemplate`; a template may use only its kind's, and a reminder must list the loans.
enum MailTemplates {
    static let maxSubject = 200
    static let maxBody = 5_000

    struct Text: Sendable, Equatable {
        var subject: String
        var body: String
        var edited: Bool
    }

    static func defaultText(_ kind: MailKind, _ t: Strings) -> Text {
        let (subject, body): (L, L) = switch kind {
        case .dueSoon: (.mailDueSoonSubject, .mailDueSoonBody)
        case .overdue1: (.mailOverdue1Subject, .mailOverdue1Body)
        case .overdue2: (.mailOverdue2Subject, .mailOverdue2Body)
        case .overdue3: (.mailOverdue3Subject, .mailOverdue3Body)
        case .holdReady: (.mailHoldReadySubject, .mailHoldReadyBody)
        case .test: (.mailTestSubject, .mailTestBody)
        case .signInLink: (.mailSignInLinkSubject, .mailSignInLinkBody)
        case .report: (.mailReportSubject, .mailReportBody)
        }
        return Text(subject: t(subject), body: t(body), edited: false)
    }

    /// The texts a library uses for `kind` in `language`.
    static func text(library: UUID, kind: MailKind, language: Lang, on db: any Database) async throws -> Text {
        try await texts(library: library, on: db)[Key(kind: kind, language: language.rawValue)] ?? defaultText(kind, Strings(lang: language))
    }

    struct Key: Hashable { var kind: MailKind; var language: String }

    /// Every edited text of a library (a run reads them once).
    static func texts(library: UUID, on db: any Database) async throws -> [Key: Text] {
        struct Row: Decodable { var kind: String; var language: String; var subject: String; var body: String }
        let rows = try await db.sql.raw("SELECT kind, language, subject, body FROM mail_templates WHERE library_id = \(bind: library)")
            .all(decoding: Row.self)
        var out: [Key: Text] = [:]
        for row in rows {
            guard let kind = MailKind(rawValue: row.kind) else { continue }
            out[Key(kind: kind, language: row.language)] = Text(subject: row.subject, body: row.body, edited: true)
        }
        return out
    }

    static func dto(_ kind: MailKind, _ language: Lang, _ text: Text) -> MailTemplateDTO {
        MailTemplateDTO(kind: kind, language: language.rawValue, subject: text.subject, body: text.body, edited: text.edited,
                        placeholders: kind.placeholders)
    }

    /// Checks and keeps a library's text for `kind` in `language`.
    static func put(_ put: MailTemplatePut, kind: MailKind, language: Lang, in scope: Scope) async throws -> MailTemplateDTO {
        guard kind.editable else {
            throw RequestError.oneOf(field: "kind", allowed: MailKind.allCases.filter(\.editable).map(\.rawValue), got: kind.rawValue)
        }
        let subject = try Check.required(put.subject, field: "subject", max: maxSubject)
        let body = try Check.required(put.body, field: "body", max: maxBody)
        for (field, text) in [("subject", subject), ("body", body)] {
            if let unknown = MessageTemplate(text).placeholders.first(where: { !kind.placeholders.contains($0) }) {
                throw MailError.unknownPlaceholder(field: field, name: unknown)
            }
        }
        if kind.listsLoans, !MessageTemplate(body).placeholders.contains("loans") { throw MailError.loansMissing }
        if kind == .signInLink, !MessageTemplate(body).placeholders.contains("link") { throw MailError.linkMissing }
        let now = scope.now
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("""
                DELETE FROM mail_templates WHERE library_id = \(bind: scope.libraryID) AND kind = \(bind: kind.rawValue) AND language = \(bind: language.rawValue)
                """).run()
            try await db.sql.raw("""
                INSERT INTO mail_templates (id, library_id, kind, language, subject, body, updated_at)
                VALUES (\(bind: UUID()), \(bind: scope.libraryID), \(bind: kind.rawValue), \(bind: language.rawValue), \(bind: subject), \(bind: body), \(bind: now))
                """).run()
            try await ActivityLog.record(.init(type: .editLibrary, info: "template \(kind.rawValue) \(language.rawValue)"), library: scope.library, at: now, on: db)
        }
        return dto(kind, language, Text(subject: subject, body: body, edited: true))
    }

    /// Back to the language's default.
    static func reset(kind: MailKind, language: Lang, in scope: Scope) async throws -> MailTemplateDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("""
                DELETE FROM mail_templates WHERE library_id = \(bind: scope.libraryID) AND kind = \(bind: kind.rawValue) AND language = \(bind: language.rawValue)
                """).run()
        }
        return dto(kind, language, defaultText(kind, Strings(lang: language)))
    }

    /// The message a template makes for `values`.
    static func render(_ text: Text, _ values: [String: String]) -> (subject: String, body: String) {
        let subject = MessageTemplate(text.subject).render(values).split(whereSeparator: \.isNewline).joined(separator: " ")
        return (String(subject.prefix(300)), MessageTemplate(text.body).render(values))
    }
}
