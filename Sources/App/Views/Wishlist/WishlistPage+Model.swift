import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

/// The wishlist (C1, C2): the books wished for, and for those who catalog, a search at the providers
/// whose results can be added.
struct WishlistPage: Sendable {
    var libraryID: UUID
    var q: String?
    var candidates: [BookRecord]
    var items: [TitleSummary]
    var canEdit: Bool

    static func make(q: String?, library: LibraryContext, app: Application, now: Date) async throws -> WishlistPage {
        var filters = TitleQuery.Filters()
        filters.wishlist = true
        filters.limit = 200
        let items = try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: app.db).items
        let q = q?.cleanedInput
        let canEdit = library.role.may(.catalog)
        var candidates: [BookRecord] = []
        if let q, !q.isEmpty, canEdit {
            candidates = await app.metadataLookup.search(SearchQuery(text: String(q.prefix(300)), limit: 10)).candidates
        }
        return WishlistPage(libraryID: library.libraryID, q: q, candidates: candidates, items: items, canEdit: canEdit)
    }
}
