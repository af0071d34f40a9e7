import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The sync feed: what changed in a library since a cursor, read from `sync_log`
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

    /// Changes after `cursor` (nil: a first pull), at most `limit`: the answer's JSON (a `SyncPage`).
    /// Each change's body is made by the database as JSON (`json_object`, `json_build_object`) in the
    /// query that reads the log: a first pull of 80,000 things is never decoded into Swift values and
    /// encoded again.
    static func changes(library: UUID, after cursor: Cursor?, limit: Int, on db: any Database) async throws -> String {
        let sql = db.sql
        let sqlite = Dialect(db) == .sqlite
        // Everything at or below `upTo` has committed, or never will: read first, so a change that
        // commits while the page is read lies above it and comes with the next pull.
        let horizon: SQLQueryString = sqlite ? "(SELECT version FROM sync_clock WHERE id = 1)"
            : "pg_snapshot_xmin(pg_current_snapshot())::text::bigint - 1"
        guard let bounds = try await sql.raw("""
            SELECT \(horizon) AS v, sync_floor AS f, no AS n FROM libraries WHERE id = \(bind: library)
            """).first() else { throw AccountError.libraryNotFound }
        let upTo = try bounds.decode(column: "v", as: Int64.self)
        let floor = try bounds.decode(column: "f", as: Int64.self)
        // The log names the library by its number (`SyncLogLibraryNumbers`).
        let number = try bounds.decode(column: "n", as: Int64.self)
        // Below the floor: removals it needs were purged. Above what the log has handed out: a cursor from
        // another database (the installation restored from an older backup, or moved to PostgreSQL).
        if let cursor, cursor.version < floor || cursor.version > upTo { throw SyncError.mustRefetch }
        let from = cursor ?? .start
        let position: SQLQueryString = from.after.map {
            "(l.version, l.kind, l.entity_id) > (\(bind: from.version), \(bind: $0.kind), \(bind: $0.id))"
        } ?? "l.version > \(bind: from.version)"
        let rows = try await sql.raw("""
            SELECT l.kind, l.entity_id, l.version, \(body(sqlite: sqlite, library: library)) AS body FROM sync_log l
            WHERE l.library_id = \(bind: number) AND \(position) AND l.version <= \(bind: upTo)
            ORDER BY l.version, l.kind, l.entity_id LIMIT \(unsafeRaw: String(limit + 1))
            """).all()
        let more = rows.count > limit
        var json = "{\"changes\":["
        json.reserveCapacity(rows.count * 200)
        var last: (version: Int64, kind: Int, id: UUID)?
        for (i, row) in rows.prefix(limit).enumerated() {
            let kind = try row.decode(column: "kind", as: Int.self)
            let id = try row.decode(column: "entity_id", as: UUID.self)
            last = (try row.decode(column: "version", as: Int64.self), kind, id)
            guard let name = CreateSyncLog.Kind(rawValue: kind).map({ SyncKind($0).rawValue }) else { continue }
            if i > 0 { json += "," }
            json += "{\"kind\":\"\(name)\",\"id\":\"\(id.uuidString)\","
            // No body: removed (deleted, to the wishlist, returned; or gone since the log was read).
            if let body = try row.decode(column: "body", as: String?.self) {
                json += "\"\(name)\":" + body + "}"
            } else {
                json += "\"removed\":true}"
            }
        }
        let next: Cursor
        if more, let last {
            next = Cursor(version: last.version, after: (last.kind, last.id))
        } else {
            next = Cursor(version: max(upTo, from.version), after: nil)
        }
        var behind = false
        if !more, !sqlite {
            behind = try await sql.raw("SELECT 1 AS x FROM sync_log WHERE library_id = \(bind: number) AND version > \(bind: upTo) LIMIT 1").first() != nil
        }
        json += "],\"cursor\":\"\(next.text)\",\"more\":\(more),\"behind\":\(behind)}"
        return json
    }

    /// The body of a log row as JSON text, made by the database (NULL when removed): the shapes of
    /// `SyncTitle`, `SyncCopy`, `SyncMember` and `SyncLoan`, dates as ISO 8601 to the second (the API's).
    static func body(sqlite: Bool, library: UUID) -> SQLQueryString {
        // An absent field is left out, as the API's encoder does (`json_patch` onto {} drops members that are null).
        func object(_ pairs: KeyValuePairs<String, String>) -> String {
            let fields = pairs.map { "'\($0.key)', \($0.value)" }.joined(separator: ", ")
            return sqlite ? "json_patch('{}', json_object(\(fields)))" : "json_strip_nulls(json_build_object(\(fields)))"
        }
        // To the second by truncation, as the API's encoder writes a date (SQLite's strftime would round
        // 36.9996 s up to 37).
        func date(_ column: String) -> String {
            sqlite ? "strftime('%Y-%m-%dT%H:%M:%SZ', CAST(\(column) AS INTEGER), 'unixepoch')"
                : "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
        }
        let title = object(["title": "t.title", "subtitle": "t.subtitle", "authors": sqlite ? "json(t.authors)" : "to_json(t.authors)",
                            "isbn13": "t.isbn13", "publisher": "t.publisher", "publishedDate": "t.published_date", "pageCount": "t.page_count",
                            "series": "t.series", "seriesNumber": "t.series_number", "readingLevel": "t.reading_level",
                            "coverUrl": "t.cover_url", "updatedAt": date("t.updated_at")])
        // Ids as the API writes them (upper-case text), whatever the database keeps (SQLite: 16 bytes).
        func uuid(_ column: String) -> String { sqlite ? CompactSyncLog.textID(column) : "upper(\(column)::text)" }
        let copy = object(["titleId": uuid("c.title_id"), "barcode": "c.barcode", "copyNumber": "c.copy_number", "status": "c.status",
                           "location": "c.location"])
        let member = object(["cardId": "m.card_id", "firstName": "m.first_name", "lastName": "m.last_name", "grade": "m.grade",
                             "suspendedUntil": date("m.suspended_until")])
        let loan = object(["copyId": uuid("o.copy_id"), "titleId": uuid("o.title_id"), "memberId": uuid("o.member_id"), "dueAt": date("o.due_at"),
                           "renewals": "o.renewals"])
        let text = sqlite ? "" : "::text"
        return """
            CASE WHEN l.deleted THEN NULL ELSE CASE l.kind
                WHEN 1 THEN (SELECT \(unsafeRaw: title)\(unsafeRaw: text) FROM titles t WHERE t.id = l.entity_id AND t.library_no = \(LibraryNumber.of(library)) AND NOT t.wishlist)
                WHEN 2 THEN (SELECT \(unsafeRaw: copy)\(unsafeRaw: text) FROM copies c WHERE c.id = l.entity_id AND c.library_no = \(LibraryNumber.of(library)))
                WHEN 3 THEN (SELECT \(unsafeRaw: member)\(unsafeRaw: text) FROM members m WHERE m.id = l.entity_id AND m.library_id = \(bind: library))
                WHEN 4 THEN (SELECT \(unsafeRaw: loan)\(unsafeRaw: text) FROM loans o WHERE o.id = l.entity_id AND o.library_no = \(LibraryNumber.of(library)) AND o.returned_at IS NULL)
            END END
            """
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
            let condition: SQLQueryString = """
                library_id = (SELECT no FROM libraries WHERE id = \(bind: library)) AND deleted AND changed_at < \(bind: cutoff)
                """
            struct Purged: Decodable { var n: Int; var v: Int64? }
            guard let purged = try await sql.raw("SELECT COUNT(*) AS n, MAX(version) AS v FROM sync_log WHERE \(condition)").first(decoding: Purged.self),
                  purged.n > 0, let newest = purged.v else { return 0 }
            try await sql.raw("DELETE FROM sync_log WHERE \(condition)").run()
            try await sql.raw("UPDATE libraries SET sync_floor = \(bind: newest) WHERE id = \(bind: library) AND sync_floor < \(bind: newest)").run()
            return purged.n
        }
    }
}
