import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkPDF
import Vapor

/// Letters for members without an email address: one printable PDF, a letter per
/// member with overdue books — the library's name and contact, the date, the member, and the text of
/// the overdue reminder they are at (the library's own or the default, in the member's language) with
/// all their overdue books. Made with `PDFDocument` (cairo + pango), off the event loops.
enum Letters {
    struct Letter: Sendable {
        var name: String
        var cardID: String
        var language: Lang
        var subject: String
        var body: String
    }

    /// The letters due today: members with an overdue loan and no address a message can go to, by name.
    static func letters(library: UUID, now: Date, languages: [Lang], on db: any Database) async throws -> (Reminders.Sender, [Letter]) {
        let sender = try await Reminders.sender(library, on: db)
        let loans = try await Reminders.openLoans(library: library, before: now, on: db)
        let templates = try await MailTemplates.texts(library: library, on: db)
        var letters: [Letter] = []
        for (_, group) in Dictionary(grouping: loans, by: \.member_id) {
            let first = group[0]
            guard !(first.email.map(MailAddress.isValid) ?? false) else { continue }
            let stages = group.map { max(sender.policy.stage(dueAt: $0.due_at, now: now, calendar: sender.loans.calendar), .overdue1) }
            let lang = Reminders.language(first.language, library: sender, among: languages)
            let text = Reminders.compose(kind: MailKind(stages.max()!), loans: group, lang: lang, library: sender,
                                         templates: templates, now: now)
            letters.append(Letter(name: Member.fullName(first: first.first_name, last: first.last_name), cardID: first.card_id, language: lang,
                                  subject: text.subject, body: text.body))
        }
        letters.sort { ($0.name.lowercased(), $0.cardID) < ($1.name.lowercased(), $1.cardID) }
        return (sender, letters)
    }

    /// The PDF of `letters`: one A4 page a letter (more when a letter is long).
    static func pdf(_ letters: [Letter], sender: Reminders.Sender, now: Date, title: String) throws -> [UInt8] {
        try PDFDocument.make(size: .a4, title: title) { pdf in
            let margin = 56.0, width = pdf.size.width - 2 * margin, bottom = pdf.size.height - margin
            for letter in letters {
                pdf.newPage()
                let t = Strings(lang: letter.language, timeZone: sender.loans.timeZone)
                var y = margin
                y += pdf.text(sender.name, x: margin, y: y, width: width, style: .init(size: 14, bold: true), language: letter.language.rawValue)
                if !sender.contact.isEmpty {
                    y += pdf.text(sender.contact, x: margin, y: y, width: width, style: .small, language: letter.language.rawValue)
                }
                y += 6
                pdf.rule(x: margin, y: y, width: width)
                y += 14
                y += pdf.text(t.date(now), x: margin, y: y, width: width, style: .small, language: letter.language.rawValue) + 20
                y += pdf.text(letter.name + " · " + letter.cardID, x: margin, y: y, width: width, style: .init(size: 12, bold: true),
                              language: letter.language.rawValue) + 24
                y += pdf.text(letter.subject, x: margin, y: y, width: width, style: .heading, language: letter.language.rawValue) + 12
                // The text a paragraph at a time, on as many pages as it needs.
                for paragraph in letter.body.components(separatedBy: "\n\n") {
                    let height = pdf.height(of: paragraph, width: width, language: letter.language.rawValue)
                    if y + height > bottom {
                        pdf.newPage()
                        y = margin
                    }
                    y += pdf.text(paragraph, x: margin, y: y, width: width, language: letter.language.rawValue) + 10
                }
            }
        }
    }
}
