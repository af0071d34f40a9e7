import Vapor

/// The reader's life: reads and their progress, goals, quotes, page photos, the days read and shared years.
enum ReadingFeature: Feature {
    static let name = "Reading"
    static let tables: [DataTable] = [
        DataTable(name: "reads", rows: .byLibrary(), parents: ["members", "titles"], row: .of(ReadRow.self),
                  notInRow: [
                      "covered": "the pages its progress covered, summed again from the restored progress",
                  ], backup: .kept(key: "reads"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "progress_events", rows: .childOf("reads", key: "read_id"), parents: ["reads"], row: .of(ProgressEventRow.self),
                  notInRow: [
                      "day": "computed again from the event's moment in the library's time zone",
                      "gain": "computed again from the read's events in time order",
                  ], backup: .kept(key: "progressEvents"),
                  erase: .byRestoreOnly, swap: .followsParent, forget: .cascade),
        DataTable(name: "reading_goals", rows: .byLibrary(), parents: ["members"], row: .of(GoalRow.self), backup: .kept(key: "readingGoals"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "page_photos", rows: .byLibrary(), parents: ["titles"], row: .of(PhotoRow.self), backup: .kept(key: "pagePhotos"), erase: .byRestoreOnly,
                  swap: .moved, forget: .cascade),
        DataTable(name: "quotes", rows: .byLibrary(), parents: ["titles"], row: .of(QuoteRow.self), backup: .kept(key: "quotes"), erase: .byRestoreOnly,
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

    static var migrations: [Landed] {
        [
            Landed(24, CreateReading()),
            Landed(25, CreateQuotes()),
            Landed(26, CreatePagePhotos()),
            Landed(27, AddProgressGain()),
            Landed(28, CreateReadingShares()),
            Landed(29, CreateReadingDays()),
            Landed(31, HashReadingShareTokens()),
            Landed(79, QuoteSearchWords()),
        ]
    }
}
