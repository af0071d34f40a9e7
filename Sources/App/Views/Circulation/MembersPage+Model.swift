import Fluent
import Foundation
import ShelfmarkCore

/// The members (B1): search, the list with loans out, and adding a member for those who manage them.
struct MembersPage: Sendable {
    static let fields: Set<String> = ["cardId", "firstName", "lastName", "grade", "email"]

    var libraryID: UUID
    var q: String?
    var members: [MemberDTO]
    var mayManage: Bool
    /// The add-member form: open, as typed and with the reason next to its field, after a refusal.
    var form: FormState

    static func make(q: String?, form: FormState, library: LibraryContext, on db: any Database) async throws -> MembersPage {
        let q = q?.cleanedInput
        return MembersPage(libraryID: library.libraryID, q: q,
                           members: try await Members.list(query: q, libraryID: library.libraryID, limit: 200, offset: 0, on: db),
                           mayManage: library.role.may(.manageMembers), form: form)
    }
}
