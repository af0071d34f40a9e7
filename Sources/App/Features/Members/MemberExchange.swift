import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// What a member-list import did: members added, and each line it skipped (a card ID the library
/// has) or could not take (a missing name, a card ID with spaces …), by line.
struct MemberImportReport: Content {
    var rowsRead: Int
    var membersCreated: Int
    var skipped: [ImportRowNote]
    var failed: [ImportRowNote]
    var stoppedAt: String?
}

/// Bringing a class in at once: a class list from a spreadsheet in, the member list out.
enum MemberExchange {
    /// A class list is small; a whole school's is a few thousand lines.
    static let maxBytes = 2 << 20
    static let maxRows = 20_000

    /// Adds the members of a CSV (card ID, first and last name or one name, class, e-mail): every good
    /// line, in one transaction; a card ID the library has (whatever its case) is skipped and said.
    static func importList(_ data: Data, in scope: Scope) async throws -> MemberImportReport {
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        guard data.count <= maxBytes else { throw ExchangeError.memberListTooLarge(maxMB: maxBytes >> 20) }
        if Backup.looksLikeBackup(data) { throw ExchangeError.backupChosenAsImport }
        let text = TextDecoding.decode(data).text
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(String(text.prefix(4_096))))
        guard let header = reader.next() else {
            if let failure = reader.failure { throw ExchangeError.csv(failure) }
            throw ExchangeError.emptyFile
        }
        let mapper: MemberListMapper
        do { mapper = try MemberListMapper(header: header.fields) } catch {
            switch error { case .missingColumns(let columns): throw ExchangeError.missingColumns(columns) }
        }
        var report = MemberImportReport(rowsRead: 0, membersCreated: 0, skipped: [], failed: [], stoppedAt: nil)
        var records: [MemberListMapper.Record] = []
        while let row = reader.next() {
            if row.fields.allSatisfy({ $0.trimmed.isEmpty }) { continue }
            report.rowsRead += 1
            guard report.rowsRead <= maxRows else { throw ExchangeError.memberListTooLarge(maxMB: maxBytes >> 20) }
            do {
                records.append(try mapper.record(row))
            } catch {
                report.failed.append(ImportRowNote(line: row.line, memberError: error))
            }
        }
        if let failure = reader.failure {
            report.stoppedAt = failure.description
            report.failed.append(ImportRowNote(csv: failure))
        }
        let (library, now, gate) = (scope.library, scope.now, scope.gate)
        let (read, taking) = (report, records)
        return try await gate.transaction(on: scope.db) { db in
            var report = read
            struct Row: Decodable { var card_id: String; var first_name: String; var last_name: String }
            var taken: [String: String] = [:]
            for row in try await db.sql.raw("SELECT card_id, first_name, last_name FROM members WHERE library_id = \(bind: library.libraryID)")
                .all(decoding: Row.self) {
                taken[row.card_id.uppercased()] = Member.fullName(first: row.first_name, last: row.last_name)
            }
            var added = 0
            for record in taking {
                let name = Member.fullName(first: record.firstName, last: record.lastName)
                if let holder = taken[record.cardID.uppercased()] {
                    report.skipped.append(ImportRowNote(line: record.line, title: name, reason: "Card ID \(record.cardID) already belongs to \(holder)",
                                                        code: "card_taken", values: ["card": record.cardID, "name": holder]))
                    continue
                }
                let member = Member()
                member.$library.id = library.libraryID
                do {
                    try Members.apply(MemberPatch(cardId: record.cardID, firstName: record.firstName, lastName: record.lastName,
                                                  grade: record.grade, email: record.email, notes: nil), to: member, creating: true)
                } catch {
                    report.failed.append(ImportRowNote(line: record.line, title: name, reason: error.answered.message, problem: error as? InputProblem))
                    continue
                }
                try await member.create(on: db)
                taken[member.cardID.uppercased()] = name
                added += 1
            }
            report.membersCreated = added
            if added > 0 {
                try await ActivityLog.record(.init(type: .addMember, detail: .membersImported(added)), library: library, at: now, on: db)
            }
            return report
        }
    }

    /// The library's members as CSV (`Card ID, First Name, Last Name, Class, Email`), by class and name;
    /// it reads back as a member list.
    static func exportCSV(libraryID: UUID, on db: any Database) async throws -> Data {
        struct Row: Decodable { var card_id: String; var first_name: String; var last_name: String; var grade: String?; var email: String? }
        let rows = try await db.sql.raw("""
            SELECT card_id, first_name, last_name, grade, email FROM members WHERE library_id = \(bind: libraryID)
            ORDER BY grade, last_name, first_name, card_id
            """).all(decoding: Row.self)
        var out: [UInt8] = []
        CSVWriter.appendLine(MemberListMapper.exportColumns, to: &out)
        for r in rows { CSVWriter.appendLine([r.card_id, r.first_name, r.last_name, r.grade ?? "", r.email ?? ""], to: &out) }
        return Data(out)
    }
}

extension ImportRowNote {
    /// A line of a member list that could not be taken.
    init(line: Int, memberError: MemberListMapper.RowError) {
        switch memberError {
        case .missing(let column):
            self.init(line: line, title: nil, reason: memberError.description, code: "missing", values: ["column": column])
        case .cardHasSpaces(let card):
            self.init(line: line, title: nil, reason: memberError.description, code: "card_spaces", values: ["card": ImportMapper.RowError.quote(card)])
        case .wrongFieldCount(let expected, let found):
            self.init(line: line, title: nil, reason: memberError.description, code: "field_count",
                      values: ["expected": String(expected), "found": String(found)])
        }
    }
}
