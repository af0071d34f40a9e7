import Foundation
import Vapor

/// Where the stylesheet, script and icons are served from. Vapor looks in `Public/` under the
/// working directory only, so a server started from anywhere else sent pages without their
/// stylesheet. Looked for, in order: `SHELFMARK_PUBLIC_DIR`; `Public/` in the working directory;
/// then `Public/` and `share/shelfmark/Public/` in the binary's folder and up to three folders above
/// it (a `swift build` tree, `.build/<triple>/release/shelfmark`; an installed `bin/` and `share/`).
/// The first holding `css/app.css` wins.
enum PublicFiles {
    static func directory(for app: Application) -> String {
        let candidates = candidates(workingPublic: app.directory.publicDirectory)
        if let found = first(of: candidates) { return found }
        app.logger.warning("No Public directory with css/app.css found (looked in: \(candidates.joined(separator: ", "))); pages will have no stylesheet. Set SHELFMARK_PUBLIC_DIR.")
        return app.directory.publicDirectory
    }

    /// The running binary's own path.
    static var binary: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    static func candidates(workingPublic: String) -> [String] {
        var candidates: [String] = []
        if let configured = Environment.get("SHELFMARK_PUBLIC_DIR"), !configured.isEmpty { candidates.append(configured) }
        candidates.append(workingPublic)
        var folder = URL(fileURLWithPath: binary).deletingLastPathComponent()
        for _ in 0..<4 {
            candidates += [folder.appendingPathComponent("Public").path, folder.appendingPathComponent("share/shelfmark/Public").path]
            folder = folder.deletingLastPathComponent()
        }
        return candidates
    }

    /// The first of `candidates` holding `css/app.css`, with a trailing slash.
    static func first(of candidates: [String]) -> String? {
        for dir in candidates where FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("css/app.css")) {
            return dir.hasSuffix("/") ? dir : dir + "/"
        }
        return nil
    }
}
