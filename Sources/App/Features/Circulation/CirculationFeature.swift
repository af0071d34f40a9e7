import Vapor

/// Lending: loans of copies to members, their renewals and returns.
enum CirculationFeature: Feature {
    static let name = "Circulation"
    static let tables: [DataTable] = [
        DataTable(name: "loans", rows: .byLibrary(), parents: ["copies", "members", "titles"], row: .of(LoanRow.self), backup: .kept(key: "loans"), erase: .erased,
                  swap: .moved, forget: .cascade),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        CirculationController.register(api)
        CirculationPages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(10, CreateLoan()),
            Landed(30, AddLoanOrderIndex()),
            Landed(84, LoansByLibraryNumber()),
        ]
    }

    static var settings: (any LibrarySettings.Type)? { LoanSettings.self }
}
