import Foundation
import Plot
import ShelfmarkCore

/// Smart collections: each one's chip on the catalog, its labels, and (librarians) delete.
struct CollectionsPage: Sendable {
    var libraryID: UUID
    var collections: [CollectionDTO]
    var mayEdit: Bool

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, collections, mayEdit) = (libraryID, collections, mayEdit)
        return Layout.page(page, title: t(.collectionsTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.collectionsTitle)) }
            if collections.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noCollections)) }
            }
            H.el(.ul, [.class: "menu"]) {
                for collection in collections {
                    H.el(.li, [.class: "card"]) {
                        H.link("★ " + collection.name, CatalogPage.link(lib, q: nil, chip: "col-" + collection.id.uuidString, grid: false, sort: .title, page: 1))
                        if page.may(.circulate) {
                            H.link(t(.printCollectionLabels), WebRoute.labels(library: lib).path(query: [("collection", collection.id.uuidString)]), cls: "button quiet")
                        }
                        if mayEdit {
                            H.form(WebRoute.collectionDelete(library: lib, collection: collection.id).path, csrf: page.csrf) {
                                H.button(t(.deleteCollection), kind: "quiet danger")
                            }
                        }
                    }
                }
            }
        }
    }
}
