@testable import App
import Foundation
import ShelfmarkCore
import Testing

/// Shelfmark as a service: the unit systemd reads (checked by `systemd-analyze verify`), the settings
/// file, and what `shelfmark install` and `uninstall` write and keep.
@Suite struct ServiceTests {
    static func temporaryFolder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-service-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test func theUnitPassesSystemdsOwnCheckAndIsSandboxed() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            Issue.record("systemd-analyze is missing: make test installs systemd")
            return
        }
        let dir = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The unit starts a binary that exists (verify checks), on 443 and 80 by capability.
        let files = ServiceFiles(binary: "/bin/true", writablePaths: ["/media/backup"])
        #expect(files.unit.contains("AmbientCapabilities=CAP_NET_BIND_SERVICE") && files.unit.contains("ProtectSystem=strict"))
        #expect(files.unit.contains("ReadWritePaths=/var/lib/shelfmark /media/backup") && files.unit.contains("Restart=on-failure"))
        #expect(files.unit.contains("User=shelfmark") && files.unit.contains("NoNewPrivileges=yes") && files.unit.contains("WantedBy=multi-user.target"))
        try files.unit.write(toFile: dir + "/shelfmark.service", atomically: true, encoding: .utf8)
        let verified = try Self.run(["systemd-analyze", "verify", dir + "/shelfmark.service"])
        #expect(verified.status == 0, "\(verified.output)")
        // On high ports it keeps no capability at all.
        var high = ServiceFiles(binary: "/bin/true", port: 8443, httpPort: 8080)
        high.databaseURL = "postgres://lib:secret@db.school.example/shelfmark"
        #expect(!high.unit.contains("AmbientCapabilities") && high.unit.contains("CapabilityBoundingSet=\n"))
        try high.unit.write(toFile: dir + "/high.service", atomically: true, encoding: .utf8)
        #expect(try Self.run(["systemd-analyze", "verify", dir + "/high.service"]).status == 0)
        #expect(high.config.contains("SHELFMARK_PORT=8443\n") && high.config.contains("DATABASE_URL=postgres://lib:secret@db.school.example/shelfmark\n"))
        // A broken unit fails the same check: the check is not a formality.
        try files.unit.replacingOccurrences(of: "ExecStart=/bin/true", with: "ExecStart=bin/true")
            .write(toFile: dir + "/broken.service", atomically: true, encoding: .utf8)
        #expect(try Self.run(["systemd-analyze", "verify", dir + "/broken.service"]).status != 0)
    }

    @Test func installWritesTheServiceAndUninstallKeepsTheData() throws {
        let root = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: root) }
        var options = try ServiceInstaller.parse(["--root", root, "--port", "8443", "--http-port", "8080", "--public-url", "https://library.school.example",
                                                  "--backup-folder", "/media/backup"])
        options.binarySource = "/bin/true"
        for step in try ServiceInstaller.installSteps(options) { try ServiceInstaller.perform(step, root: root) }
        let fm = FileManager.default
        let unit = try String(contentsOfFile: root + ServiceFiles.unitPath, encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/local/bin/shelfmark serve --hostname ${SHELFMARK_HOSTNAME} --port ${SHELFMARK_PORT}"))
        #expect(unit.contains("ReadWritePaths=/var/lib/shelfmark /media/backup"))
        let config = try String(contentsOfFile: root + ServiceFiles.configPath, encoding: .utf8)
        #expect(config.contains("SHELFMARK_PORT=8443\n") && config.contains("SHELFMARK_HTTP_PORT=8080\n") && config.contains("SHELFMARK_TLS=true\n"))
        #expect(config.contains("SHELFMARK_PUBLIC_URL=https://library.school.example\n") && config.contains("SHELFMARK_DATA_DIR=/var/lib/shelfmark\n"))
        #expect((try fm.attributesOfItem(atPath: root + ServiceFiles.configPath)[.posixPermissions] as? Int) == 0o640)
        #expect((try fm.attributesOfItem(atPath: root + "/var/lib/shelfmark")[.posixPermissions] as? Int) == 0o700)
        #expect(fm.isExecutableFile(atPath: root + "/usr/local/bin/shelfmark"))
        #expect(fm.fileExists(atPath: root + "/usr/local/share/shelfmark/Public/css/app.css"))

        // Installed again without new settings: a settings file someone edited stays as it is.
        try (config + "SHELFMARK_LOOKUP_TIMEOUT=5\n").write(toFile: root + ServiceFiles.configPath, atomically: true, encoding: .utf8)
        var again = try ServiceInstaller.parse(["--root", root])
        again.binarySource = "/bin/true"
        for step in try ServiceInstaller.installSteps(again) { try ServiceInstaller.perform(step, root: root) }
        #expect(try String(contentsOfFile: root + ServiceFiles.configPath, encoding: .utf8).hasSuffix("SHELFMARK_LOOKUP_TIMEOUT=5\n"))

        // Uninstalled: the unit goes, the data and the settings stay.
        try fm.createDirectory(atPath: root + "/var/lib/shelfmark/backups", withIntermediateDirectories: true)
        for step in ServiceInstaller.uninstallSteps(try ServiceInstaller.parse(["--root", root])) { try ServiceInstaller.perform(step, root: root) }
        #expect(!fm.fileExists(atPath: root + ServiceFiles.unitPath))
        #expect(fm.fileExists(atPath: root + ServiceFiles.configPath) && fm.fileExists(atPath: root + "/var/lib/shelfmark/backups"))
    }

    @Test func badOptionsAreRefusedBeforeAnythingIsWritten() throws {
        for (arguments, says) in [(["--port", "0"], "--port is a port"), (["--public-url", "ftp://x"], "--public-url is an address"),
                                  (["--database-url", "mysql://x"], "--database-url starts with postgres://"), (["--data-dir", "var/lib"], "--data-dir is a full path"),
                                  (["--user", "Root Admin"], "--user is a system user name"), (["--frobnicate"], "Unknown option --frobnicate"),
                                  (["--port", "8443", "--http-port", "8443"], "--http-port must differ")] {
            #expect(throws: (any Error).self, "\(arguments)") { try ServiceInstaller.parse(arguments) }
            do { _ = try ServiceInstaller.parse(arguments) } catch { #expect(describe(error).contains(says), "\(arguments): \(describe(error))") }
        }
        // Without HTTPS there is no plain-HTTP port beside it.
        #expect(try ServiceInstaller.parse(["--no-tls", "--port", "8080"]).files.httpPort == nil)
    }

    /// What the Debian package's postinst runs: the binary and the web files stay where the package put them.
    @Test func inPlaceCopiesNothingAndTheUnitStartsThisBinary() throws {
        let options = try ServiceInstaller.parse(["--in-place", "--dry-run"])
        #expect(options.files.binary == PublicFiles.binary)
        #expect(FileManager.default.fileExists(atPath: options.files.publicDirectory + "/css/app.css"))
        let steps = try ServiceInstaller.installSteps(options)
        #expect(!steps.contains { if case .copy = $0 { true } else { false } }, "\(steps)")
        #expect(options.files.unit.contains("ExecStart=\(PublicFiles.binary) serve "))
        #expect(options.files.config.contains("SHELFMARK_PUBLIC_DIR=\(options.files.publicDirectory)\n"))
    }
}
