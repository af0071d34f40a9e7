import Foundation
import ShelfmarkCore

/// Whether the library's catalog is public, and whether search engines may index it.
struct PublicCatalogSettings: LibrarySettings {
    var publicCatalog: Bool?
    /// Off: every public page says `noindex`.
    var catalogIndexable: Bool?

    static var schemaConstraints: [String: JSONValue] { [:] }

    func apply(to library: Library) throws {
        if let isPublic = publicCatalog { library.publicCatalog = isPublic }
        if let indexable = catalogIndexable { library.catalogIndexable = indexable }
    }
}
