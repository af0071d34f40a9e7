import Fluent
import Foundation
import ShelfmarkCore

/// A member's page (B1): card, current loans (each can be returned), history.
struct MemberPage: Sendable {
    var libraryID: UUID
    var detail: MemberDetail
    var mayEdit: Bool
    var maxRenewals: Int

    static func make(memberID: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> MemberPage {
        MemberPage(libraryID: library.libraryID, detail: try await Members.detail(memberID, libraryID: library.libraryID, now: now, on: db),
                   mayEdit: library.role.may(.manageMembers), maxRenewals: library.policy.maxRenewals)
    }
}
