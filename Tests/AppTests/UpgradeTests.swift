@testable import App
import Fluent
import Foundation
import SQLKit
import Testing
import Vapor

/// Upgrades that cannot lose a library: an older version's database is copied aside and then brought
/// up to date with every row; a newer version's is refused untouched.
@Suite struct UpgradeTests {
    @Test func aDatabaseWrittenByANewerVersionIsRefusedAndLeftAsItWas() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo")
            try await app.db.sql.raw("""
                INSERT INTO _fluent_migrations (id, name, batch, created_at, updated_at)
                VALUES (\(bind: UUID()), 'App.AddSomethingFromTheFuture', 99, \(bind: Date()), \(bind: Date()))
                """).run()
            let error = await #expect(throws: DatabaseVersion.TooNew.self) { try await app.migrateHoldingLock() }
            #expect(error?.unknown == ["App.AddSomethingFromTheFuture"])
            #expect(describe(try #require(error)).contains("newer version of Shelfmark") == true)
            #expect(describe(try #require(error)).contains("AddSomethingFromTheFuture") == true)
            // Nothing was migrated down or away.
            struct Row: Decodable { var n: Int }
            #expect(try await app.db.sql.raw("SELECT COUNT(*) AS n FROM titles").first(decoding: Row.self)?.n == 1)
            #expect(try await DatabaseVersion.applied(on: app.db).contains("App.AddSomethingFromTheFuture"))
        }
    }

    /// A database made by Shelfmark as it was on 2026-11-25 (commit f1a3dee: before holds, fines,
    /// reminders, shelves, sync, the public catalog and the kiosk; 36 of today's migrations), by that
    /// version's own binary: `user create`, `seed --titles 120 --members 25`, `seed-reading`, then 15
    /// loans (4 returned), a category and a wish through its API. Committed as
    /// `Fixtures/shelfmark-2026-11-25.sqlite`.
    /// Room an update freed inside SQLite's file (a table made smaller) is given back to the disk.
    @Test func theRoomAnUpdateFreedIsGivenBack() async throws {
        guard MigratedTemplate.postgresURL == nil else { return }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-vacuum-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let app = try await Application.make(.testing)
        do {
            try configure(app, storage: .sqlite(path: dir + "/shelfmark.sqlite"))
            try await app.migrateHoldingLock()
            struct Pages: Decodable { var free: Int; var total: Int }
            func pages() async throws -> Pages {
                try #require(try await app.db.sql.raw("""
                    SELECT (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_count FROM pragma_page_count) AS total
                    """).first(decoding: Pages.self))
            }
            try await app.db.sql.raw("CREATE TABLE scratch (t TEXT)").run()
            try await app.db.sql.raw("""
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                INSERT INTO scratch SELECT hex(randomblob(100)) FROM n
                """).run()
            try await app.db.sql.raw("DROP TABLE scratch").run()
            let freed = try await pages()
            #expect(freed.free * 10 >= freed.total, "\(freed)")
            await app.giveBackFreedPages()
            let after = try await pages()
            #expect(after.free == 0 && after.total < freed.total - freed.free / 2, "\(freed) -> \(after)")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    @Test func anOlderVersionsDatabaseIsCopiedAsideThenUpdatedWithEveryRow() async throws {
        guard MigratedTemplate.postgresURL == nil else { return }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/shelfmark-2026-11-25.sqlite")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-upgrade-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/shelfmark.sqlite"
        try FileManager.default.copyItem(atPath: fixture.path, toPath: path)

        let app = try await Application.make(.testing)
        do {
            try configure(app, storage: .sqlite(path: path))
            let tables = ["libraries", "users", "titles", "copies", "members", "loans", "categories", "title_categories", "activities",
                          "reads", "progress_events", "quotes"]
            func counts() async throws -> [String: Int] {
                var counts: [String: Int] = [:]
                for table in tables {
                    struct Row: Decodable { var n: Int }
                    counts[table] = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first(decoding: Row.self)?.n
                }
                return counts
            }
            struct Sample: Decodable, Equatable { var id: UUID; var title: String; var isbn13: String?; var authors: String? }
            let samples: @Sendable () async throws -> [Sample] = {
                try await app.db.sql.raw("SELECT id, title, isbn13, authors FROM titles ORDER BY id LIMIT 25").all(decoding: Sample.self)
            }
            let before = try await counts()
            let sampleBefore = try await samples()
            #expect(before["titles"] ?? 0 > 0 && before["loans"] ?? 0 > 0 && before["members"] ?? 0 > 0, "\(before)")
            let older = try await DatabaseVersion.applied(on: app.db)
            #expect(older.count < Migrations.inOrder.count)

            try await app.migrateHoldingLock()

            // Every row is there, the samples as they were, and the database is today's.
            #expect(try await counts() == before)
            #expect(try await samples() == sampleBefore)
            #expect(try await DatabaseVersion.applied(on: app.db).count == Migrations.inOrder.count)
            struct Pages: Decodable { var free: Int; var total: Int }
            let pages = try #require(try await app.db.sql.raw("""
                SELECT (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_count FROM pragma_page_count) AS total
                """).first(decoding: Pages.self))
            #expect(pages.free * 10 < pages.total, "the room the update freed was given back: \(pages)")
            // The copy made before the update is the old database, whole.
            let copies = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("shelfmark-before-update-") }
            #expect(copies.count == 1)
            let copyApp = try await Application.make(.testing)
            do {
                try copyApp.useStorage(.sqlite(path: dir + "/" + copies[0]))
                #expect(try await DatabaseVersion.applied(on: copyApp.db) == older)
            } catch {
                try? await copyApp.asyncShutdown()
                throw error
            }
            try await copyApp.asyncShutdown()
            // Every id the old version kept as text is kept as 16 bytes.
            struct Named: Decodable { var name: String }
            struct Column: Decodable { var name: String; var type: String }
            struct Count: Decodable { var n: Int }
            var idColumns = 0
            for table in try await app.db.sql.raw("""
                SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'
                """).all(decoding: Named.self) {
                for column in try await app.db.sql.raw("SELECT name, type FROM pragma_table_info(\(bind: table.name))").all(decoding: Column.self)
                where IdsAsBytes.holdsIDs(table: table.name, column: column.name, type: column.type, toBytes: true) {
                    idColumns += 1
                    let text = try await app.db.sql.raw("SELECT COUNT(*) AS n FROM \(ident: table.name) WHERE typeof(\(ident: column.name)) = 'text'")
                        .first(decoding: Count.self)?.n
                    #expect(text == 0, "\(table.name).\(column.name)")
                }
            }
            #expect(idColumns > 100)
            // The updated library works: signing in, a search over the old titles, an old title's page.
            var client = Client(app: app)
            let login = try await client.post("/api/v1/auth/login", ["username": "admin", "password": "shelfmark-fixture"])
            #expect(login.status == .ok, "\(login.json)")
            client.token = login.string("token")
            let library = try #require(try await app.db.sql.raw("SELECT id FROM libraries").first()?.decode(column: "id", as: UUID.self))
            let sample = try #require(sampleBefore.first)
            let word: String = try #require(sample.title.components(separatedBy: " ").max { $0.count < $1.count })
            let found = try await client.get("/api/v1/libraries/\(library)/titles?q=\(word.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics)!)")
            #expect((found["items"] as? [[String: Any]])?.contains { $0["id"] as? String == sample.id.uuidString } == true, "\(found.json)")
            let page = try await client.get("/api/v1/libraries/\(library)/titles/\(sample.id)")
            #expect(page.status == .ok && page.string("title") == sample.title, "\(page.json)")
            // The old loans counted on their titles: the on-loan chip lists each title lent and not back.
            try await CatalogListTests.expectKeptCountsTrue(app)
            let lent = try #require(try await app.db.sql.raw("SELECT COUNT(DISTINCT title_id) AS n FROM loans WHERE returned_at IS NULL")
                .first(decoding: Count.self)?.n)
            let onLoan = try await client.get("/api/v1/libraries/\(library)/titles?onLoan=true")
            #expect(lent > 0 && onLoan["total"] as? Int == lent, "\(onLoan.json)")
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }

    /// The ids' update taken back (text, as an earlier version kept them) and made again: the same
    /// rows, and a library that works on bytes, its search and its sync log included.
    @Test func idsAsBytesGoBackToTextAndReturnTheSame() async throws {
        guard MigratedTemplate.postgresURL == nil else { return }
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            _ = try await f.addTitle("Momo", isbn: "9783522202602", copies: 2)
            _ = try await f.addMember("S001", "Ada")
            struct Row: Decodable, Equatable { var id: UUID; var library_id: UUID; var title_id: UUID; var barcode: String }
            struct Kinds: Decodable { var id: String; var library: String }
            // Each copy's library by id, whether the copies name it by id (before `CopiesByLibraryNumber`) or by number.
            let rows: @Sendable () async throws -> [Row] = {
                let numbered = try await LibraryNumber.numbered("copies", on: app.db.sql)
                return try await app.db.sql.raw(numbered
                    ? "SELECT c.id, l.id AS library_id, c.title_id, c.barcode FROM copies c JOIN libraries l ON l.no = c.library_no ORDER BY c.id"
                    : "SELECT id, library_id, title_id, barcode FROM copies ORDER BY id").all(decoding: Row.self)
            }
            let kinds: @Sendable (String) async throws -> [Kinds] = { table in
                try await app.db.sql.raw("SELECT DISTINCT typeof(id) AS id, typeof(library_id) AS library FROM \(ident: table)").all(decoding: Kinds.self)
            }
            let before = try await rows()
            #expect(before.count == 2)

            // The updates after it taken back first, newest first, as an older database has none of them.
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await CopiesByLibraryNumber().revert(on: $0) }
            #expect(try await kinds("copies").map { [$0.id, $0.library] } == [["blob", "blob"]])
            #expect(try await rows() == before, "copies name their library by id again")
            try await onOneConnection(app) { try await TitleSearchWithoutColumns().revert(on: $0) }
            try await onOneConnection(app) { try await SyncLogLibraryNumbers().revert(on: $0) }
            try await onOneConnection(app) { try await IdsAsBytes().revert(on: $0) }
            #expect(try await kinds("copies").map { [$0.id, $0.library] } == [["text", "text"]])
            #expect(try await rows() == before, "text is read as ids too")
            struct Trigger: Decodable { var sql: String }
            let syncTriggers = try await app.db.sql.raw("SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'sync_%'")
                .all(decoding: Trigger.self)
            #expect(syncTriggers.count == 12 && syncTriggers.allSatisfy { $0.sql.contains("unhex(replace(") }, "the log's triggers convert text again")

            // The search index as a database from before `ShrinkTitleSearch` has it (with its own content),
            // as an older database is when its ids become bytes before its other updates run.
            try await onOneConnection(app) { try await ShrinkTitleSearch().revert(on: $0) }

            try await onOneConnection(app) { try await IdsAsBytes().prepare(on: $0) }
            #expect(try await kinds("copies").map { [$0.id, $0.library] } == [["blob", "blob"]])
            #expect(try await rows() == before)
            // The index's scopes name the library by its bytes now. (This version's search asks the index
            // of a later update, so the index of this one is asked as searches asked it then.)
            let library = try #require(UUID(uuidString: f.libraryID))
            let scoped: @Sendable (String) async throws -> Int? = { word in
                try await app.db.sql.raw("""
                    SELECT COUNT(*) AS n FROM title_search
                    WHERE title_search MATCH ('scope:L' || hex(\(bind: library)) || 'W0 AND search_text:' || \(bind: word) || '*')
                    """).first()?.decode(column: "n", as: Int.self)
            }
            #expect(try await scoped("momo") == 1)
            try await onOneConnection(app) { try await ShrinkTitleSearch().prepare(on: $0) }
            #expect(try await scoped("momo") == 1)
            try await onOneConnection(app) { try await TitleSearchWithoutColumns().prepare(on: $0) }
            // A title written as this state of the database takes one: by its library's id (this version's
            // code writes titles by library number), searched and logged by this state's triggers.
            try await app.db.sql.raw("""
                INSERT INTO titles (id, library_id, title, authors, favorite, wishlist, sort_key, section, search_text)
                VALUES (\(bind: UUID()), \(bind: library), 'Krabat', '[]', 0, 0, 'krabat', 'K', 'krabat')
                """).run()
            struct Log: Decodable { var entity: String; var library: String; var n: Int }
            let log = try await app.db.sql.raw("""
                SELECT typeof(entity_id) AS entity, typeof(library_id) AS library, COUNT(*) AS n FROM sync_log GROUP BY 1, 2
                """).all(decoding: Log.self)
            #expect(log.map { [$0.entity, $0.library] } == [["blob", "blob"]] && (log.first?.n ?? 0) >= 5, "\(log)")
            try await onOneConnection(app) { try await SyncLogLibraryNumbers().prepare(on: $0) }
            let numbered = try await app.db.sql.raw("""
                SELECT typeof(entity_id) AS entity, typeof(library_id) AS library, COUNT(*) AS n FROM sync_log GROUP BY 1, 2
                """).all(decoding: Log.self)
            #expect(numbered.map { [$0.entity, $0.library, String($0.n)] } == log.map { [$0.entity, "integer", String($0.n)] }, "\(numbered)")
            try await onOneConnection(app) { try await CopiesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }
            #expect(try await rows() == before, "copies name their library by number, the same one")
            #expect(try await f.owner.get("\(f.lib)/titles?q=momo")["total"] as? Int == 1)
            #expect(try await f.owner.get("\(f.lib)/titles?q=krabat")["total"] as? Int == 1)
            _ = try await f.addTitle("Emil", copies: 2)
            #expect(try await rows().count == before.count + 2)
        }
    }
}
