import Vapor

/// Shelves as places (a name, a room, a code on a label) and the stocktakes taken at them.
enum ShelvesFeature: Feature {
    static let name = "Shelves"
    static let tables: [DataTable] = [
        DataTable(name: "shelves", rows: .byLibrary(), row: .of(ShelfRow.self), backup: .kept(key: "shelves"), erase: .erased, swap: .moved, forget: .cascade),
        DataTable(name: "shelf_counts", rows: .byLibrary(), backup: .no("counts: triggers keep them from the copies"),
                  erase: .no("triggers keep them with the copies"), swap: .no("triggers keep them with the copies"), forget: .deleted),
        DataTable(name: "stocktakes", rows: .byLibrary(), parents: ["shelves"], row: .of(StocktakeRow.self), backup: .kept(key: "stocktakes"), erase: .erased,
                  swap: .moved, forget: .cascade),
        DataTable(name: "stocktake_scans", rows: .childOf("stocktakes", key: "stocktake_id"), parents: ["copies", "stocktakes"],
                  row: .of(StocktakeScanRow.self), backup: .kept(key: "stocktakeScans"), erase: .erased, swap: .followsParent, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ShelvesController.register(api)
        ShelfPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(44, CreateShelves()),
            Landed(49, AddShelfCounts()),
        ]
    }
}
