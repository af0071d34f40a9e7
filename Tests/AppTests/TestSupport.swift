@testable import App
import Fluent
import Foundation
import ShelfmarkLookup
import ShelfmarkReplay
import NIOConcurrencyHelpers
import Testing
import Vapor
import VaporTesting

/// Runs a test against a fresh database: a temporary SQLite file, or, when
/// `SHELFMARK_TEST_DATABASE_URL` names a PostgreSQL server, a database of its own that is dropped after.
/// Either starts as a copy of one database the run migrated once (`MigratedTemplate`), so a test app
/// costs a file copy or a `CREATE DATABASE … TEMPLATE`, not every migration from scratch.
func withTestApp(clock: AppClock = AppClock(), metrics: ServerMetrics.Config? = nil, _ body: (Application) async throws -> Void) async throws {
    let storage: StorageConfig
    var sqlitePath: String?
    var database: String?
    if let url = MigratedTemplate.postgresURL {
        let name = try await MigratedTemplate.copyPostgres()
        database = name
        storage = .postgres(url: MigratedTemplate.url(url, database: name), schema: nil)
    } else {
        let path = try await MigratedTemplate.copySQLite()
        sqlitePath = path
        storage = .sqlite(path: path)
    }
    let app: Application
    do {
        app = try await Application.make(.testing)
    } catch {
        try? await MigratedTemplate.remove(database: database, sqlitePath: sqlitePath)
        throw error
    }
    do {
        if let metrics { app.serverMetrics = ServerMetrics(config: metrics) }
        try configure(app, storage: storage)
        app.storage[TestStorageKey.self] = storage
        app.secretKeyPath = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-test-\(UUID().uuidString).key").path
        app.clock = clock
        // The copy is migrated already: this only reads that every migration has run.
        try await app.autoMigrate().get()
        try await body(app)
    } catch {
        try? await cleanUp(app, database: database, sqlitePath: sqlitePath)
        throw error
    }
    try await cleanUp(app, database: database, sqlitePath: sqlitePath)
}

/// Runs migrations again the way a test replays history: on one connection that has first read the
/// schema afresh. A pooled SQLite connection parses a schema change against the schema it last read,
/// so to a connection that last ran before another one dropped a column, adding it back is a
/// "duplicate column"; one connection, refreshed, sees what the file holds.
func onOneConnection<T: Sendable>(_ app: Application, _ body: @escaping @Sendable (any Database) async throws -> T) async throws -> T {
    try await app.db.withConnection { db in
        if Dialect(db) == .sqlite { _ = try await db.sql.raw("SELECT count(*) FROM sqlite_schema").all() }
        return try await body(db)
    }
}

/// The database every test app starts from: migrated once per run of the suite, in the temporary
/// directory (SQLite) or as a PostgreSQL database of its own, removed when the run ends.
enum MigratedTemplate {
    static let postgresURL: String? = ProcessInfo.processInfo.environment["SHELFMARK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    private static let prefix = "shelfmark_tpl_"

    /// `url` with its database replaced by `database`.
    static func url(_ url: String, database: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.path = "/" + database
        return parts.string ?? url
    }

    /// This process's template file (a path, not a stored value: `atexit` takes no context).
    private static var sqliteTemplatePath: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-template-\(getpid()).sqlite").path
    }

    private static let sqliteTemplate = Task<String, any Error> {
        removeSQLite(sqliteTemplatePath)
        try await migrate(.sqlite(path: sqliteTemplatePath))
        atexit { removeSQLite(sqliteTemplatePath) }
        return sqliteTemplatePath
    }

    private static func removeSQLite(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// A connection to the server's own test database, for creating and dropping the copies; it lives
    /// as long as the process.
    private static let admin = Task<Application, any Error> {
        let app = try await Application.make(.testing)
        try app.useStorage(.postgres(url: postgresURL ?? "", schema: nil))
        return app
    }

    private static let postgresTemplate = Task<String, any Error> {
        let admin = try await MigratedTemplate.admin.value
        // Templates of earlier runs that ended without cleaning up (one in use by a running suite stays).
        let stale = try await admin.db.sql.raw("SELECT datname::text AS name FROM pg_database WHERE datname LIKE 'shelfmark_tpl_%'").all()
            .map { try $0.decode(column: "name", as: String.self) }
        for name in stale { try? await admin.db.sql.raw("DROP DATABASE IF EXISTS \(ident: name)").run() }
        let name = prefix + "\(getpid())_" + UUID().uuidString.prefix(8).lowercased()
        try await admin.db.sql.raw("CREATE DATABASE \(ident: name)").run()
        try await migrate(.postgres(url: url(postgresURL ?? "", database: name), schema: nil))
        return name
    }

    private static func migrate(_ storage: StorageConfig) async throws {
        let app = try await Application.make(.testing)
        do {
            try configure(app, storage: storage)
            try await app.autoMigrate().get()
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    static func copySQLite() async throws -> String {
        let template = try await sqliteTemplate.value
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-test-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: template, toPath: path)
        return path
    }

    static func copyPostgres() async throws -> String {
        let template = try await postgresTemplate.value
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin.value.db.sql.raw("CREATE DATABASE \(ident: name) TEMPLATE \(ident: template)").run()
        return name
    }

    /// The next transaction id the PostgreSQL test server will hand out.
    static func postgresNextTransaction() async throws -> Int64 {
        struct Row: Decodable { var next: Int64 }
        return try await admin.value.db.sql.raw("SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next").first(decoding: Row.self)?.next ?? 0
    }

    /// A new, empty PostgreSQL database (not migrated) on the test server: its name.
    static func emptyPostgres() async throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await admin.value.db.sql.raw("CREATE DATABASE \(ident: name)").run()
        return name
    }

    static func remove(database: String?, sqlitePath: String?) async throws {
        if let database { try await admin.value.db.sql.raw("DROP DATABASE IF EXISTS \(ident: database) WITH (FORCE)").run() }
        if let sqlitePath { removeSQLite(sqlitePath) }
    }
}

private struct TestStorageKey: StorageKey { typealias Value = StorageConfig }

/// A second instance of the app on the same database (another server of one PostgreSQL installation),
/// sharing the first's clock, secret key and trusted mail authorities; shut down after `body`.
func withSecondInstance(of app: Application, _ body: (Application) async throws -> Void) async throws {
    let storage = try #require(app.storage[TestStorageKey.self])
    let second = try await Application.make(.testing)
    do {
        try configure(second, storage: storage)
        (second.clock, second.secretKeyPath, second.mailTrustRoots) = (app.clock, app.secretKeyPath, app.mailTrustRoots)
        try await body(second)
    } catch {
        try? await second.asyncShutdown()
        throw error
    }
    try await second.asyncShutdown()
}

private func cleanUp(_ app: Application, database: String?, sqlitePath: String?) async throws {
    if let key = app.secretKeyPath { try? FileManager.default.removeItem(atPath: key) }
    try await app.asyncShutdown()
    try await MigratedTemplate.remove(database: database, sqlitePath: sqlitePath)
}

/// A settable clock for overdue tests.
final class TestClock: Sendable {
    private let box: NIOLockedValueBox<Date>
    init(_ start: Date = Date()) { box = NIOLockedValueBox(start) }
    var now: Date { box.withLockedValue { $0 } }
    func advance(days: Double) { box.withLockedValue { $0 = $0.addingTimeInterval(days * 86_400) } }
    var appClock: AppClock { AppClock(now: { self.now }) }
}

/// JSON in and out of the API, as a client sees it.
struct Client: Sendable {
    let app: Application
    var token: String?

    struct Reply: Sendable {
        let status: HTTPStatus
        let body: ByteBuffer
        let headers: HTTPHeaders

        /// The body as a JSON object. A body that is not one (a failed call answering something else,
        /// an empty body) fails the test that reads it, instead of passing as an empty object.
        var json: [String: Any] {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] else {
                Issue.record("HTTP \(status.code): the reply is not a JSON object: \(String(buffer: body).prefix(300))")
                return [:]
            }
            return object
        }
        /// The body as a JSON array; anything else (an error object) fails the test that reads it.
        var array: [[String: Any]] {
            guard let items = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [[String: Any]] else {
                Issue.record("HTTP \(status.code): the reply is not a JSON array: \(String(buffer: body).prefix(300))")
                return []
            }
            return items
        }
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
        var errorField: String? { (json["error"] as? [String: Any])?["field"] as? String }
        var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
        subscript(key: String) -> Any? { json[key] }
        func string(_ key: String) -> String { json[key] as? String ?? "" }
    }

    func send(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil, headers extra: HTTPHeaders = [:]) async throws -> Reply {
        var headers = extra
        if let token { headers.bearerAuthorization = .init(token: token) }
        var buffer: ByteBuffer?
        if let body {
            headers.contentType = .json
            buffer = ByteBuffer(data: try JSONSerialization.data(withJSONObject: body))
        }
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: buffer)
        return Reply(status: response.status, body: response.body, headers: response.headers)
    }

    /// A request with a raw body (a CSV file, say).
    func send(_ method: HTTPMethod, _ path: String, rawBody: Data, contentType: String) async throws -> Reply {
        var headers = HTTPHeaders()
        if let token { headers.bearerAuthorization = .init(token: token) }
        headers.replaceOrAdd(name: .contentType, value: contentType)
        let response = try await app.testing().sendRequest(method, path, headers: headers, body: ByteBuffer(data: rawBody))
        return Reply(status: response.status, body: response.body, headers: response.headers)
    }

    /// An import or restore answered 202 with its job: waits until the job has ended, then answers
    /// the job as `GET /jobs/{id}` shows it, 200 when it is done, 422 (with its `error`) when it failed.
    /// Any other reply is returned as it is.
    func finished(_ reply: Reply) async throws -> Reply {
        guard reply.status == .accepted else { return reply }
        let id = try #require((reply["id"] as? String).flatMap(UUID.init(uuidString:)), "no job id in \(reply.json)")
        #expect(reply.headers.first(name: .location) == "/api/v1/jobs/\(id.uuidString)")
        await app.jobRunner.wait(id)
        let job = try await get("/api/v1/jobs/\(id.uuidString)")
        let state = job["state"] as? String
        #expect(state == "done" || state == "failed", "the job is still \(state ?? "?")")
        let status: HTTPStatus = state == "done" ? .ok : .unprocessableEntity
        return Reply(status: status, body: job.body, headers: job.headers)
    }

    func get(_ path: String) async throws -> Reply { try await send(.GET, path) }
    func post(_ path: String, _ body: [String: Any] = [:]) async throws -> Reply { try await send(.POST, path, body) }
    func patch(_ path: String, _ body: [String: Any]) async throws -> Reply { try await send(.PATCH, path, body) }
    func put(_ path: String, _ body: [String: Any]) async throws -> Reply { try await send(.PUT, path, body) }
    func delete(_ path: String) async throws -> Reply { try await send(.DELETE, path) }
}

/// A set-up installation: the owner signed in and their first library.
struct Fixture: Sendable {
    let app: Application
    let owner: Client
    let libraryID: String

    var lib: String { "/api/v1/libraries/\(libraryID)" }

    static func make(_ app: Application) async throws -> Fixture {
        let reply = try await Client(app: app).post("/api/v1/setup", ["username": "owner", "password": "correct horse", "libraryName": "Room 12"])
        #expect(reply.status == .created)
        let session = reply["session"] as! [String: Any]
        let library = reply["library"] as! [String: Any]
        return Fixture(app: app, owner: Client(app: app, token: session["token"] as? String), libraryID: library["id"] as! String)
    }

    /// A signed-in staff member with this role in the fixture's library.
    func staff(_ username: String, role: String) async throws -> Client {
        let added = try await owner.post("\(lib)/staff", ["username": username, "role": role, "password": "password-\(username)"])
        #expect(added.status == .created)
        let login = try await Client(app: app).post("/api/v1/auth/login", ["username": username, "password": "password-\(username)"])
        #expect(login.status == .ok)
        return Client(app: app, token: login.string("token"))
    }

    @discardableResult
    func addTitle(_ title: String, authors: [String] = [], isbn: String? = nil, copies: Int = 1, extra: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = ["title": title, "authors": authors, "copies": copies]
        if let isbn { body["isbn"] = isbn }
        body.merge(extra) { $1 }
        let reply = try await owner.post("\(lib)/titles", body)
        #expect(reply.status == .created, "\(reply.json)")
        return reply.string("id")
    }

    @discardableResult
    func addMember(_ card: String, _ first: String, _ last: String = "") async throws -> String {
        let reply = try await owner.post("\(lib)/members", ["cardId": card, "firstName": first, "lastName": last])
        #expect(reply.status == .created, "\(reply.json)")
        return reply.string("id")
    }
}

/// A test app whose book sources (Google Books, Open Library, the national libraries' catalogues) are a
/// replay server of its own.
func withReplayProviders(_ body: (Application, ReplayServer) async throws -> Void) async throws {
    let server = try await ReplayServer.start()
    do {
        try await withTestApp { app in
            app.metadataConfig = MetadataConfig(endpoints: .replay(server.baseURL), timeout: .seconds(30))
            try await body(app, server)
        }
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}
