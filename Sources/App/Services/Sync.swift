import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The sync feed (issue 28, G4): what changed in a library since a cursor, read from `sync_log`
/// (kept by triggers, `CreateSyncLog`). A cursor is a position in the log's order — version, kind,
/// id — written `v<version>` when everything up to that version was sent, `v<version>.<kind>.<id>` in
/// the middle of one version (a bulk import is one version on PostgreSQL). See docs/SYNC.md.
enum Sync {
    static let defaultLimit = 1_000
    static let maxLimit = 5_000
    /// How long a tombstone is kept: a device away longer fetches everything again.
    static let tombstoneRetention: TimeInterval = 30 * 86_400
    /// How long a pushed mutation's answer is kept, so a push sent again is not applied again.
    static let mutationRetention: TimeInterval = 365 * 86_400

    struct Cursor: Equatable, Sendable {
        var version: Int64
        var after: (kind: Int, id: UUID)?

        static func == (a: Cursor, b: Cursor) -> Bool {
            a.version == b.version && a.after?.kind == b.after?.kind && a.after?.id == b.after?.id
        }

        /// Before everything: a first pull.
        static let start = Cursor(version: -1, after: nil)

        var text: String {
            guard let after else { return "v\(version)" }
            return "v\(version).\(after.kind).\(after.id.uuidString.lowercased())"
        }

        init(version: Int64, after: (kind: Int, id: UUID)?) { (self.version, self.after) = (version, after) }

        init?(_ text: String) {
            guard text.count <= 80, text.hasPrefix("v") else { return nil }
            let parts = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            guard let first = parts.first, first.count <= 18, first.allSatisfy(\.isASCII), let version = Int64(first), version >= 0 else { return nil }
            switch parts.count {
            case 1: self.init(version: version, after: nil)
            case 3:
                guard let kind = Int(parts[1]), CreateSyncLog.Kind(rawValue: kind) != nil, let id = UUID(uuidString: String(parts[2])) else { return nil }
                self.init(version: version, after: (kind, id))
            default: return nil
            }
        }
    }

    /// Changes after `cursor` (nil: a first pull), at most `limit`.
    static func changes(library: UUID, after cursor: Cursor?, limit: Int, on db: any Database) async throws -> SyncPage {
        let sql = db.sql
        if let cursor {
            let floor = try await sql.raw("SELECT sync_floor FROM libraries WHERE id = \(bind: library)").first()?
                .decode(column: "sync_floor", as: Int64.self) ?? 0
            guard cursor.version >= floor else { throw SyncError.mustRefetch }
        }
        let from = cursor ?? .start
        // Everything at or below `upTo` has committed, or never will: read first, so a change that
        // commits while the page is read lies above it and comes with the next pull.
        let upTo: Int64
        if db.isSQLite {
            upTo = try await sql.raw("SELECT version FROM sync_clock WHERE id = 1").first()?.decode(column: "version", as: Int64.self) ?? 0
        } else {
            upTo = try await sql.raw("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1 AS v").first()?
                .decode(column: "v", as: Int64.self) ?? 0
        }
        let position: SQLQueryString = from.after.map { "(version, kind, entity_id) > (\(bind: from.version), \(bind: $0.kind), \(bind: $0.id))" }
            ?? "version > \(bind: from.version)"
        struct Entry: Decodable { var kind: Int; var entity_id: UUID; var version: Int64; var deleted: Bool }
        let entries = try await sql.raw("""
            SELECT kind, entity_id, version, deleted FROM sync_log
            WHERE library_id = \(bind: library) AND \(position) AND version <= \(bind: upTo)
            ORDER BY version, kind, entity_id LIMIT \(unsafeRaw: String(limit + 1))
            """).all(decoding: Entry.self)
        let page = entries.prefix(limit)
        let more = entries.count > limit
        let next: Cursor
        if more, let last = page.last {
            next = Cursor(version: last.version, after: (last.kind, last.entity_id))
        } else {
            next = Cursor(version: max(upTo, from.version), after: nil)
        }
        var behind = false
        if !more, !db.isSQLite {
            behind = try await sql.raw("SELECT 1 AS x FROM sync_log WHERE library_id = \(bind: library) AND version > \(bind: upTo) LIMIT 1").first() != nil
        }
        let bodies = try await Bodies.load(page.filter { !$0.deleted }.map { ($0.kind, $0.entity_id) }, library: library, on: db)
        let changes = page.compactMap { entry -> SyncChange? in
            guard let kind = CreateSyncLog.Kind(rawValue: entry.kind) else { return nil }
            var change = SyncChange(kind: SyncKind(kind), id: entry.entity_id)
            switch kind {
            case .title: change.title = bodies.titles[entry.entity_id]
            case .copy: change.copy = bodies.copies[entry.entity_id]
            case .member: change.member = bodies.members[entry.entity_id]
            case .loan: change.loan = bodies.loans[entry.entity_id]
            }
            if entry.deleted || (change.title == nil && change.copy == nil && change.member == nil && change.loan == nil) {
                change = SyncChange(kind: change.kind, id: entry.entity_id, removed: true)
            }
            return change
        }
        return SyncPage(changes: changes, cursor: next.text, more: more, behind: behind)
    }

    /// The current rows of the things a page names (a row gone since, or out of the client's set, is absent).
    struct Bodies {
        var titles: [UUID: SyncTitle] = [:]
        var copies: [UUID: SyncCopy] = [:]
        var members: [UUID: SyncMember] = [:]
        var loans: [UUID: SyncLoan] = [:]

        static func load(_ wanted: [(kind: Int, id: UUID)], library: UUID, on db: any Database) async throws -> Bodies {
            var bodies = Bodies()
            let sql = db.sql
            func ids(_ kind: CreateSyncLog.Kind) -> [UUID] { wanted.filter { $0.kind == kind.rawValue }.map(\.id) }
            func list(_ ids: [UUID]) -> SQLQueryString { "\(binds: ids)" }
            for chunk in ids(.title).chunked(500) {
                for row in try await sql.raw("""
                    SELECT id, title, subtitle, authors, isbn13, publisher, published_date, page_count, series, series_number,
                           reading_level, cover_url, updated_at
                    FROM titles WHERE library_id = \(bind: library) AND NOT wishlist AND id IN (\(list(chunk)))
                    """).all() {
                    bodies.titles[try row.decode(column: "id", as: UUID.self)] = try syncTitle(row)
                }
            }
            for chunk in ids(.copy).chunked(500) {
                for row in try await sql.raw("""
                    SELECT id, title_id, barcode, copy_number, status, location FROM copies
                    WHERE library_id = \(bind: library) AND id IN (\(list(chunk)))
                    """).all() {
                    bodies.copies[try row.decode(column: "id", as: UUID.self)] = try syncCopy(row)
                }
            }
            for chunk in ids(.member).chunked(500) {
                for row in try await sql.raw("""
                    SELECT id, card_id, first_name, last_name, grade, suspended_until FROM members
                    WHERE library_id = \(bind: library) AND id IN (\(list(chunk)))
                    """).all() {
                    bodies.members[try row.decode(column: "id", as: UUID.self)] = SyncMember(
                        cardId: try row.decode(column: "card_id", as: String.self), firstName: try row.decode(column: "first_name", as: String.self),
                        lastName: try row.decode(column: "last_name", as: String.self), grade: try row.decode(column: "grade", as: String?.self),
                        suspendedUntil: try row.decode(column: "suspended_until", as: Date?.self))
                }
            }
            for chunk in ids(.loan).chunked(500) {
                for row in try await sql.raw("""
                    SELECT id, copy_id, title_id, member_id, due_at, renewals FROM loans
                    WHERE library_id = \(bind: library) AND returned_at IS NULL AND id IN (\(list(chunk)))
                    """).all() {
                    bodies.loans[try row.decode(column: "id", as: UUID.self)] = try syncLoan(row)
                }
            }
            return bodies
        }
    }

    static func syncTitle(_ row: any SQLRow) throws -> SyncTitle {
        SyncTitle(title: try row.decode(column: "title", as: String.self), subtitle: try row.decode(column: "subtitle", as: String?.self),
                  authors: try row.decode(column: "authors", as: [String].self), isbn13: try row.decode(column: "isbn13", as: String?.self),
                  publisher: try row.decode(column: "publisher", as: String?.self),
                  publishedDate: try row.decode(column: "published_date", as: String?.self),
                  pageCount: try row.decode(column: "page_count", as: Int?.self), series: try row.decode(column: "series", as: String?.self),
                  seriesNumber: try row.decode(column: "series_number", as: String?.self),
                  readingLevel: try row.decode(column: "reading_level", as: String?.self),
                  coverUrl: try row.decode(column: "cover_url", as: String?.self), updatedAt: try row.decode(column: "updated_at", as: Date?.self))
    }

    static func syncCopy(_ row: any SQLRow) throws -> SyncCopy {
        SyncCopy(titleId: try row.decode(column: "title_id", as: UUID.self), barcode: try row.decode(column: "barcode", as: String.self),
                 copyNumber: try row.decode(column: "copy_number", as: Int.self), status: try row.decode(column: "status", as: String.self),
                 location: try row.decode(column: "location", as: String?.self))
    }

    static func syncLoan(_ row: any SQLRow) throws -> SyncLoan {
        SyncLoan(copyId: try row.decode(column: "copy_id", as: UUID?.self), titleId: try row.decode(column: "title_id", as: UUID?.self),
                 memberId: try row.decode(column: "member_id", as: UUID?.self), dueAt: try row.decode(column: "due_at", as: Date.self),
                 renewals: try row.decode(column: "renewals", as: Int.self))
    }

    /// The scheduled clean-up (with the jobs' prune): tombstones older than `tombstoneRetention` go, and
    /// the library's floor rises to the newest of them, so a cursor from before answers "fetch again"
    /// instead of missing a removal; answers to pushes older than `mutationRetention` go.
    static func purge(library: UUID, now: Date, gate: WriteGate, on db: any Database) async throws -> Int {
        let cutoff = now.addingTimeInterval(-tombstoneRetention)
        return try await gate.transaction(on: db) { db in
            let sql = db.sql
            try await sql.raw("DELETE FROM sync_mutations WHERE library_id = \(bind: library) AND created_at < \(bind: now.addingTimeInterval(-mutationRetention))").run()
            let condition: SQLQueryString = "library_id = \(bind: library) AND deleted AND changed_at < \(bind: cutoff)"
            struct Purged: Decodable { var n: Int; var v: Int64? }
            guard let purged = try await sql.raw("SELECT COUNT(*) AS n, MAX(version) AS v FROM sync_log WHERE \(condition)").first(decoding: Purged.self),
                  purged.n > 0, let newest = purged.v else { return 0 }
            try await sql.raw("DELETE FROM sync_log WHERE \(condition)").run()
            try await sql.raw("UPDATE libraries SET sync_floor = \(bind: newest) WHERE id = \(bind: library) AND sync_floor < \(bind: newest)").run()
            return purged.n
        }
    }

    /// A library deleted: its feed and pushed answers go with it (the removals its rows left behind
    /// are nobody's to read).
    static func forget(library: UUID, on db: any Database) async throws {
        try await db.sql.raw("DELETE FROM sync_log WHERE library_id = \(bind: library)").run()
        try await db.sql.raw("DELETE FROM sync_mutations WHERE library_id = \(bind: library)").run()
    }
}
