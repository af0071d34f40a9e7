import Vapor

/// The installation's nightly backups: a copy of the database and every library's backup file into a
/// folder, checked, kept by a rotation; their settings and status for the administrator.
enum NightlyBackupsFeature: Feature {
    static let name = "NightlyBackups"
    /// Its runs are jobs (`Jobs`) and its settings a row of `server_settings` (`Accounts`).
    static let tables: [DataTable] = []

    static func register(api: APIRoutes, web: any RoutesBuilder) {
        NightlyBackupsController.register(api)
        BackupsPages.register(web)
    }

    static func backgroundLoops() -> [BackgroundLoop] { [NightlyBackups.loop()] }

    static var migrations: [Landed] {
        [Landed(52, AddNightlyBackupRuns())]
    }
}
