import Foundation
import ShelfmarkReplay

// shelfmark-replay [--port N] [--latency MS] [--fault none|404|429|503|malformed|slow-body|hang]
// A local stand-in for the metadata providers; point Shelfmark at it with
// SHELFMARK_PROVIDERS_URL=http://127.0.0.1:N (see README).

var port = 8091
var behaviour = ReplayServer.Behaviour()
var args = CommandLine.arguments.dropFirst()
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("shelfmark-replay: \(message)\n".utf8))
    exit(2)
}
while let arg = args.popFirst() {
    switch arg {
    case "--port":
        guard let v = args.popFirst().flatMap(Int.init), (0...65535).contains(v) else { fail("--port needs a number 0–65535") }
        port = v
    case "--latency":
        guard let v = args.popFirst().flatMap(Int.init), v >= 0 else { fail("--latency needs milliseconds ≥ 0") }
        behaviour.latencyMs = v
    case "--fault":
        guard let v = args.popFirst().flatMap(ReplayServer.Fault.init(rawValue:)) else {
            fail("--fault needs one of: \(ReplayServer.Fault.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        behaviour.fault = v
    case "-h", "--help":
        print("usage: shelfmark-replay [--port N] [--latency MS] [--fault \(ReplayServer.Fault.allCases.map(\.rawValue).joined(separator: "|"))]")
        exit(0)
    default:
        fail("unknown argument \(arg) (try --help)")
    }
}

// Ctrl-C and `kill` end the server at once: it holds nothing worth a graceful shutdown.
signal(SIGINT) { _ in _exit(0) }
signal(SIGTERM) { _ in _exit(0) }

do {
    let server = try await ReplayServer.start(port: port, behaviour: behaviour)
    FileHandle.standardOutput.write(Data("replay server listening on \(server.baseURL) (latency \(behaviour.latencyMs) ms, fault \(behaviour.fault.rawValue))\n".utf8))
    try await server.run()
} catch {
    fail("\(error)")
}
