import Crypto
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The school's system drops its roster in a folder of the library's on the server
/// (`<data>/roster/<library id>/`, or under `SHELFMARK_ROSTER_DIR`): a zip, the OneRoster CSV files
/// themselves, or one CSV of students (the whole school). Each night, where the library asks for it, the
/// newest is read — once: the same files are not read again — and applied as a librarian would apply
/// it, unless it would archive more than a fifth of the pupils the school's records gave (at least 10):
/// then it waits as a preview on the roster page for a librarian to read and apply.
enum RosterFolder {
    static func root(_ env: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = env["SHELFMARK_ROSTER_DIR"], !dir.isEmpty { return dir }
        return (env["SHELFMARK_DATA_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "data") + "/roster"
    }

    static func folder(library: UUID, root: String) -> String { root + "/" + library.uuidString.lowercased() }

    /// The newest roster in `dir`: its files by name, a name for the run, and a hash of it all.
    static func newest(in dir: String) throws -> (files: [String: String], name: String, hash: String)? {
        let fm = FileManager.default
        let names = ((try? fm.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
        func modified(_ name: String) -> Date {
            ((try? fm.attributesOfItem(atPath: dir + "/" + name))?[.modificationDate] as? Date) ?? .distantPast
        }
        func bytes(_ name: String) throws -> Data {
            let size = ((try? fm.attributesOfItem(atPath: dir + "/" + name))?[.size] as? Int) ?? 0
            guard size <= RosterSync.maxBytes, let data = fm.contents(atPath: dir + "/" + name) else {
                throw SchoolYearError.rosterTooLarge(maxMB: RosterSync.maxBytes >> 20)
            }
            return data
        }
        var files: [String: String] = [:]
        var hasher = SHA256()
        let name: String
        if let zip = names.filter({ $0.lowercased().hasSuffix(".zip") }).max(by: { modified($0) < modified($1) }) {
            let data = try bytes(zip)
            hasher.update(data: data)
            files = try RosterSync.unzip(data)
            name = zip
        } else {
            let csvs = names.filter { n in [".csv", ".tsv", ".txt"].contains { n.lowercased().hasSuffix($0) } }
            let chosen: [String]
            if OneRoster.isBundle(csvs) {
                chosen = csvs
            } else if let newest = csvs.max(by: { modified($0) < modified($1) }) {
                chosen = [newest]
            } else {
                return nil
            }
            guard chosen.count <= 20 else { throw SchoolYearError.rosterTooLarge(maxMB: RosterSync.maxUnpacked >> 20) }
            for file in chosen {
                let data = try bytes(file)
                hasher.update(data: Data(file.utf8))
                hasher.update(data: data)
                files[file] = TextDecoding.decode(data).text
            }
            name = chosen.count == 1 ? chosen[0] : "users.csv"
        }
        return (files, name, hasher.finalize().map { String(format: "%02x", $0) }.joined())
    }

    /// What a night's run did.
    enum Outcome: Equatable {
        case nothingNew
        case applied(UUID, added: Int, changed: Int, archived: Int)
        /// Kept as a preview: it would archive `leaving` of the `known` pupils.
        case heldBack(UUID, leaving: Int, known: Int)
    }

    static func run(library: UUID, app: Application) async throws -> RecurringJobs.Outcome {
        switch try await run(library: library, root: root(), app: app) {
        case .nothingNew: return .init(added: 0, changed: 0, archived: 0)
        case .applied(_, let added, let changed, let archived): return .init(added: added, changed: changed, archived: archived)
        case .heldBack(_, let leaving, _): return .init(archived: leaving, heldBack: true)
        }
    }

    static func run(library: UUID, root: String, app: Application) async throws -> Outcome {
        guard let found = try newest(in: folder(library: library, root: root)) else { return .nothingNew }
        let db = app.db
        struct Seen: Decodable { var n: Int }
        if try await db.sql.raw("""
            SELECT COUNT(*) AS n FROM roster_runs WHERE library_id = \(bind: library) AND source_hash = \(bind: found.hash)
            """).first(decoding: Seen.self)?.n ?? 0 > 0 { return .nothingNew }
        guard let ctx = try await LibraryContext.server(library, on: db) else { return .nothingNew }
        let scope = Scope(library: ctx, app: app)
        let roster = try RosterSync.read(files: found.files, options: .init())
        let run = try await RosterSync.preview(roster, fileName: found.name, source: "folder", hash: found.hash, in: scope)
        let known = try await db.sql.raw("""
            SELECT COUNT(*) AS n FROM members WHERE library_id = \(bind: library) AND roster_id IS NOT NULL AND archived_at IS NULL
            """).first(decoding: Seen.self)?.n ?? 0
        let leaving = run.plan.leaving.count
        if leaving >= 10 && leaving * 5 > known { return .heldBack(run.id, leaving: leaving, known: known) }
        let done = try await RosterSync.apply(run.id, in: scope).plan
        return .applied(run.id, added: done.added.count, changed: done.changed.count, archived: done.leaving.count)
    }
}
