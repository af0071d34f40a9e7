@testable import App
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing
import Vapor

/// `/metrics` and the JSON logs: what a district's monitoring reads.
@Suite struct MetricsTests {
    /// The value of the sample `line` starts with (name and labels), or nil.
    private func sample(_ text: String, _ prefix: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }.flatMap { Double($0.dropFirst(prefix.count + 1)) }
    }

    @Test func metricsAreOffUnlessSwitchedOnAndTheSettingsAreChecked() throws {
        #expect(try ServerMetrics.Config.fromEnvironment([:]) == nil)
        #expect(try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS": "off", "SHELFMARK_METRICS_ALLOW": "10.0.0.1"]) == nil)
        #expect(try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS": "on"])?.allowed == [])
        let allowed = try #require(try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS_ALLOW": "10.1.2.0/24, ::1,fd00::/8"])).allowed
        #expect(allowed.count == 3)
        #expect(allowed[0].contains("10.1.2.77") && !allowed[0].contains("10.1.3.1") && allowed[0].contains("::ffff:10.1.2.5"))
        #expect(allowed[1].contains("::1") && !allowed[1].contains("::2") && allowed[2].contains("fd12::9") && !allowed[2].contains("fe80::1"))
        #expect(throws: AppError.self) { try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS": "yes please"]) }
        #expect(throws: AppError.self) { try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS_ALLOW": "10.0.0.0/33"]) }
        #expect(throws: AppError.self) { try ServerMetrics.Config.fromEnvironment(["SHELFMARK_METRICS_ALLOW": "the office"]) }
    }

    @Test func withoutTheSwitchThereIsNoMetricsPage() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            #expect(try await f.owner.get("/metrics").status == .notFound)
        }
    }

    @Test func theAdministratorReadsRequestsJobsAndTheDatabaseOthersAreRefused() async throws {
        try await withTestApp(metrics: .init(allowed: [])) { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo")
            try await f.addTitle("Emil")
            _ = try await f.owner.get("\(f.lib)/titles")
            _ = try await f.owner.get("/no/such/page")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-metrics-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            #expect(try await f.owner.patch("/api/v1/server/backups", ["folder": folder]).status == .ok)
            let job = try await f.owner.finished(try await f.owner.post("/api/v1/server/backups"))
            #expect(job["state"] as? String == "done", "\(job.json)")

            // Refused without a token, and to a librarian: only the administrator reads them.
            let anonymous = try await Client(app: app).get("/metrics")
            #expect(anonymous.status == .unauthorized && anonymous.errorCode == "unauthorized")
            let librarian = try await f.staff("lena", role: "librarian")
            #expect(try await librarian.get("/metrics").status == .forbidden)

            let reply = try await f.owner.get("/metrics")
            #expect(reply.status == .ok && reply.headers.contentType?.description.hasPrefix("text/plain") == true)
            let text = String(buffer: reply.body)
            let titles = "{method=\"POST\",route=\"/api/v1/libraries/:libraryID/titles\",status=\"201\"}"
            #expect(sample(text, "shelfmark_http_requests_total" + titles) == 2, "\(text)")
            #expect(sample(text, "shelfmark_http_request_duration_seconds_count" + titles) == 2)
            #expect(text.contains("# TYPE shelfmark_http_request_duration_seconds histogram"))
            #expect(sample(text, "shelfmark_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"}") == 1)
            #expect(sample(text, "shelfmark_http_requests_total{method=\"GET\",route=\"/metrics\",status=\"401\"}") == 1)
            #expect(sample(text, "shelfmark_jobs_finished_total{kind=\"nightly_backup\",outcome=\"done\"}") == 1)
            #expect((sample(text, "shelfmark_database_size_bytes") ?? 0) > 10_000)
            #expect(sample(text, "shelfmark_writes_failing") == 0)
            let lastBackup = try #require(sample(text, "shelfmark_last_good_backup_timestamp_seconds"))
            #expect(abs(lastBackup - app.clock.now().timeIntervalSince1970) < 600, "\(lastBackup)")
        }
    }

    @Test func anAllowedAddressScrapesWithoutAToken() async throws {
        try await withTestApp(metrics: .init(allowed: [try #require(AddressRange("127.0.0.0/8"))])) { app in
            _ = try await Fixture.make(app)
            // The in-process tester has no peer address; a listening server's requests do.
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            let reply = try await app.client.get(URI(string: "http://127.0.0.1:\(port)/metrics"))
            await app.server.shutdown()
            #expect(reply.status == .ok)
            #expect(reply.body.map { String(buffer: $0) }?.contains("shelfmark_uptime_seconds") == true)
        }
    }

    @Test func jsonLogsAreOneObjectPerLineWithTheEventsMetadata() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "shelfmark.test") { label in
            JSONLogHandler(label: label, level: .info) { line in lines.withLockedValue { $0.append(line) } }
        }
        logger[metadataKey: "request-id"] = "abc"
        logger.debug("not written: below the level")
        logger.error("the disk is full\nsecond line", metadata: ["path": .string("/var/lib/shelfmark"), "tries": .stringConvertible(3)])
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1 && written[0].hasSuffix("\n") && written[0].dropLast().contains("\n") == false)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: Any])
        #expect(object["level"] as? String == "error" && object["message"] as? String == "the disk is full\nsecond line")
        #expect(object["label"] as? String == "shelfmark.test")
        let metadata = try #require(object["metadata"] as? [String: Any])
        #expect(metadata["request-id"] as? String == "abc" && metadata["path"] as? String == "/var/lib/shelfmark" && metadata["tries"] as? String == "3")
        #expect((object["time"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil || (object["time"] as? String)?.hasSuffix("Z") == true)
        #expect(try JSONLogHandler.wanted(["SHELFMARK_LOG_FORMAT": "json"]) && !(try JSONLogHandler.wanted([:])))
        #expect(throws: JSONLogHandler.LogFormatError.self) { try JSONLogHandler.wanted(["SHELFMARK_LOG_FORMAT": "xml"]) }
    }
}
