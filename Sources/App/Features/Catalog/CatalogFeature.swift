import Vapor

/// Titles, their copies and categories, covers, the search index and counts, saved collections, the
/// wishlist, and what metadata lookups answered.
enum CatalogFeature: Feature {
    static let name = "Catalog"
    static let tables: [DataTable] = [
        DataTable(name: "categories", rows: .byLibrary(), backup: .kept(key: "categories"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "titles", rows: .byLibrary(), backup: .kept(key: "titles"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "title_categories", rows: .childOf("titles", key: "title_id"), parents: ["categories", "titles"],
                  backup: .kept(key: "titleCategories"), erase: .erased, swap: .followsParent, forget: .cascade),
        DataTable(name: "copies", rows: .byLibrary(), parents: ["titles"], backup: .kept(key: "copies"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "covers", rows: .server, backup: .kept(key: "covers"),
                  erase: .no("covers are shared between libraries by their content: another library's title may show the same one"),
                  swap: .no("shared between libraries"), forget: .no("shared between libraries")),
        DataTable(name: "title_search", rows: .server, onlyOn: "sqlite", backup: .no("the search index: triggers write it from the titles"),
                  erase: .no("triggers keep it with the titles"), swap: .no("triggers keep it with the titles"),
                  forget: .no("triggers keep it with the titles")),
        DataTable(name: "title_counts", rows: .byLibrary(), backup: .no("counts: triggers keep them from the titles"),
                  erase: .no("triggers keep them with the titles"), swap: .no("triggers keep them with the titles"), forget: .deleted),
        DataTable(name: "copy_counts", rows: .byLibrary(), backup: .no("counts: triggers keep them from the copies"),
                  erase: .no("triggers keep them with the copies"), swap: .no("triggers keep them with the copies"), forget: .deleted),
        DataTable(name: "collections", rows: .byLibrary(), backup: .kept(key: "collections"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "lookup_cache", rows: .server, backup: .no("what providers answered, by ISBN, for every library"),
                  erase: .no("shared between libraries"), swap: .no("shared between libraries"), forget: .no("shared between libraries")),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        TitlesController.register(api)
        CollectionsController.register(api)
        LookupController.register(api)
        CatalogPages.register(web)
        CatalogPages.registerAdd(web)
        EditTitlePages.register(web)
        WishlistPages.register(web)
    }

    static func backgroundLoops() -> [BackgroundLoop] { [EnrichmentWorker.loop()] }
}
