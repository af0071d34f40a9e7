import Vapor

/// Background work: imports, restores, exports and enrichment, each a job with its state and report.
enum JobsFeature: Feature {
    static let name = "Jobs"
    static let tables: [DataTable] = [
        DataTable(name: "jobs", rows: .byLibrary(only: "kind = 'enrich'"), backup: .no("work of this server: reports of imports and restores"),
                  erase: .erased, swap: .no("work of this server"),
                  forget: .no("the library's id is set to null: its owner keeps the reports of what ran")),
    ]

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        JobsController.register(api)
    }

    static func backgroundLoops() -> [BackgroundLoop] { [RecurringJobs.scheduler()] }

    static var migrations: [Landed] {
        [
            Landed(17, CreateJob()),
            Landed(32, UnifyJobs()),
            Landed(67, AddEnrichmentRanges()),
        ]
    }
}
