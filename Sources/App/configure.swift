import Fluent
import Foundation
import Vapor

/// Sets up an application: storage, migrations, JSON, middleware and routes. Tests call this too.
public func configure(_ app: Application) async throws {
    let readsNoData = commandReadsNoData(app.environment.arguments)
    if let metrics = try ServerMetrics.Config.fromEnvironment() { app.serverMetrics = ServerMetrics(config: metrics) }
    try configure(app, storage: readsNoData ? .memory : try StorageConfig.fromEnvironment())
    app.metadataConfig = try MetadataConfig.fromEnvironment()
    app.clock = try AppClock.fromEnvironment()
    app.transportSecurity = try TransportSecurity.fromEnvironment()
    try HTTPS.configure(app, options: app.httpsOptions)
    // The server runs the features' background loops (enrichment, mail, recurring jobs); one-off commands do not.
    let command = app.environment.arguments.dropFirst().first
    if !readsNoData && (command == nil || command == "serve" || command?.hasPrefix("-") == true) {
        app.runBackgroundLoops()
    }
}

/// Commands that read no data (`routes`, `--help`, a command's `--help`) run on an in-memory database:
/// they create no data file and run no migrations.
public func commandReadsNoData(_ arguments: [String]) -> Bool {
    let args = arguments.dropFirst()
    return args.first == "routes" || args.contains("--help") || args.contains("-h") || args.first == "help"
}

func configure(_ app: Application, storage: StorageConfig) throws {
    try app.useStorage(storage)
    app.secretKeyPath = storage.secretKeyPath()
    _ = app.storageHealth
    app.passwords.use(.bcrypt(cost: app.environment == .testing ? 4 : 12))
    _ = app.passwordHashing
    Migrations.register(on: app)
    app.useJobRunner()

    ContentConfiguration.global.use(encoder: JSONEncoder.api, for: .json)
    ContentConfiguration.global.use(decoder: JSONDecoder.api, for: .json)

    app.middleware = Middlewares()
    // First, so it times everything a request goes through (`serverMetrics` is set before, when on).
    if let metrics = app.serverMetrics { app.middleware.use(RequestMetricsMiddleware(metrics: metrics)) }
    app.middleware.use(SecurityHeadersMiddleware())
    app.middleware.use(JSONErrorMiddleware())
    let publicDirectory = PublicFiles.directory(for: app)
    app.middleware.use(FileMiddleware(publicDirectory: publicDirectory, defaultFile: nil))
    try AppShell.prepare(publicDirectory: publicDirectory)
    app.middleware.use(PublicRateLimitMiddleware())
    app.middleware.use(UserAuthenticator())
    app.routes.defaultMaxBodySize = "2mb"
    // Providers and cover servers: an unreachable one fails after 3 s of connection attempts
    // instead of the lookup's whole timeout, so an offline catalog answers quickly.
    app.http.client.configuration.timeout.connect = .seconds(3)
    app.http.client.configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
    app.useCoverClient()

    app.asyncCommands.use(UserCommand(), as: "user")
    app.asyncCommands.use(SeedCommand(), as: "seed")
    app.asyncCommands.use(BenchSearchCommand(), as: "bench-search")
    app.asyncCommands.use(BenchSpokenCommand(), as: "bench-spoken")
    app.asyncCommands.use(BenchRemindersCommand(), as: "bench-reminders")
    app.asyncCommands.use(BenchPrintCommand(), as: "bench-print")
    app.asyncCommands.use(BenchStocktakeCommand(), as: "bench-stocktake")
    app.asyncCommands.use(SeedReadingCommand(), as: "seed-reading")
    app.asyncCommands.use(LookupCommand(), as: "lookup")
    app.asyncCommands.use(ImportCommand(), as: "import")
    app.asyncCommands.use(ExportCommand(), as: "export")
    app.asyncCommands.use(BackupCommand(), as: "backup")
    app.asyncCommands.use(RestoreCommand(), as: "restore")
    app.asyncCommands.use(CopyToPostgresCommand(), as: "copy-to-postgres")
    try routes(app)
}

enum Migrations {
    /// Every feature's migrations in the order they landed.
    static var inOrder: [any Migration] {
        Features.all.flatMap { $0.migrations }.sorted { $0.order < $1.order }.map(\.migration)
    }

    static func register(on app: Application) {
        for migration in inOrder { app.migrations.add(migration) }
    }
}

extension JSONEncoder {
    static var api: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    /// Dates as ISO 8601 with or without time (`2026-12-01` is the start of that day, UTC).
    static var api: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? Date(text, strategy: .iso8601) { return date }
            if let date = try? Date(text, strategy: .iso8601.year().month().day()) { return date }
            if let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "“\(text)” is not a date: use 2026-12-01 or 2026-12-01T15:00:00Z.")
        }
        return decoder
    }
}
