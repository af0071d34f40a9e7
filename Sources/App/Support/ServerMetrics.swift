import Fluent
import Foundation
import NIOCore
import Prometheus
import SQLKit
import Vapor

/// What `/metrics` tells a Prometheus server: requests by route, method and status with their
/// latencies, background jobs run and failed, mail sent and failed (counted as they happen, since
/// the process started), and at each scrape the database's size, the last good nightly backup and
/// whether writes fail. Off unless `SHELFMARK_METRICS` says otherwise; then answered to the
/// administrator's token, or to the addresses `SHELFMARK_METRICS_ALLOW` names.
final class ServerMetrics: Sendable {
    struct Config: Sendable, Equatable {
        /// Addresses whose scrapes need no token.
        var allowed: [AddressRange]

        /// `SHELFMARK_METRICS=on` (the administrator's token), and/or `SHELFMARK_METRICS_ALLOW` (a
        /// comma-separated list of addresses and ranges: `127.0.0.1`, `10.0.0.0/8`, `fd00::/8`);
        /// nil when neither is set (no `/metrics` at all).
        static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> Config? {
            let switch_ = (env["SHELFMARK_METRICS"] ?? "").lowercased()
            let allow = env["SHELFMARK_METRICS_ALLOW"] ?? ""
            guard ["", "off", "on"].contains(switch_) else {
                throw AppError.invalid("SHELFMARK_METRICS", "SHELFMARK_METRICS must be on or off (got “\(switch_.prefix(20))”).")
            }
            if switch_ == "off" || (switch_.isEmpty && allow.isEmpty) { return nil }
            var ranges: [AddressRange] = []
            for item in allow.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                guard let range = AddressRange(item) else {
                    throw AppError.invalid("SHELFMARK_METRICS_ALLOW", "SHELFMARK_METRICS_ALLOW: “\(item.prefix(50))” is not an address or a range such as 10.0.0.0/8.")
                }
                ranges.append(range)
            }
            return Config(allowed: ranges)
        }
    }

    let config: Config
    let registry = PrometheusCollectorRegistry()
    private let started = ContinuousClock.now

    init(config: Config) { self.config = config }

    static let latencyBuckets: [Duration] = [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                                             .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]

    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "shelfmark", metricName: metric, unitName: unit, helpText: help)
    }

    func request(method: String, route: String, status: Int, duration: Duration) {
        let labels = [("method", method), ("route", route), ("status", String(status))]
        registry.makeCounter(descriptor: Self.name("http_requests", "total", "Requests answered, by method, route and status"), labels: labels).increment()
        registry.makeDurationHistogram(descriptor: Self.name("http_request_duration", "seconds", "Time to answer a request, by method, route and status"),
                                       labels: labels, buckets: Self.latencyBuckets).record(duration)
    }

    func jobFinished(kind: String, failed: Bool) {
        registry.makeCounter(descriptor: Self.name("jobs_finished", "total", "Background jobs that ended, by kind and outcome"),
                             labels: [("kind", kind), ("outcome", failed ? "failed" : "done")]).increment()
    }

    func mail(sent: Bool) {
        registry.makeCounter(descriptor: Self.name("mail_messages", "total", "Mail handed to the mail server (sent) or given up on (failed)"),
                             labels: [("outcome", sent ? "sent" : "failed")]).increment()
    }

    /// The text a scrape gets: the counters, and the gauges read now.
    func scrape(app: Application) async -> String {
        func gauge(_ metric: String, _ unit: String, _ help: String, _ value: Double) {
            registry.makeGauge(descriptor: Self.name(metric, unit, help), labels: []).set(value)
        }
        gauge("uptime", "seconds", "Seconds since the server started", Double((ContinuousClock.now - started).components.seconds))
        gauge("writes_failing", "", "1 while writes fail (the disk is full), else 0", app.storageHealth.writesFailing ? 1 : 0)
        if let size = try? await Self.databaseBytes(app) {
            gauge("database_size", "bytes", "The database's size on disk", Double(size))
        }
        if case .sqlite(let path) = app.storageConfig, let space = DiskSpace(StorageConfig.folder(ofFile: path)) {
            gauge("data_disk_free", "bytes", "Free space on the disk that holds the database", Double(space.free))
        }
        if let status = try? await NightlyBackups.status(app: app) {
            gauge("last_good_backup_timestamp", "seconds", "When the last good nightly backup was made (Unix time; 0: none yet)",
                  status.lastGood?.timeIntervalSince1970 ?? 0)
        }
        return registry.emitToString()
    }

    private static func databaseBytes(_ app: Application) async throws -> Int64 {
        switch app.storageConfig {
        case .sqlite(let path):
            return ["", "-wal"].reduce(0) { sum, suffix in
                sum + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int64) ?? 0)
            }
        case .postgres:
            struct Row: Decodable { var n: Int64 }
            return try await app.db.sql.raw("SELECT pg_database_size(current_database()) AS n").first(decoding: Row.self)?.n ?? 0
        case .memory, nil:
            return 0
        }
    }

    // MARK: The route and the middleware

    static func register(_ app: Application) {
        guard let metrics = app.serverMetrics else { return }
        app.routes.get("metrics") { req async throws -> Response in
            try await Self.mayScrape(req, metrics.config)
            let response = Response(status: .ok, body: .init(string: await metrics.scrape(app: req.application)))
            response.headers.replaceOrAdd(name: .contentType, value: "text/plain; version=0.0.4; charset=utf-8")
            response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
            return response
        }
    }

    /// An allowed address, or the installation's administrator (a session or an API token).
    static func mayScrape(_ req: Request, _ config: Config) async throws {
        if let peer = req.peerAddress?.ipAddress ?? req.remoteAddress?.ipAddress, config.allowed.contains(where: { $0.contains(peer) }) { return }
        guard let user = req.auth.get(AuthenticatedUser.self) else {
            throw AppError(status: .unauthorized, code: "unauthorized",
                           message: "The metrics are for the administrator's token (Authorization: Bearer …) or the addresses SHELFMARK_METRICS_ALLOW names.")
        }
        guard try await ServerSettings.isAdmin(user, on: req.db) else {
            throw AppError(status: .forbidden, code: "forbidden", message: "Only the installation's administrator may read the metrics.")
        }
    }
}

/// Counts every request and its time, by the route's pattern (`/api/v1/libraries/:libraryID/titles`;
/// `unmatched` when no route took it), so the labels stay few whatever the paths.
struct RequestMetricsMiddleware: AsyncMiddleware {
    let metrics: ServerMetrics

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let start = ContinuousClock.now
        let route = { request.route.map { "/" + $0.path.map(\.description).joined(separator: "/") } ?? "unmatched" }
        do {
            let response = try await next.respond(to: request)
            metrics.request(method: request.method.rawValue, route: route(), status: Int(response.status.code), duration: ContinuousClock.now - start)
            return response
        } catch {
            let status = (error as? any AbortError)?.status.code ?? 500
            metrics.request(method: request.method.rawValue, route: route(), status: Int(status), duration: ContinuousClock.now - start)
            throw error
        }
    }
}

/// An IP address or a range of them (`10.0.0.0/8`, `fd00::/8`); an IPv4 address written as IPv6
/// (`::ffff:10.1.2.3`) is read as IPv4.
struct AddressRange: Sendable, Equatable {
    let bytes: [UInt8]
    let prefix: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = Self.parse(first) else { return nil }
        let bits = bytes.count * 8
        if parts.count == 2 {
            guard let prefix = Int(parts[1]), (0...bits).contains(prefix) else { return nil }
            self.prefix = prefix
        } else {
            self.prefix = bits
        }
        self.bytes = bytes
    }

    func contains(_ address: String) -> Bool {
        guard let other = Self.parse(address), other.count == bytes.count else { return false }
        var left = prefix
        for (a, b) in zip(bytes, other) where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if a & mask != b & mask { return false }
            left -= 8
        }
        return true
    }

    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes.suffix(4)) }
        return bytes
    }
}

extension Application {
    private struct ServerMetricsKey: StorageKey { typealias Value = ServerMetrics }

    /// The process's metrics when they are switched on.
    var serverMetrics: ServerMetrics? {
        get { storage[ServerMetricsKey.self] }
        set { storage[ServerMetricsKey.self] = newValue }
    }
}
