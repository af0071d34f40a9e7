import Foundation
import ShelfmarkCore

/// `shelfmark install` and `shelfmark uninstall`: Shelfmark as a service that starts with the machine.
///
/// Install (as root): a system user, the data directory (`/var/lib/shelfmark`, the owner's only), the
/// binary and its web files under `/usr/local`, the settings in `/etc/shelfmark/shelfmark.env`, and a
/// systemd unit (`ServiceFiles`), enabled and started. Run again, it keeps the settings file a person
/// may have edited unless options change it. Uninstall stops and removes the service and keeps the
/// data and the settings. `--dry-run` prints every step instead; `--root DIR` writes the files under
/// DIR and leaves users and systemd alone (a package build, a test); `--in-place` uses the binary and
/// its web files where they are (the Debian package's `/usr/lib/shelfmark`). Needs no database.
public enum ServiceInstaller {
    struct Options {
        var dryRun = false
        var root = "/"
        var files = ServiceFiles(binary: "/usr/local/bin/shelfmark")
        var backupFolder: String?
        var keepConfig = true
        /// The binary installed: this one.
        var binarySource = PublicFiles.binary
    }

    enum Step: CustomStringConvertible {
        case makeUser(String, home: String)
        case makeDirectory(String, owner: String?, mode: Int)
        case copy(from: String, to: String, mode: Int)
        case write(String, contents: String, mode: Int, group: String?)
        case remove(String)
        case run([String])

        var description: String {
            switch self {
            case .makeUser(let user, let home): "create the system user \(user) (home \(home), no login)"
            case .makeDirectory(let path, let owner, let mode): "create \(path) (mode \(String(mode, radix: 8))\(owner.map { ", owned by \($0)" } ?? ""))"
            case .copy(let from, let to, _): "copy \(from) to \(to)"
            case .write(let path, let contents, _, _): "write \(path):\n" + contents.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
            case .remove(let path): "remove \(path)"
            case .run(let command): "run: " + command.joined(separator: " ")
            }
        }
    }

    /// Runs `install` or `uninstall` with `arguments` (after the command's name); answers the exit status.
    public static func run(_ command: String, _ arguments: [String]) -> Int32 {
        do {
            let options = try parse(arguments)
            guard options.dryRun || options.root != "/" || getuid() == 0 else {
                throw CLIError("shelfmark \(command) needs root: sudo \(PublicFiles.binary) \(command) … (or --dry-run to see what it would do)")
            }
            let steps = command == "install" ? try installSteps(options) : uninstallSteps(options)
            for step in steps {
                print(options.dryRun ? "would \(step)" : "· \(step)")
                if !options.dryRun { try perform(step, root: options.root) }
            }
            if command == "install" {
                let scheme = options.files.tls ? "https" : "http"
                print(options.dryRun ? "Nothing was changed." : "Shelfmark runs as a service: \(scheme)://<this computer>:\(options.files.port)/ (systemctl status shelfmark). "
                      + "Settings: \(ServiceFiles.configPath); data: \(options.files.dataDirectory).")
            } else {
                print(options.dryRun ? "Nothing was changed." : "The service is removed; the data (\(options.files.dataDirectory)) and the settings (\(ServiceFiles.configDirectory)) are kept.")
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("shelfmark: \(describe(error))\n".utf8))
            return 1
        }
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var i = 0
        func value(_ flag: String) throws -> String {
            i += 1
            guard i < arguments.count, !arguments[i].hasPrefix("--") else { throw CLIError("\(flag) needs a value.") }
            return arguments[i]
        }
        func port(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let n = Int(text), (1...65535).contains(n) else { throw CLIError("\(flag) is a port, 1 to 65535 (got “\(text)”).") }
            return n
        }
        func path(_ flag: String) throws -> String {
            let text = try value(flag)
            guard text.hasPrefix("/"), !text.contains(where: { $0.isNewline || $0 == " " }) else { throw CLIError("\(flag) is a full path without spaces (got “\(text)”).") }
            return text
        }
        while i < arguments.count {
            let arg = arguments[i]
            switch arg {
            case "--dry-run": options.dryRun = true
            case "--in-place":
                // The binary and its web files stay where they are (a package put them there).
                options.files.binary = PublicFiles.binary
                guard let found = PublicFiles.first(of: PublicFiles.candidates(workingPublic: FileManager.default.currentDirectoryPath + "/Public/")) else {
                    throw CLIError("--in-place: the web files (Public/ with css/app.css) were not found next to this binary.")
                }
                options.files.publicDirectory = String(found.dropLast())
            case "--root": options.root = try path(arg)
            case "--port": options.files.port = try port(arg); options.keepConfig = false
            case "--http-port":
                if arguments.indices.contains(i + 1), arguments[i + 1] == "none" { i += 1; options.files.httpPort = nil } else { options.files.httpPort = try port(arg) }
                options.keepConfig = false
            case "--no-tls": options.files.tls = false; options.keepConfig = false
            case "--hostname": options.files.hostname = try value(arg); options.keepConfig = false
            case "--public-url":
                let url = try value(arg)
                guard url.hasPrefix("https://") || url.hasPrefix("http://"), URL(string: url)?.host != nil else { throw CLIError("--public-url is an address like https://library.school.example (got “\(url)”).") }
                options.files.publicURL = url; options.keepConfig = false
            case "--database-url":
                let url = try value(arg)
                guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else { throw CLIError("--database-url starts with postgres:// (got “\(url.prefix(20))…”).") }
                options.files.databaseURL = url; options.keepConfig = false
            case "--data-dir": options.files.dataDirectory = try path(arg); options.keepConfig = false
            case "--backup-folder": options.backupFolder = try path(arg)
            case "--user":
                let user = try value(arg)
                guard user.range(of: "^[a-z_][a-z0-9_-]{0,31}$", options: .regularExpression) != nil else { throw CLIError("--user is a system user name (got “\(user)”).") }
                options.files.user = user
            default: throw CLIError("Unknown option \(arg). Options: --dry-run, --in-place, --port N, --http-port N|none, --no-tls, --hostname H, --public-url URL, --database-url URL, --data-dir DIR, --backup-folder DIR, --user NAME, --root DIR.")
            }
            i += 1
        }
        // Without HTTPS there is nothing to send plain HTTP on to.
        if !options.files.tls { options.files.httpPort = nil }
        if options.files.tls, options.files.httpPort == options.files.port { throw CLIError("--http-port must differ from --port.") }
        options.files.writablePaths = options.backupFolder.map { [$0] } ?? []
        return options
    }

    static func installSteps(_ options: Options) throws -> [Step] {
        let files = options.files
        let root = options.root
        var steps: [Step] = []
        let underRoot = { (path: String) in root == "/" ? path : root + path }
        if root == "/", getpwnam(files.user) == nil { steps.append(.makeUser(files.user, home: files.dataDirectory)) }
        steps.append(.makeDirectory(files.dataDirectory, owner: files.user, mode: 0o700))
        if options.binarySource != underRoot(files.binary) { steps.append(.copy(from: options.binarySource, to: files.binary, mode: 0o755)) }
        guard let publicFiles = PublicFiles.first(of: PublicFiles.candidates(workingPublic: FileManager.default.currentDirectoryPath + "/Public/")) else {
            throw CLIError("The web files (Public/ with css/app.css) were not found next to this binary; run install from Shelfmark's folder or set SHELFMARK_PUBLIC_DIR.")
        }
        let publicSource = String(publicFiles.dropLast())
        if publicSource != underRoot(files.publicDirectory) { steps.append(.copy(from: publicSource, to: files.publicDirectory, mode: 0o755)) }
        steps.append(.makeDirectory(ServiceFiles.configDirectory, owner: nil, mode: 0o755))
        // A settings file someone edited stays, unless this run was told other settings.
        if !(options.keepConfig && FileManager.default.fileExists(atPath: underRoot(ServiceFiles.configPath))) {
            steps.append(.write(ServiceFiles.configPath, contents: files.config, mode: 0o640, group: root == "/" ? files.user : nil))
        }
        steps.append(.write(ServiceFiles.unitPath, contents: files.unit, mode: 0o644, group: nil))
        if root == "/" && systemdRuns {
            steps += [.run(["systemctl", "daemon-reload"]), .run(["systemctl", "enable", "--now", "shelfmark.service"])]
        }
        return steps
    }

    static func uninstallSteps(_ options: Options) -> [Step] {
        var steps: [Step] = []
        if options.root == "/" && systemdRuns { steps.append(.run(["systemctl", "disable", "--now", "shelfmark.service"])) }
        steps.append(.remove(ServiceFiles.unitPath))
        if options.root == "/" && systemdRuns { steps.append(.run(["systemctl", "daemon-reload"])) }
        return steps
    }

    /// Whether systemd manages this machine (not a container or chroot without it).
    static var systemdRuns: Bool { FileManager.default.fileExists(atPath: "/run/systemd/system") }

    static func perform(_ step: Step, root: String) throws {
        let fm = FileManager.default
        let at = { (path: String) in root == "/" ? path : root + path }
        switch step {
        case .makeUser(let user, let home):
            try execute(["useradd", "--system", "--home-dir", home, "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", user])
        case .makeDirectory(let path, let owner, let mode):
            try fm.createDirectory(atPath: at(path), withIntermediateDirectories: true)
            try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: at(path))
            if let owner, root == "/" { try execute(["chown", "\(owner):\(owner)", path]) }
        case .copy(let from, let to, let mode):
            try fm.createDirectory(atPath: (at(to) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if fm.fileExists(atPath: at(to)) { try fm.removeItem(atPath: at(to)) }
            try fm.copyItem(atPath: from, toPath: at(to))
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: at(to), isDirectory: &isDirectory), !isDirectory.boolValue {
                try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: at(to))
            }
        case .write(let path, let contents, let mode, let group):
            try fm.createDirectory(atPath: (at(path) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(contents.utf8).write(to: URL(fileURLWithPath: at(path)))
            try fm.setAttributes([.posixPermissions: mode], ofItemAtPath: at(path))
            if let group { try execute(["chgrp", group, path]) }
        case .remove(let path):
            if fm.fileExists(atPath: at(path)) { try fm.removeItem(atPath: at(path)) }
        case .run(let command):
            try execute(command)
        }
    }

    private static func execute(_ command: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CLIError("\(command.joined(separator: " ")) failed (exit status \(process.terminationStatus)).") }
    }
}
