import Vapor

/// Staff accounts, their sessions and tokens, the libraries they own, and the server's own settings.
enum AccountsFeature: Feature {
    static let name = "Accounts"
    static let tables: [DataTable] = [
        DataTable(name: "libraries", rows: .library, row: .of(LibraryRow.self),
                  notInRow: [
                      "id": "a restore makes its own library or writes into the one it replaces",
                      "created_at": "the restored library's own",
                      "updated_at": "the restored library's own",
                      "pending_job_id": "the restore that is writing it, of this server",
                      "restore_erased": "the state of a restore over it, of this server",
                      "restore_source_id": "the state of a restore over it, of this server",
                      "sync_floor": "where the devices of this server synced from: a restore starts them again",
                      "no": "the library's number in this database (its sync log's name for it), given as it is made",
                  ], backup: .kept(key: "library"),
                  erase: .no("the library, its settings and its staff stay when its data is erased"),
                  swap: .no("a restore copies the backup's settings onto the library in one step"), forget: .no("it is the library")),
        DataTable(name: "users", rows: .server, backup: .no("accounts are the server's, not a library's"),
                  erase: .no("accounts are the server's"), swap: .no("accounts are the server's"), forget: .no("accounts outlive libraries")),
        DataTable(name: "memberships", rows: .byLibrary(), backup: .no("staff are accounts of this server: a backup from elsewhere would name strangers"),
                  erase: .no("staff stay when the data is erased"), swap: .no("the restored library keeps its staff"), forget: .cascade),
        DataTable(name: "user_sessions", rows: .server, backup: .no("an account's sign-ins"), erase: .no("an account's sign-ins"),
                  swap: .no("an account's sign-ins"), forget: .no("an account's sign-ins")),
        DataTable(name: "api_tokens", rows: .server, backup: .no("an account's secrets"), erase: .no("an account's secrets"),
                  swap: .no("an account's secrets"), forget: .no("an account's secrets")),
        DataTable(name: "login_failures", rows: .server, backup: .no("the sign-in throttle's counts"), erase: .no("the sign-in throttle's counts"),
                  swap: .no("the sign-in throttle's counts"), forget: .no("kept by account and address, forgotten after an hour")),
        DataTable(name: "server_settings", rows: .server, backup: .no("the server's, not a library's"), erase: .no("the server's"),
                  swap: .no("the server's"), forget: .no("the server's")),
        DataTable(name: "_fluent_migrations", rows: .server, backup: .no("the schema's history"), erase: .no("the schema's history"),
                  swap: .no("the schema's history"), forget: .no("the schema's history")),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        AuthController.register(api)
        ServerController.register(api)
        LibrariesController.register(api)
        SessionPages.register(web)
        SettingsPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(1, CreateLibrary()),
            Landed(2, CreateUser()),
            Landed(3, CreateMembership()),
            Landed(4, CreateUserSession()),
            Landed(5, CreateAPIToken()),
            Landed(16, AddSecurityControls()),
            Landed(21, AddLibraryTimeZone()),
            Landed(51, AddSecurityLifetimes()),
            Landed(73, IdsAsBytes()),
            Landed(85, ForeignKeyIndexes()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { TimeZoneSettings.self }
}
