import Foundation
import ShelfmarkCore
import Testing

/// Messages as RFC 5322, MIME and RFC 2047 write them; the reminder stages of B6.
@Suite struct MailMessageTests {
    func message(to name: String, subject: String, text: String) -> String {
        let m = MailMessage(from: MailAddress("library@school.example", name: "Room 12"), to: MailAddress("a@example.org", name: name),
                            subject: subject, text: text, language: "ga", date: Date(timeIntervalSince1970: 1_790_000_000), id: "abc")
        return String(decoding: m.bytes, as: UTF8.self)
    }

    @Test func headersAreASCIIWithEncodedWordsOfAtMost75Characters() {
        let long = String(repeating: "王小明的书 ", count: 30)
        let raw = message(to: "Seán Ó Briain", subject: long, text: "Dia duit")
        #expect(raw.utf8.allSatisfy { $0 < 128 })
        let headers = raw.components(separatedBy: "\r\n\r\n")[0]
        for line in headers.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 78, "\(line)")
            for word in line.split(separator: " ") where word.hasPrefix("=?") { #expect(word.count <= 75) }
        }
        // Each encoded word holds whole characters: decoded one by one, they give the subject back.
        let subjectLines = headers.components(separatedBy: "\r\n").drop { !$0.hasPrefix("Subject:") }.prefix { $0.hasPrefix("Subject:") || $0.hasPrefix(" ") }
        let decoded = subjectLines.flatMap { $0.split(separator: " ") }.filter { $0.hasPrefix("=?UTF-8?B?") }.map { word -> String in
            let base64 = word.dropFirst(10).dropLast(2)
            return String(data: Data(base64Encoded: String(base64))!, encoding: .utf8)!
        }.joined()
        #expect(decoded == long.trimmingCharacters(in: .whitespaces) || decoded == long)
        #expect(headers.contains("To: =?UTF-8?B?") && headers.contains("<a@example.org>") && headers.contains("Content-Language: ga"))
        #expect(headers.contains("From: \"Room 12\" <library@school.example>") && headers.contains("Message-ID: <abc@school.example>"))
        #expect(headers.contains("Date: ") && headers.contains("+0000"))
    }

    @Test func attachmentsGoInBase64PartsWithTheirNames() throws {
        let pdf = Data((0..<300).map { UInt8($0 % 256) })
        let m = MailMessage(from: MailAddress("library@school.example"), to: MailAddress("head@school.example"), subject: "Loans",
                            text: "Grüße\n.", language: "de", date: Date(timeIntervalSince1970: 1_790_000_000), id: "a1-b2",
                            attachments: [MailAttachment(name: "Ausleihe März.pdf", type: "application/pdf", data: pdf),
                                          MailAttachment(name: "loans\r\nBcc: x@y.z.csv", type: "text/csv\r\nX: y", data: Data("a,b\r\n".utf8))])
        let raw = String(decoding: m.bytes, as: UTF8.self)
        #expect(raw.utf8.allSatisfy { $0 < 128 })
        let (head, body) = (raw.components(separatedBy: "\r\n\r\n")[0], raw.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n"))
        #expect(head.contains("Content-Type: multipart/mixed;\r\n boundary=\"=_shelfmark_a1b2\""))
        let parts = body.components(separatedBy: "--=_shelfmark_a1b2")
        // Before the first boundary, the text, two files, and the closing "--".
        #expect(parts.count == 5 && parts.last?.hasPrefix("--") == true)
        #expect(parts[1].contains("text/plain; charset=UTF-8") && parts[1].contains("Gr=C3=BC=C3=9Fe"))
        #expect(parts[2].contains("filename*=UTF-8''Ausleihe%20M%C3%A4rz.pdf") && parts[2].contains("Content-Type: application/pdf"))
        let encoded = parts[2].components(separatedBy: "\r\n\r\n")[1].replacingOccurrences(of: "\r\n", with: "")
        #expect(Data(base64Encoded: encoded) == pdf)
        #expect(parts[2].components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 })
        // A name or type with a line break adds no header.
        #expect(!raw.contains("\r\nBcc:") && !raw.contains("\r\nX: y"))
        #expect(parts[3].contains("Content-Type: application/octet-stream; name=\"loansBcc: x@y.z.csv\""))
    }

    @Test func aNameCannotAddAHeader() {
        let raw = message(to: "Eve\r\nBcc: all@example.org", subject: "Hi\r\nBcc: x@example.org", text: "x")
        let headers = raw.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(!headers.contains { $0.hasPrefix("Bcc:") })
        #expect(!MailAddress.isValid("eve@example.org>\r\nRCPT TO:<x@y.z") && !MailAddress.isValid("a b@c.de") && MailAddress.isValid("sean.o@example.ie"))
    }

    @Test func theTextIsQuotedPrintableWithShortLinesAndDotsAreStuffed() {
        let text = "Dia duit Seán,\n" + String(repeating: "é", count: 60) + "\n.\nend = done "
        let qp = MailMessage.quotedPrintable(text)
        #expect(qp.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 })
        #expect(qp.contains("Se=C3=A1n") && qp.contains("=3D") && qp.hasSuffix("done=20"))
        let stuffed = MailMessage.dotStuffed(Array("a\r\n.\r\n..b\r\n".utf8))
        #expect(String(decoding: stuffed, as: UTF8.self) == "a\r\n..\r\n...b\r\n")
    }
}

@Suite struct ReminderPolicyTests {
    var calendar: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "Europe/Dublin")!
        return c
    }

    func day(_ d: Int, _ hour: Int = 23) -> Date {
        calendar.date(from: DateComponents(year: 2026, month: 12, day: d, hour: hour, minute: 59))!
    }

    @Test func aLoanMovesThroughItsStagesByWholeDays() {
        let policy = ReminderPolicy(on: true, hour: 8, beforeDays: 2, overdueDays: [1, 7, 14])
        let due = day(10)
        #expect(policy.stage(dueAt: due, now: day(7, 9), calendar: calendar) == .none)
        #expect(policy.stage(dueAt: due, now: day(8, 9), calendar: calendar) == .dueSoon)
        #expect(policy.stage(dueAt: due, now: day(10, 9), calendar: calendar) == .dueSoon)
        #expect(policy.stage(dueAt: due, now: day(11, 8), calendar: calendar) == .overdue1)
        #expect(policy.stage(dueAt: due, now: day(16, 8), calendar: calendar) == .overdue1)
        #expect(policy.stage(dueAt: due, now: day(17, 8), calendar: calendar) == .overdue2)
        // A run missed for days sends the stage reached, not each one passed.
        #expect(policy.stage(dueAt: due, now: day(30, 8), calendar: calendar) == .overdue3)
        let noSoon = ReminderPolicy(on: true, beforeDays: nil, overdueDays: [3])
        #expect(noSoon.stage(dueAt: due, now: day(9), calendar: calendar) == .none)
        #expect(noSoon.stage(dueAt: due, now: day(12), calendar: calendar) == .none)
        #expect(noSoon.stage(dueAt: due, now: day(13), calendar: calendar) == .overdue1)
    }

    @Test func overdueDaysAreKeptInOrderAndNeverTwiceOnOneDay() throws {
        #expect(try ReminderPolicy.checkOverdue([14, nil, 1]) == [1, 14])
        #expect(throws: ReminderPolicy.Invalid.overdueNotIncreasing(field: "overdueDays2")) { try ReminderPolicy.checkOverdue([7, 7]) }
    }
}
