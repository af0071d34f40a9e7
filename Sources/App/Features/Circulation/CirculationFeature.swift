import Vapor

/// Lending: loans of copies to members, their renewals and returns.
enum CirculationFeature: Feature {
    static let name = "Circulation"
    static let tables: [DataTable] = [
        DataTable(name: "loans", rows: .byLibrary(), parents: ["copies", "members", "titles"], backup: .kept(key: "loans"), erase: .erased,
                  swap: .moved, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        CirculationController.register(api)
        CirculationPages.register(web)
    }
}
