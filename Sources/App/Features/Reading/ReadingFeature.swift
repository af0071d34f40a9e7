import Vapor

/// The reader's life: reads and their progress, goals, quotes, page photos, the days read and shared years.
enum ReadingFeature: Feature {
    static let name = "Reading"
    static let tables: [DataTable] = [
        DataTable(name: "reads", rows: .byLibrary(), parents: ["members", "titles"], backup: .kept(key: "reads"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "progress_events", rows: .childOf("reads", key: "read_id"), parents: ["reads"], backup: .kept(key: "progressEvents"),
                  erase: .byRestoreOnly, swap: .followsParent, forget: .cascade),
        DataTable(name: "reading_goals", rows: .byLibrary(), parents: ["members"], backup: .kept(key: "readingGoals"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "page_photos", rows: .byLibrary(), parents: ["titles"], backup: .kept(key: "pagePhotos"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "quotes", rows: .byLibrary(), parents: ["titles"], backup: .kept(key: "quotes"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "reading_days", rows: .byLibrary(), keyedByID: false, backup: .no("counted from the progress: a restore counts them again"),
                  erase: .byRestoreOnly, swap: .no("counted again for the restored library"), forget: .deleted),
        DataTable(name: "reading_shares", rows: .byLibrary(), backup: .no("a shared year is a secret link of this server"),
                  erase: .no("a reader's link stays with their account"), swap: .no("links of this server are not in a backup"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ReadingController.register(api)
        ReadingPages.register(web)
        PhotoPages.register(web)
    }
}
