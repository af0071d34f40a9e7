import Vapor

/// The library at a glance: "More", the overview's counts, the activity log and what runs in the
/// background.
enum OverviewFeature: Feature {
    static let name = "Overview"
    static let tables: [DataTable] = [
        DataTable(name: "activities", rows: .byLibrary(), row: .of(ActivityRow.self), backup: .kept(key: "activities"), erase: .erased, swap: .moved, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        MorePages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(11, CreateActivity()),
            Landed(18, AddActivityDetail()),
        ]
    }
}
