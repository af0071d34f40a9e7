import Fluent
import Foundation
import ShelfmarkCore

/// The members: search, the list with loans out, and adding a member for those who manage them.
struct MembersPage: Sendable {
    static let fields: Set<String> = ["cardId", "firstName", "lastName", "grade", "email"]

    var libraryID: UUID
    var q: String?
    var sort: MemberSort
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

    func with(report: MemberImportReport?) -> MembersPage {
        var page = self
        page.importReport = report
        return page
    }

    static func make(q: String?, sort: MemberSort, paging: Paging, form: FormState, library: LibraryContext, on db: any Database) async throws -> MembersPage {
        let q = q?.cleanedInput
        return MembersPage(libraryID: library.libraryID, q: q, sort: sort, paging: paging,
                           total: try await Members.count(query: q, libraryID: library.libraryID, on: db),
                           members: try await Members.list(query: q, sort: sort, libraryID: library.libraryID, limit: paging.size,
                                                           offset: paging.offset, on: db),
                           mayManage: library.role.may(.manageMembers), form: form)
    }

    /// This list with another order or page (a new order starts at page 1).
    func url(sort newSort: MemberSort? = nil, page: Int? = nil) -> String {
        let o = newSort ?? sort
        let p = page ?? (newSort == nil ? paging.number : 1)
        return WebRoute.members(library: libraryID).path(query: [("q", q), ("sort", o == .name ? nil : o.rawValue), ("page", p > 1 ? String(p) : nil)])
    }
}
