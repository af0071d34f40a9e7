import App
import Foundation
import Vapor

// Everything the server writes (the database, backups, exports) is readable by its owner only.
umask(0o077)

// Commands that need no database run before the application starts.
switch CommandLine.arguments.dropFirst().first {
case "isbn":
    ISBNCheck.run(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
case "pages":
    PagesListing.lines().forEach { print($0) }
    exit(0)
case "scan":
    exit(ScanCheck.run(Array(CommandLine.arguments.dropFirst(2))))
case "install", "uninstall":
    exit(ServiceInstaller.run(CommandLine.arguments[1], Array(CommandLine.arguments.dropFirst(2))))
default:
    break
}

// HTTPS options (`--tls`, `--tls-cert`, `--tls-key`, `--http-port`) are Shelfmark's, not Vapor's `serve`'s.
let https: HTTPSOptions
let arguments: [String]
do {
    (https, arguments) = try HTTPSOptions.extract(from: CommandLine.arguments)
} catch {
    FileHandle.standardError.write(Data("shelfmark: \(describe(error))\n".utf8))
    exit(1)
}
var env = try Environment.detect(arguments: arguments)
do {
    if try JSONLogHandler.wanted() {
        try LoggingSystem.bootstrap(from: &env) { level in { label in JSONLogHandler(label: label, level: level) } }
    } else {
        try LoggingSystem.bootstrap(from: &env)
    }
} catch {
    FileHandle.standardError.write(Data("shelfmark: \(describe(error))\n".utf8))
    exit(1)
}
let app = try await Application.make(env)
app.httpsOptions = https
do {
    try await configure(app)
    // Migrations run on start; `shelfmark migrate` runs them on its own (with its confirmation).
    if env.arguments.dropFirst().first != "migrate" && !commandReadsNoData(env.arguments) {
        try await app.migrateHoldingLock()
    }
    try await app.execute()
} catch {
    FileHandle.standardError.write(Data("shelfmark: \(describe(error))\n".utf8))
    try? await app.asyncShutdown()
    exit(1)
}
try await app.asyncShutdown()
