import Vapor

/// Reports: circulation, the collection, the weeding list, readers and money, on the page (tables
/// and charts), as CSV and as PDF. They keep no tables of their own: they count loans, copies, holds,
/// fines and reading days, which outlive the members they count (the migration below).
enum ReportsFeature: Feature {
    static let name = "Reports"
    static let tables: [DataTable] = []

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ReportsController.register(api)
        ReportPages.register(web)
    }

    static var migrations: [Landed] { [Landed(53, KeepFiguresOfFormerMembers())] }
}
