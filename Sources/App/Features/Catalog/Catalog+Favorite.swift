import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

extension Catalog {
    /// Flips a title's favorite mark in one statement: two taps at once flip it twice, and neither
    /// reads a value the other is about to change. Logged with the mark it now has.
    @discardableResult
    static func toggleFavorite(_ titleID: UUID, in scope: Scope) async throws -> Bool {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            guard let row = try await db.sql.raw("""
                UPDATE titles SET favorite = NOT favorite, updated_at = \(bind: now)
                WHERE id = \(bind: titleID) AND library_no = \(LibraryNumber.of(library.libraryID))
                RETURNING favorite
                """).first()
            else { throw CatalogError.titleNotFound }
            let favorite = try row.decode(column: "favorite", as: Bool.self)
            let title = try await find(titleID, library: library.libraryID, on: db)
            try await ActivityLog.record(.init(type: .editBook, titleID: titleID, title: title.title, author: title.authorLine,
                                               detail: .favorite(favorite)),
                                         library: library, at: now, on: db)
            return favorite
        }
    }
}
