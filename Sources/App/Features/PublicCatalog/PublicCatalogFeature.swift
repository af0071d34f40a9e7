import Vapor

/// The public catalog: the library's books for anyone, and its members signed in (a PIN or an emailed
/// link) to see their loans, renew and place holds.
enum PublicCatalogFeature: Feature {
    static let name = "PublicCatalog"
    static let tables: [DataTable] = [
        DataTable(name: "member_sessions", rows: .byLibrary(), parents: ["members"], backup: .no("a member's sign-ins on this server"),
                  erase: .no("go with their member (foreign key)"), swap: .no("the backup's members sign in again"), forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        PortalController.register(api)
        PublicPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(46, CreateMemberPortal()),
            Landed(50, AddPublicDoorSettings()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { PublicCatalogSettings.self }
}
