import Fluent
import Foundation
import Plot
import ShelfmarkCore

/// One message's text in one language: subject and text with the placeholders its kind
/// may use, saved as the library's, or back to the language's default.
struct MailTemplatePage: Sendable {
    static let fields: Set<String> = ["subject", "body"]

    var libraryID: UUID
    var kind: MailKind
    var language: Lang
    var languages: [Lang]
    var edited: Bool
    var form: FormState

    static func make(kind: MailKind, language: Lang, languages: [Lang], library: UUID, on db: any Database) async throws -> MailTemplatePage {
        let text = try await MailTemplates.text(library: library, kind: kind, language: language, on: db)
        return MailTemplatePage(libraryID: library, kind: kind, language: language, languages: languages, edited: text.edited,
                                form: FormState(values: ["subject": text.subject, "body": text.body]))
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let form = form
        let title = RemindersPage.kindName(kind, t)
        return Layout.page(page, title: title) {
            H.el(.p, [:]) { H.link("← " + t(.remindersTitle), WebRoute.reminders(library: lib).path + "#texts") }
            H.el(.h1, [:]) { EscapedText(title) }
            H.el(.nav, [.class: "chips"]) {
                for lang in languages {
                    Components.chipLink(lang.nativeName, WebRoute.mailTemplate(library: lib).path(query: [("kind", kind.rawValue), ("lang", lang.rawValue)]),
                                        current: lang == language)
                }
            }
            H.form(WebRoute.mailTemplate(library: lib).path(query: [("kind", kind.rawValue), ("lang", language.rawValue)]), csrf: page.csrf,
                   attrs: [.class: "card", .lang: language.rawValue]) {
                if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
                H.field(t(.templateSubjectField), name: "subject", value: form["subject"], required: true, error: form.errors["subject"],
                        extra: [.maxlength: String(MailTemplates.maxSubject)])
                H.textarea(t(.templateBodyField), name: "body", value: form["body"], rows: 14, error: form.errors["body"])
                H.el(.p, [.class: "hint"]) {
                    EscapedText(t.format(.templatePlaceholders, kind.placeholders.map { "{\($0)}" }.joined(separator: ", ")))
                }
                H.el(.div, [.class: "actions"]) {
                    H.button(t(.save), attrs: [.name: "action", .value: "save"])
                    if edited { H.button(t(.templateReset), kind: "secondary", attrs: [.name: "action", .value: "reset"]) }
                }
            }
        }
    }
}
