import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Borrowers.
enum Members {
    static func create(_ input: MemberInput, in scope: Scope) async throws -> MemberDTO {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let member = Member()
        member.$library.id = library.libraryID
        try apply(MemberPatch(cardId: input.cardId, firstName: input.firstName, lastName: input.lastName ?? "",
                              grade: input.grade, email: input.email, notes: input.notes, language: input.language), to: member, creating: true)
        return try await gate.transaction(on: db) { db in
            try await refuseDuplicateCard(member.cardID, except: nil, library: library.libraryID, on: db)
            try await member.create(on: db)
            try await ActivityLog.record(.init(type: .addMember, memberCardID: member.cardID, info: member.fullName),
                                         library: library, at: now, on: db)
            return member.dto(activeLoans: 0)
        }
    }

    static func update(_ id: UUID, _ patch: MemberPatch, in scope: Scope) async throws -> MemberDTO {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            let member = try await find(id, library: library.libraryID, on: db)
            let oldCard = member.cardID
            try apply(patch, to: member, creating: false)
            if member.cardID != oldCard {
                try await refuseDuplicateCard(member.cardID, except: id, library: library.libraryID, on: db)
            }
            try await member.save(on: db)
            if member.cardID != oldCard {
                // The card ID is the member's name in the history; keep open loans findable by the new one.
                try await Loan.query(on: db).filter(\.$member.$id == id).filter(\.$returnedAt == nil)
                    .set(\.$memberCardID, to: member.cardID).update()
            }
            try await ActivityLog.record(.init(type: .editMember, memberCardID: member.cardID, info: member.fullName),
                                         library: library, at: now, on: db)
            return member.dto(activeLoans: try await activeLoanCount(id, on: db))
        }
    }

    /// Deleting a member with loans out needs `confirm`; their books are then returned and the loan
    /// history stays, under the member's card ID and name. Their open holds are cancelled; their fines
    /// and closed holds stay without them (the reports' money and holds figures do not change).
    static func delete(_ id: UUID, confirm: Bool, in scope: Scope) async throws {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        try await gate.transaction(on: db) { db in
            let member = try await find(id, library: library.libraryID, on: db)
            let open = try await Loan.query(on: db).filter(\.$member.$id == id).filter(\.$returnedAt == nil).all()
            if !open.isEmpty, !confirm {
                throw MemberError.hasLoans(name: member.fullName, count: open.count)
            }
            for loan in open {
                loan.returnedAt = now
                try await loan.save(on: db)
                if let copyID = loan.$copy.id {
                    try await Copy.query(on: db).filter(\.$id == copyID).filter(\.$status == CopyStatus.onLoan.rawValue)
                        .set(\.$status, to: CopyStatus.available.rawValue).update()
                }
                try await ActivityLog.record(.init(type: .returnBook, titleID: loan.$title.id, title: loan.titleText,
                                                   memberCardID: member.cardID, detail: .returnedOnMemberDeletion),
                                             library: library, at: now, on: db)
            }
            // Their holds end here (a book set aside for them passes to the next in line); the closed holds
            // and the fines stay, without the member, for the library's figures.
            try await Holds.closeOpen(members: [id], in: scope, on: db)
            try await member.delete(on: db)
            try await ReadingDays.keepUnnamed(reader: .member(id), library: library.libraryID, on: db.sql)
            try await ActivityLog.record(.init(type: .deleteMember, memberCardID: member.cardID, info: member.fullName),
                                         library: library, at: now, on: db)
        }
    }

    /// Members who have left (a roster sync, the rollover, or a librarian): they keep their loans and
    /// counts, borrow nothing, leave the lists; their open holds end (a copy set aside passes on).
    /// Inside the caller's transaction.
    static func archive(_ ids: [UUID], in scope: Scope, on db: any Database) async throws {
        guard !ids.isEmpty else { return }
        for chunk in ids.chunked(500) {
            try await db.sql.raw("""
                UPDATE members SET archived_at = \(bind: scope.now) WHERE id IN (\(binds: chunk)) AND library_id = \(bind: scope.libraryID)
                  AND archived_at IS NULL
                """).run()
        }
        try await Holds.closeOpen(members: ids, in: scope, on: db)
    }

    /// One member archived or brought back by a librarian.
    static func setArchived(_ id: UUID, _ archived: Bool, in scope: Scope) async throws -> MemberDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            let member = try await find(id, library: scope.libraryID, on: db)
            if archived, member.archivedAt == nil {
                try await archive([id], in: scope, on: db)
                try await ActivityLog.record(.init(type: .memberArchived, memberCardID: member.cardID, info: member.fullName),
                                             library: scope.library, at: scope.now, on: db)
                try await AuditLog.record(.init(action: .memberArchived, member: id), in: scope, on: db)
            } else if !archived, member.archivedAt != nil {
                try await db.sql.raw("UPDATE members SET archived_at = NULL WHERE id = \(bind: id)").run()
                try await ActivityLog.record(.init(type: .memberUnarchived, memberCardID: member.cardID, info: member.fullName),
                                             library: scope.library, at: scope.now, on: db)
                try await AuditLog.record(.init(action: .memberUnarchived, member: id), in: scope, on: db)
            }
            let fresh = try await find(id, library: scope.libraryID, on: db)
            return fresh.dto(activeLoans: try await activeLoanCount(id, on: db))
        }
    }

    /// Search by card ID or name, matching the start of any word, case- and diacritic-insensitive.
    /// Members matching `query` (card ID, names or class, as word prefixes), in `sort`'s order.
    /// `archived`: those who have left instead of the library's members.
    static func list(query: String?, sort: MemberSort = .name, archived: Bool = false, libraryID: UUID, limit: Int, offset: Int,
                     on db: any Database) async throws -> [MemberDTO] {
        var builder = matching(query, archived: archived, libraryID: libraryID, on: db)
        switch sort {
        case .name: builder = builder.sort(\.$lastName).sort(\.$firstName).sort(\.$cardID)
        case .card: builder = builder.sort(\.$cardID)
        case .grade: builder = builder.sort(\.$grade).sort(\.$lastName).sort(\.$firstName).sort(\.$cardID)
        }
        let members = try await builder.range(offset..<(offset + limit)).all()
        let ids = members.compactMap(\.id)
        var counts: [UUID: Int] = [:]
        if !ids.isEmpty {
            let rows = try await db.sql.raw("""
                SELECT member_id, COUNT(*) AS n FROM loans WHERE member_id IN (\(binds: ids)) AND returned_at IS NULL GROUP BY member_id
                """).all()
            for row in rows { counts[try row.decode(column: "member_id", as: UUID.self)] = try row.decode(column: "n", as: Int.self) }
        }
        return members.map { $0.dto(activeLoans: counts[$0.id!] ?? 0) }
    }

    static func count(query: String?, archived: Bool = false, libraryID: UUID, on db: any Database) async throws -> Int {
        try await matching(query, archived: archived, libraryID: libraryID, on: db).count()
    }

    private static func matching(_ query: String?, archived: Bool, libraryID: UUID, on db: any Database) -> QueryBuilder<Member> {
        var builder = Member.query(on: db).filter(\.$library.$id == libraryID)
        builder = archived ? builder.filter(\.$archivedAt != nil) : builder.filter(\.$archivedAt == nil)
        for token in SearchText.queryWords(query ?? "") {
            builder = builder.filter(\.$searchText ~~ " \(token)")
        }
        return builder
    }

    static func detail(_ id: UUID, libraryID: UUID, now: Date, on db: any Database) async throws -> MemberDetail {
        let member = try await find(id, library: libraryID, on: db)
        let loans = try await Loan.query(on: db).filter(\.$member.$id == id).sort(\.$checkedOutAt, .descending).limit(500).all()
        let dtos = try await Circulation.withBarcodes(loans, now: now, on: db)
        let active = dtos.filter { $0.returnedAt == nil }.sorted { $0.dueAt < $1.dueAt }
        return MemberDetail(member: member.dto(activeLoans: active.count), loans: active, history: dtos.filter { $0.returnedAt != nil })
    }

    static func find(_ id: UUID, library: UUID, on db: any Database) async throws -> Member {
        guard let member = try await Member.query(on: db).filter(\.$id == id).filter(\.$library.$id == library).first() else {
            throw MemberError.notFound
        }
        return member
    }

    private static func activeLoanCount(_ id: UUID, on db: any Database) async throws -> Int {
        try await Loan.query(on: db).filter(\.$member.$id == id).filter(\.$returnedAt == nil).count()
    }

    private static func refuseDuplicateCard(_ card: String, except id: UUID?, library: UUID, on db: any Database) async throws {
        if let otherID = try await Lookup.member(card: card, library: library, on: db), otherID != id,
           let other = try await Member.find(otherID, on: db) {
            throw MemberError.duplicateCard(card: card, holder: other.fullName)
        }
    }

    /// Checks and sets a member's fields (every write of a member: the API, the pages, a class list).
    static func apply(_ patch: MemberPatch, to member: Member, creating: Bool) throws {
        if creating || patch.cardId != nil {
            member.cardID = try Check.identifier(patch.cardId, field: "cardId", spaces: false)
        }
        if creating || patch.firstName != nil { member.firstName = try Check.required(patch.firstName, field: "firstName", max: 100) }
        if creating || patch.lastName != nil { member.lastName = try Check.optional(patch.lastName, field: "lastName", max: 100) ?? "" }
        if patch.grade != nil { member.grade = try Check.optional(patch.grade, field: "grade", max: 50) }
        if patch.email != nil { member.email = try Check.email(patch.email) }
        if patch.notes != nil { member.notes = try Check.optional(patch.notes, field: "notes", max: 10_000) }
        if let code = try Check.optional(patch.language, field: "language", max: 20) {
            guard Lang(rawValue: code) != nil else { throw MailError.unknownLanguage(code) }
            member.language = code
        } else if patch.language != nil {
            member.language = nil
        }
        member.refreshDerived()
    }
}

extension Member {
    func dto(activeLoans: Int) -> MemberDTO {
        MemberDTO(id: id!, cardId: cardID, firstName: firstName, lastName: lastName, name: fullName, grade: grade,
                  email: email, notes: notes, language: language, activeLoans: activeLoans, rosterId: rosterID, guardianEmail: guardianEmail,
                  archivedAt: archivedAt)
    }
}
