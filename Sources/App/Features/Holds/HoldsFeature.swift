import Vapor

/// Holds: a member's place in the queue for a title, a copy set aside for them.
enum HoldsFeature: Feature {
    static let name = "Holds"
    static let tables: [DataTable] = [
        DataTable(name: "holds", rows: .byLibrary(), parents: ["copies", "members", "titles"], row: .of(HoldRow.self), backup: .kept(key: "holds"), erase: .erased,
                  swap: .moved, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        HoldsController.register(api)
        HoldPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(37, CreateHolds()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { HoldSettings.self }
}
