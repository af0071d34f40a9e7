import Fluent
import Foundation
import SQLKit

extension Catalog {
    /// A title's name in the library, nil when there is no such title (a form naming one that was
    /// deleted meanwhile).
    static func titleName(_ titleID: UUID, library: UUID, on db: any Database) async throws -> String? {
        struct Row: Decodable { var title: String }
        return try await db.sql.raw("SELECT title FROM titles WHERE id = \(bind: titleID) AND library_no = \(LibraryNumber.of(library))")
            .first(decoding: Row.self)?.title
    }

    /// A copy of the library (its id, barcode and title), or `copyNotFound`.
    struct CopyRef: Decodable, Sendable { var id: UUID; var barcode: String; var title_id: UUID }

    static func copy(_ copyID: UUID, library: UUID, on db: any Database) async throws -> CopyRef {
        guard let copy = try await db.sql.raw("SELECT id, barcode, title_id FROM copies WHERE id = \(bind: copyID) AND library_no = \(LibraryNumber.of(library))")
            .first(decoding: CopyRef.self) else { throw CatalogError.copyNotFound }
        return copy
    }

    /// The wishlist's own fields (who asked, how much it matters) of these titles.
    static func wishDetails(_ ids: [UUID], on db: any Database) async throws -> [UUID: (requestedBy: String?, priority: Int?)] {
        guard !ids.isEmpty else { return [:] }
        struct Row: Decodable { var id: UUID; var requested_by: String?; var priority: Int? }
        var wishes: [UUID: (requestedBy: String?, priority: Int?)] = [:]
        for row in try await db.sql.raw("SELECT id, requested_by, priority FROM titles WHERE id IN (\(binds: ids))").all(decoding: Row.self) {
            wishes[row.id] = (row.requested_by, row.priority)
        }
        return wishes
    }
}
