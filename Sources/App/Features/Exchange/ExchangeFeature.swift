import Vapor

/// Moving a library's data in and out: imports (CSV, Goodreads, LibraryThing, Libib, MARC …), exports,
/// and the library's backup and its restore. It owns no table: the backup reads every feature's
/// tables by their declarations.
enum ExchangeFeature: Feature {
    static let name = "Exchange"
    static let tables: [DataTable] = []

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ExchangeController.register(api)
        ExchangePages.register(web)
    }

    static var migrations: [Landed] {
        [
            Landed(35, AddLibraryPendingJob()),
            Landed(48, AddLibraryRestoreSwap()),
        ]
    }
}
