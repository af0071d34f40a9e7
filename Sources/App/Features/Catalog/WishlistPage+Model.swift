import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import SQLKit
import Vapor

/// The wishlist: the books wished for, and for those who catalog, a search at the providers
/// whose results can be added.
struct WishlistPage: Sendable {
    var libraryID: UUID
    var q: String?
    var candidates: [BookRecord]
    /// The providers were asked and none could answer (offline, down, late): not the same as "no match".
    var providersUnreachable: Bool
    var paging: Paging
    var total: Int
    var items: [TitleSummary]
    /// Who asked for each wish and its priority, by title id.
    var wishes: [UUID: (requestedBy: String?, priority: Int?)]
    var canEdit: Bool
    /// The library published its catalog: a shared wish opens the public wishlist (else the book at the store).
    var published = false
    /// The wish-by-hand form: as typed, with the reason next to its field, after a refusal.
    var form: FormState
    static let fields: Set<String> = ["title", "authors", "isbn", "requestedBy", "priority"]

    static func make(q: String?, paging: Paging, form: FormState = FormState(), library: LibraryContext, app: Application,
                     now: Date) async throws -> WishlistPage {
        var filters = TitleQuery.Filters()
        filters.wishlist = true
        filters.limit = paging.size
        filters.offset = paging.offset
        let list = try await TitleQuery.list(filters, libraryID: library.libraryID, now: now, on: app.db)
        let q = q?.cleanedInput
        let canEdit = library.role.may(.catalog)
        var candidates: [BookRecord] = []
        var unreachable = false
        if let q, !q.isEmpty, canEdit {
            let result = await (try await app.metadataLookup).search(SearchQuery(text: String(q.prefix(300)), limit: 10))
            candidates = result.candidates
            unreachable = candidates.isEmpty && !result.outcomes.isEmpty && !result.outcomes.contains { $0.status == .found || $0.status == .notFound }
        }
        let wishes = try await Catalog.wishDetails(list.items.map(\.id), on: app.db)
        var page = WishlistPage(libraryID: library.libraryID, q: q, candidates: candidates, providersUnreachable: unreachable, paging: paging,
                                total: list.total, items: list.items, wishes: wishes, canEdit: canEdit, form: form)
        page.published = try await app.db.sql.raw("SELECT public_catalog FROM libraries WHERE id = \(bind: library.libraryID)").first()?
            .decode(column: "public_catalog", as: Bool.self) ?? false
        return page
    }

    func url(page: Int) -> String {
        WebRoute.wishlist(library: libraryID).path(query: [("q", q), ("page", page > 1 ? String(page) : nil)])
    }
}
