import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkMail
import SQLKit
import Vapor

/// `shelfmark bench-reminders --smtp-port N`: the targets, on a library made for the run and
/// removed after it: 600 members (400 with an email address), 3,000 open loans of which 400 overdue;
/// the daily reminder run composes and hands every message to the SMTP server on 127.0.0.1:N (≤ 10 s),
/// and the letters PDF for 200 members without email is made (≤ 5 s). Prints one JSON line per round.
struct BenchRemindersCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "smtp-port", help: "Port of an SMTP server on 127.0.0.1 without encryption (scripts/bench-reminders.py starts one)")
        var smtpPort: Int?
        @Option(name: "rounds", help: "Rounds (default 5)")
        var rounds: Int?
    }

    var help: String { "Time the daily reminder run and the letters PDF at school size (benchmark helper)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        guard let port = signature.smtpPort, (1...65_535).contains(port) else { throw CLIError("--smtp-port is needed (1–65535).") }
        let rounds = max(1, min(signature.rounds ?? 5, 50))
        let app = context.application
        let library = Library(name: "Reminder bench \(UUID().uuidString.prefix(8))")
        try await app.writeGate.transaction(on: app.db) { db in try await library.create(on: db) }
        let libraryID = try library.requireID()
        do {
            try await Self.fill(libraryID, app: app)
            _ = try await MailServers.put(library: libraryID, MailServerPut(host: "127.0.0.1", port: port, security: .none,
                                                                            senderAddress: "library@school.example", senderName: "Bench"),
                                          mayUsePrivateHosts: true, box: try app.secretBox(), now: app.clock.now(), gate: app.writeGate, on: app.db)
            try await app.db.sql.raw("UPDATE libraries SET reminders_on = \(bind: true) WHERE id = \(bind: libraryID)").run()
            let clock = ContinuousClock()
            for round in 1...rounds {
                try await app.db.sql.raw("UPDATE loans SET reminder_stage = 0, reminded_at = NULL WHERE \(LibraryNumber.rows(of: "loans", libraryID))").run()
                try await app.db.sql.raw("DELETE FROM mail_messages WHERE library_id = \(bind: libraryID)").run()
                let started = clock.now
                let outcome = try await Reminders.run(library: libraryID, app: app)
                let run = (clock.now - started).seconds
                let lettersStarted = clock.now
                let now = app.clock.now()
                let (sender, letters) = try await Letters.letters(library: libraryID, now: now, languages: app.languages, on: app.db)
                let pdf = try await app.threadPool.runIfActive { try Letters.pdf(letters, sender: sender, now: now, title: "Bench") }
                let lettersTime = (clock.now - lettersStarted).seconds
                context.console.print("{\"round\": \(round), \"reminder_run_s\": \(String(format: "%.3f", run)), \"sent\": \(outcome.sent ?? 0), "
                                      + "\"failed\": \(outcome.failed ?? 0), \"letters_s\": \(String(format: "%.3f", lettersTime)), "
                                      + "\"letters\": \(letters.count), \"pdf_bytes\": \(pdf.count)}")
            }
        } catch {
            try? await Self.remove(libraryID, app: app)
            throw error
        }
        try await Self.remove(libraryID, app: app)
    }

    /// 3,000 titles with a copy each, 600 members in the four languages, five loans each: the first loan
    /// of each of the first 400 members overdue (400 overdue loans), the rest due in ten days; half of
    /// those 400 without email (200 letters), the other 200 are sent a message.
    static func fill(_ library: UUID, app: Application) async throws {
        let now = app.clock.now()
        let languages = ["en", "de", "ga", "zh-Hans"]
        try await app.writeGate.transaction(on: app.db) { db in
            let libraryNo = try await LibraryNumber.read(library, on: db.sql)
            var members: [UUID] = []
            for m in 0..<600 {
                let member = Member()
                member.id = UUID()
                member.$library.id = library
                member.cardID = String(format: "B%04d", m)
                member.firstName = ["Seán", "Mia", "小明", "Aoife", "Lukas"][m % 5]
                member.lastName = ["Ó Briain", "Keller", "王", "Ní Bhriain", "Schmidt"][m % 5] + " \(m)"
                member.email = m < 400 && m % 2 == 1 ? nil : "member\(m)@school.example"
                member.language = languages[m % 4]
                member.refreshDerived()
                try await member.create(on: db)
                members.append(member.id!)
            }
            for i in 0..<3_000 {
                let title = Title()
                title.id = UUID()
                title.libraryNo = libraryNo
                title.title = "Bench book \(i)"
                title.authors = ["Author \(i % 97)"]
                title.favorite = false
                title.wishlist = false
                title.refreshDerived()
                try await title.create(on: db)
                let copy = UUID()
                let memberIndex = i / 5
                let overdue = memberIndex < 400 && i % 5 == 0
                let due = now.addingTimeInterval(overdue ? -3 * 86_400 : 10 * 86_400)
                try await db.sql.raw("""
                    INSERT INTO copies (id, library_no, title_id, copy_number, barcode, status, created_at)
                    VALUES (\(bind: copy), \(LibraryNumber.of(library)), \(bind: title.id!), 1, \(bind: "BC\(i)"), 'on_loan', \(bind: now))
                    """).run()
                try await db.sql.raw("""
                    INSERT INTO loans (id, library_no, copy_id, title_id, member_id, title_text, member_card_id, member_name, checked_out_at, due_at,
                                       renewals, checked_out_by, reminder_stage)
                    VALUES (\(bind: UUID()), \(bind: libraryNo), \(bind: copy), \(bind: title.id!), \(bind: members[memberIndex]), \(bind: title.title),
                            \(bind: String(format: "B%04d", memberIndex)), 'Bench member', \(bind: now.addingTimeInterval(-20 * 86_400)), \(bind: due),
                            0, 'bench', 0)
                    """).run()
            }
        }
    }

    static func remove(_ library: UUID, app: Application) async throws {
        try await app.writeGate.transaction(on: app.db) { db in
            try await Backup.eraseData(libraryID: library, on: db)
            try await db.sql.raw("DELETE FROM mail_servers WHERE library_id = \(bind: library)").run()
            try await db.sql.raw("DELETE FROM libraries WHERE id = \(bind: library)").run()
        }
    }
}
