import Fluent
import Foundation
import Vapor

/// The form that edits a member, with deleting them below it: filled with what is stored, or
/// after a refusal (a card ID another member has, an email that is not one) with what was typed.
struct EditMemberPage: Sendable {
    static let fields: Set<String> = ["cardId", "firstName", "lastName", "grade", "email", "notes", "language", "pin"]

    var libraryID: UUID
    var memberID: UUID
    var name: String
    var loansOut: Int
    var form: FormState
    /// Whether the member has a PIN for the public catalog.
    var hasPIN = false

    static func make(memberID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> EditMemberPage {
        let d = try await Members.detail(memberID, libraryID: library.libraryID, now: now, on: db)
        let m = d.member
        let values: [String: String?] = ["cardId": m.cardId, "firstName": m.firstName, "lastName": m.lastName, "grade": m.grade,
                                         "email": m.email, "notes": m.notes, "language": m.language]
        return EditMemberPage(libraryID: library.libraryID, memberID: memberID, name: m.name, loansOut: d.loans.count,
                              form: FormState(values: values.compactMapValues { $0 }),
                              hasPIN: try await MemberPortal.hasPIN(member: memberID, on: db))
    }

    static func refused(_ error: any Error, typed: [String: String], memberID: UUID, library: LibraryContext, now: Date,
                        t: Strings, on db: any Database) async throws -> EditMemberPage {
        var page = try await make(memberID: memberID, library: library, now: now, on: db)
        var typed = typed
        typed["pin"] = nil   // a PIN is never written back into a page
        page.form = FormState(values: typed, refusedWith: error, t: t, fields: fields)
        return page
    }
}
