@testable import App
import Fluent
import Foundation
import NIOCore
import SQLKit
import Testing
import Vapor

/// Moving an SQLite installation to PostgreSQL (`shelfmark copy-to-postgres`): every row arrives and
/// means the same, the library works there, devices' sync cursors carry on, and a move that fails or
/// finds a library already there leaves PostgreSQL as it was. Runs with the PostgreSQL suite.
@Suite(.enabled(if: MigratedTemplate.postgresURL != nil, "needs SHELFMARK_TEST_DATABASE_URL"))
struct DatabaseMoveTests {
    /// An SQLite installation (a migrated copy of the template) for `body`, shut down after.
    private func withSQLiteApp(_ body: (Application) async throws -> Void) async throws {
        let path = try await MigratedTemplate.copySQLite()
        try await withApp(.sqlite(path: path), migrate: false, database: nil, sqlitePath: path, body)
    }

    /// A new PostgreSQL database, migrated by this version as the command does, for `body`; dropped after.
    private func withEmptyPostgres(_ body: (Application) async throws -> Void) async throws {
        let name = try await MigratedTemplate.emptyPostgres()
        let url = MigratedTemplate.url(MigratedTemplate.postgresURL ?? "", database: name)
        try await withApp(.postgres(url: url, schema: nil), migrate: true, database: name, sqlitePath: nil, body)
    }

    /// An app on `storage` for `body`; shut down and its database removed after, however `body` ends.
    private func withApp(_ storage: StorageConfig, migrate: Bool, database: String?, sqlitePath: String?,
                         _ body: (Application) async throws -> Void) async throws {
        let app = try await Application.make(.testing)
        do {
            try configure(app, storage: storage)
            if migrate { try await app.migrateHoldingLock() }
            try await body(app)
        } catch {
            try? await app.asyncShutdown()
            try? await MigratedTemplate.remove(database: database, sqlitePath: sqlitePath)
            throw error
        }
        try await app.asyncShutdown()
        try await MigratedTemplate.remove(database: database, sqlitePath: sqlitePath)
    }

    private func counts(_ db: any Database) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let onlySQLite = Set(Features.tables.filter { $0.onlyOn != nil }.map(\.name))
        for table in try await FeatureTests.tables(db.sql).subtracting(onlySQLite) where table != "_fluent_migrations" {
            struct Row: Decodable { var n: Int }
            counts[table] = try await db.sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decoding: Row.self)?.n
        }
        return counts
    }

    /// Every loan, field by field (times to the microsecond, as PostgreSQL keeps them).
    private struct LoanRow: Decodable, Equatable {
        var id: UUID, library_no: Int, copy_id: UUID?, title_id: UUID?, member_id: UUID?
        var title_text: String, member_card_id: String, member_name: String, checked_out_by: String
        var checked_out_at: Date, due_at: Date, returned_at: Date?, reminded_at: Date?
        var renewals: Int, reminder_stage: Int

        static func == (a: LoanRow, b: LoanRow) -> Bool {
            func us(_ d: Date?) -> Int64? { d.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) } }
            return (a.id, a.library_no, a.copy_id, a.title_id, a.member_id) == (b.id, b.library_no, b.copy_id, b.title_id, b.member_id)
                && (a.title_text, a.member_card_id, a.member_name, a.checked_out_by) == (b.title_text, b.member_card_id, b.member_name, b.checked_out_by)
                && us(a.checked_out_at) == us(b.checked_out_at) && us(a.due_at) == us(b.due_at)
                && us(a.returned_at) == us(b.returned_at) && us(a.reminded_at) == us(b.reminded_at)
                && (a.renewals, a.reminder_stage) == (b.renewals, b.reminder_stage)
        }
    }

    /// The sync feed after `cursor`, pulled again while it is held back ("behind") by a transaction still
    /// open elsewhere in the PostgreSQL cluster (another test's).
    private func changesAfter(_ cursor: String, owner: Client, lib: String) async throws -> [[String: Any]] {
        for _ in 0..<500 {
            let next = try await owner.get("\(lib)/sync/changes?cursor=\(cursor)")
            #expect(next.status == .ok, "\(next.json)")
            let changes = (next["changes"] as? [[String: Any]]) ?? []
            if !changes.isEmpty || next["behind"] as? Bool != true { return changes }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the feed never caught up")
        return []
    }

    private func loans(_ db: any Database) async throws -> [LoanRow] {
        try await db.sql.raw("SELECT * FROM loans").all(decoding: LoanRow.self).sorted { $0.id.uuidString < $1.id.uuidString }
    }

    @Test func anSQLiteInstallationMovesToPostgreSQLWithEveryRowAndWorksThere() async throws {
        try await withSQLiteApp { source in
            let f = try await Fixture.make(source)
            // Text that COPY must escape, a list of authors, and a title with two copies.
            let odd = try await f.addTitle("Tab\there, line\nbreak, back\\slash and \"quotes\" 📚", authors: ["Ünïcödé Author", "O'Brien, \"Pat\""], copies: 2)
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "978-3-522-20260-2")
            for (card, name) in [("S001", "Ada"), ("S002", "Bo"), ("S003", "Cy")] { try await f.addMember(card, name) }
            let first = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S001", "titleId": odd])
            #expect(first.status == .created, "\(first.json)")
            let second = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S002", "titleId": momo])
            #expect(second.status == .created, "\(second.json)")
            #expect(try await f.owner.post("\(f.lib)/loans/\(first.string("id"))/return").status == .ok)
            #expect(try await f.owner.post("\(f.lib)/holds", ["titleId": momo, "cardId": "S003"]).status == .created)
            // A cover's bytes, with the bytes COPY and bytea treat specially.
            let bytes = Data([0x00, 0x5C, 0x09, 0x0A, 0xFF, 0x78, 0x5C, 0x5C] + Array(repeating: 0x41, count: 300))
            try await source.db.sql.raw("""
                INSERT INTO covers (id, sha256, content_type, bytes, source_url, created_at)
                VALUES (\(bind: UUID()), 'abc', 'image/jpeg', \(bind: bytes), NULL, \(bind: Date()))
                """).run()
            // The sync clock ahead of PostgreSQL's transaction ids, as on a busy library moving to a new server.
            let pgNext = try await MigratedTemplate.postgresNextTransaction()
            try await source.db.sql.raw("UPDATE sync_clock SET version = \(bind: pgNext + 30_000) WHERE id = 1").run()
            let pulled = try await f.owner.get("\(f.lib)/sync/changes?limit=1000")
            let cursor = pulled.string("cursor")
            #expect(cursor == "v\(pgNext + 30_000)", "\(pulled.json)")

            try await withEmptyPostgres { target in
                let report = try await DatabaseMove.run(from: source.db, to: target.db, logger: source.logger)
                #expect(report.idsSkipped > 0)
                // Every table has its rows, and every loan is the same loan, field by field.
                let sourceCounts = try await counts(source.db)
                #expect(try await counts(target.db) == sourceCounts)
                #expect(sourceCounts["loans"] == 2 && sourceCounts["holds"] == 1 && sourceCounts["covers"] == 1 && sourceCounts["titles"] == 2)
                #expect(report.rows == sourceCounts.values.reduce(0, +))
                let sourceLoans = try await loans(source.db)
                #expect(sourceLoans.count == 2)
                #expect(try await loans(target.db) == sourceLoans)
                struct Cover: Decodable { var bytes: Data }
                #expect(try await target.db.sql.raw("SELECT bytes FROM covers").first(decoding: Cover.self)?.bytes == bytes)

                // The library works on PostgreSQL: the owner's password, the odd title and its search.
                let login = try await Client(app: target).post("/api/v1/auth/login", ["username": "owner", "password": "correct horse"])
                #expect(login.status == .ok)
                let owner = Client(app: target, token: login.string("token"))
                let title = try await owner.get("\(f.lib)/titles/\(odd)")
                #expect(title.string("title") == "Tab\there, line\nbreak, back\\slash and \"quotes\" 📚")
                #expect(title["authors"] as? [String] == ["Ünïcödé Author", "O'Brien, \"Pat\""])
                let found = try await owner.get("\(f.lib)/titles?q=unicode")
                #expect((found["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [odd], "\(found.json)")

                // A device's cursor from SQLite carries on: the next change on PostgreSQL comes, and only it.
                let third = try await owner.post("\(f.lib)/checkouts", ["cardId": "S003", "titleId": odd])
                #expect(third.status == .created, "\(third.json)")
                let changes = try await changesAfter(cursor, owner: owner, lib: f.lib)
                #expect(changes.compactMap { $0["kind"] as? String }.sorted() == ["copy", "loan"], "\(changes)")
                #expect(changes.contains { ($0["id"] as? String)?.lowercased() == third.string("id").lowercased() }, "\(changes)")
                // A cursor from further ahead than the log has come (another database's) starts again.
                let ahead = try await owner.get("\(f.lib)/sync/changes?cursor=v999999999999")
                #expect(ahead.status == .gone && ahead.errorCode == "sync_refetch", "\(ahead.json)")

                // Moving again into a database with a library is refused and changes nothing.
                let before = try await counts(target.db)
                let again = await #expect(throws: DatabaseMove.Refusal.self) {
                    try await DatabaseMove.run(from: source.db, to: target.db, logger: source.logger)
                }
                #expect(again?.description.contains("already holds libraries") == true)
                #expect(try await counts(target.db) == before)
            }
        }
    }

    @Test func aMoveThatFailsHalfWayLeavesPostgreSQLEmptyAndSaysWhichRow() async throws {
        try await withSQLiteApp { source in
            let f = try await Fixture.make(source)
            try await f.addTitle("Momo")
            try await f.addMember("S001", "Ada")
            // A time SQLite keeps as any text, which no database could read as a time.
            try await source.db.sql.raw("UPDATE titles SET created_at = 'the day before yesterday'").run()
            try await withEmptyPostgres { target in
                let refusal = await #expect(throws: DatabaseMove.Refusal.self) {
                    try await DatabaseMove.run(from: source.db, to: target.db, logger: source.logger)
                }
                let message = refusal?.description ?? ""
                #expect(message.contains("of titles, column created_at") && message.contains("the day before yesterday"), "\(message)")
                let counts = try await counts(target.db)
                #expect(counts["libraries"] == 0 && counts["users"] == 0 && counts["members"] == 0 && counts["titles"] == 0, "\(counts)")
                // Mended in SQLite, the move goes through into the same database.
                try await source.db.sql.raw("UPDATE titles SET created_at = \(bind: Date())").run()
                let report = try await DatabaseMove.run(from: source.db, to: target.db, logger: source.logger)
                #expect(report.tables.first { $0.name == "titles" }?.rows == 1)
            }
        }
    }
}

/// How the move reads SQLite's stored values and writes them for `COPY`: runs with either suite.
@Suite struct DatabaseMoveValueTests {
    typealias Value = DatabaseMove.Value

    @Test func sqliteValuesAreReadAsTheirPostgreSQLTypeSays() throws {
        let id = UUID()
        let bytes = withUnsafeBytes(of: id.uuid) { ByteBuffer(bytes: $0) }
        #expect(try Value(sqlite: .blob(bytes), kind: .uuid) == .uuid(id))
        #expect(try Value(sqlite: .text(id.uuidString.lowercased()), kind: .uuid) == .uuid(id))
        #expect(try Value(sqlite: .integer(1), kind: .bool) == .bool(true))
        #expect(try Value(sqlite: .float(1_700_000_000.25), kind: .timestamp) == .micros(1_700_000_000_250_000))
        #expect(try Value(sqlite: .text("2026-11-28 09:30:00"), kind: .timestamp) == .micros(1_795_858_200_000_000))
        #expect(try Value(sqlite: .text("[\"Ende, Michael\",\"Ö\"]"), kind: .texts) == .texts(["Ende, Michael", "Ö"]))
        #expect(try Value(sqlite: .float(3), kind: .integer) == .integer(3))
        #expect(try Value(sqlite: .null, kind: .uuid) == .null)
        #expect(throws: Value.Unfit.self) { try Value(sqlite: .text("soon"), kind: .timestamp) }
        #expect(throws: Value.Unfit.self) { try Value(sqlite: .float(2.5), kind: .integer) }
        #expect(throws: Value.Unfit.self) { try Value(sqlite: .text("a\u{0}b"), kind: .text) }
    }

    @Test func copyFieldsEscapeWhatCOPYReadsSpecially() {
        #expect(Value.text("a\tb\nc\\d\re").copyField == "a\\tb\\nc\\\\d\\re")
        #expect(Value.null.copyField == "\\N")
        #expect(Value.text("\\N").copyField == "\\\\N")
        #expect(Value.bytes([0x00, 0x5C, 0xFF]).copyField == "\\\\x005cff")
        #expect(Value.texts(["O'Brien, \"Pat\"", "back\\slash"]).copyField == "{\"O'Brien, \\\\\"Pat\\\\\"\",\"back\\\\\\\\slash\"}")
        #expect(Value.micros(1_795_858_200_000_001).copyField == "2026-11-28 09:30:00.000001+00")
        #expect(Value.micros(-1).copyField == "1969-12-31 23:59:59.999999+00")
        #expect(Value.double(.infinity).copyField == "Infinity" && Value.double(0.1).copyField == "0.1")
    }

    @Test func aFingerprintChangesWithAnyValueAndNotWithTheRowsOrder() {
        var a = DatabaseMove.Fingerprint(), b = DatabaseMove.Fingerprint(), c = DatabaseMove.Fingerprint()
        a.add([.text("x"), .integer(1)]); a.add([.text("y"), .integer(2)])
        b.add([.text("y"), .integer(2)]); b.add([.text("x"), .integer(1)])
        c.add([.text("x"), .integer(1)]); c.add([.text("y"), .integer(3)])
        #expect(a == b && a != c && a.rows == 2)
        var d = DatabaseMove.Fingerprint(), e = DatabaseMove.Fingerprint()
        d.add([.text("ab"), .text("c")]); e.add([.text("a"), .text("bc")])
        #expect(d != e)
    }
}
