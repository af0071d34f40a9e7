import Vapor

/// The self-service kiosk: devices set up to lend and return by card.
enum KioskFeature: Feature {
    static let name = "Kiosk"
    static let tables: [DataTable] = [
        DataTable(name: "kiosks", rows: .byLibrary(), backup: .no("a device set up on this server"), erase: .no("a device of the library, not its data"),
                  swap: .no("the library's devices stay set up"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        KioskPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(47, CreateKiosks()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { KioskSettings.self }
}
