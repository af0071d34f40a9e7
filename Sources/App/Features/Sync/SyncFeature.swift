import Vapor

/// Offline lending: the log of changes devices pull, the mutations they pushed, and the sync clock.
enum SyncFeature: Feature {
    static let name = "Sync"
    static let tables: [DataTable] = [
        DataTable(name: "sync_log", rows: .byLibrary(), backup: .no("written by triggers from the rows it names"),
                  erase: .no("triggers log each erased row for the devices"), swap: .no("triggers log each moved row"), forget: .cascade),
        DataTable(name: "sync_mutations", rows: .byLibrary(), backup: .no("what devices of this server pushed"),
                  erase: .no("kept so a device's retry is still answered"), swap: .no("what devices of this server pushed"), forget: .deleted),
        DataTable(name: "sync_clock", rows: .server, onlyOn: "sqlite", backup: .no("the server's clock for the log (a sequence on PostgreSQL)"), erase: .no("the server's"),
                  swap: .no("the server's"), forget: .no("the server's")),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        SyncController.register(api)
    }

    static var migrations: [Landed] {
        [
            Landed(45, CreateSyncLog()),
            Landed(68, CompactSyncLog()),
            Landed(80, SyncLogLibraryNumbers()),
        ]
    }
}
