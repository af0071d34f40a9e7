import Fluent
import Foundation
import ShelfmarkCore

/// The members: search, the list with loans out, and adding a member for those who manage them.
struct MembersPage: Sendable {
    static let fields: Set<String> = ["cardId", "firstName", "lastName", "grade", "email"]

    var libraryID: UUID
    var q: String?
    var sort: MemberSort
    /// Those who have left (archived), instead of the members.
    var archived = false
    var paging: Paging
    var total: Int
    var members: [MemberDTO]
    var mayManage: Bool
    /// The add-member form: open, as typed and with the reason next to its field, after a refusal.
    var form: FormState
    /// A class list just imported: what it did, line by line.
    var importReport: MemberImportReport? = nil
    /// A class list refused as a whole (not a member list, too large …).
    var importError: String? = nil
    /// How many have left (the link to them).
    var archivedCount = 0

    func with(report: MemberImportReport?) -> MembersPage {
        var page = self
        page.importReport = report
        return page
    }

    static func make(q: String?, sort: MemberSort, archived: Bool = false, paging: Paging, form: FormState, library: LibraryContext,
                     on db: any Database) async throws -> MembersPage {
        let q = q?.cleanedInput
        var page = MembersPage(libraryID: library.libraryID, q: q, sort: sort, archived: archived, paging: paging,
                               total: try await Members.count(query: q, archived: archived, libraryID: library.libraryID, on: db),
                               members: try await Members.list(query: q, sort: sort, archived: archived, libraryID: library.libraryID,
                                                               limit: paging.size, offset: paging.offset, on: db),
                               mayManage: library.role.may(.manageMembers), form: form)
        page.archivedCount = archived ? page.total : try await Members.count(query: nil, archived: true, libraryID: library.libraryID, on: db)
        return page
    }

    /// This list with another order or page (a new order starts at page 1).
    func url(sort newSort: MemberSort? = nil, page: Int? = nil) -> String {
        let o = newSort ?? sort
        let p = page ?? (newSort == nil ? paging.number : 1)
        return WebRoute.members(library: libraryID).path(query: [("q", q), ("sort", o == .name ? nil : o.rawValue), ("page", p > 1 ? String(p) : nil),
                                                                 ("archived", archived ? "true" : nil)])
    }
}
