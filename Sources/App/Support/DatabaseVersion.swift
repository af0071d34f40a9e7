import Fluent
import Foundation
import SQLKit
import Vapor

/// What version of Shelfmark a database was written by, as its migrations say: one that has changes
/// this version does not know was written by a newer version and is refused (never migrated down,
/// never opened); one that lacks some is an older version's, copied aside before it is updated.
enum DatabaseVersion {
    /// A database a newer Shelfmark wrote.
    struct TooNew: Error, CustomStringConvertible {
        var unknown: [String]
        var description: String {
            let names = unknown.map { $0.split(separator: ".").last.map(String.init) ?? $0 }
            return "This database was written by a newer version of Shelfmark: it has \(unknown.count) "
                + "change\(unknown.count == 1 ? "" : "s") this version does not know (\(names.prefix(3).joined(separator: ", "))"
                + "\(names.count > 3 ? ", …" : "")). Nothing was changed. Run that version or a newer one, "
                + "or restore a backup made with this version."
        }
    }

    /// The names of the migrations the database has run (none when it is new).
    static func applied(on db: any Database) async throws -> [String] {
        struct Row: Decodable { var name: String }
        return try await db.sql.raw("SELECT name FROM _fluent_migrations").all(decoding: Row.self).map(\.name)
    }

    /// Refuses a database written by a newer version.
    static func refuseNewer(applied: [String]) throws {
        let known = Set(Migrations.inOrder.map { $0.name })
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty { throw TooNew(unknown: unknown) }
    }

    /// Before an older version's SQLite database is updated: an online copy beside it
    /// (`shelfmark-before-update-2026-11-28T101500Z.sqlite`), checked, so an update that goes wrong
    /// loses nothing. Answers where it went; nil on PostgreSQL (its administrator backs it up with
    /// `pg_dump`, as the log then says).
    static func copyBeforeUpdate(_ app: Application, now: Date) async throws -> String? {
        guard case .sqlite(let path) = app.storageConfig else { return nil }
        let copy = StorageConfig.folder(ofFile: path) + "/shelfmark-before-update-\(now.fileStamp).sqlite"
        try await app.db.sql.raw("VACUUM INTO \(bind: copy)").run()
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy)
        return copy
    }
}
