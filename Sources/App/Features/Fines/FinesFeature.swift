import Vapor

/// Fines: charges for late returns and lost books, payments and waivers.
enum FinesFeature: Feature {
    static let name = "Fines"
    static let tables: [DataTable] = [
        DataTable(name: "fines", rows: .byLibrary(), parents: ["loans", "members"], row: .of(FineRow.self), backup: .kept(key: "fines"), erase: .erased,
                  swap: .moved, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        FinesController.register(api)
        FinePages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(39, CreateFines()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { FineSettings.self }
}
