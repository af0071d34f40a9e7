import Vapor

/// Reports: circulation, the collection, the weeding list, readers and money, on the page (tables
/// and charts), as CSV and as PDF; saved under a name, and mailed monthly or termly. They count loans,
/// copies, holds, fines and reading days, which outlive the members they count (the first migration).
enum ReportsFeature: Feature {
    static let name = "Reports"
    static let tables: [DataTable] = [
        DataTable(name: "saved_reports", rows: .byLibrary(), row: .of(SavedReportRow.self), backup: .kept(key: "savedReports"),
                  erase: .erased, swap: .moved, forget: .cascade),
    ] + LoanTallies.tables.map { name in
        DataTable(name: name, rows: .byLibrary(), keyedByID: false, backup: .no("counted from the loans: a restore counts them again"),
                  erase: .erased, swap: .no("counted again for the restored library"), forget: .cascade)
    }

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        ReportsController.register(api)
        SavedReportsController.register(api)
        ReportPages.register(web)
    }

    static var migrations: [Landed] {
        [Landed(53, KeepFiguresOfFormerMembers()), Landed(54, CreateSavedReports()), Landed(55, AddPublicFigures()), Landed(56, CreateLoanTallies())]
    }

    static var settings: (any LibrarySettings.Type)? { PublicFigureSettings.self }
}
