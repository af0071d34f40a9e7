@testable import App
import Fluent
import Foundation
import SQLKit
import Testing

/// The features' table declarations held to the live schema, on the database the suite runs on: a
/// table added without a feature and a policy, or a policy that names a backup key the file does not
/// have, fails here.
@Suite struct FeatureTests {
    @Test func everyTableOfTheSchemaBelongsToExactlyOneFeatureWithAPolicy() async throws {
        try await withTestApp { app in
            let sql = app.db.sql
            let dialect = sql.dialect.name
            let live = try await Self.tables(sql)
            #expect(live.contains("titles") && live.contains("stocktakes"), "\(live.sorted())")
            let declared = Features.tables.filter { $0.onlyOn == nil || $0.onlyOn == dialect }
            let names = declared.map(\.name)
            #expect(Set(names).count == names.count, "a table declared twice: \(Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys.sorted())")
            #expect(live.subtracting(names).isEmpty, "tables of the schema no feature declares with a policy: \(live.subtracting(names).sorted())")
            #expect(Set(names).subtracting(live).isEmpty, "declared tables the schema does not have: \(Set(names).subtracting(live).sorted())")

            for table in declared where live.contains(table.name) {
                let keys = try await Self.foreignKeys(of: table.name, sql)
                #expect(Set(table.parents) == keys.subtracting(["libraries", "users"]),
                        "\(table.name): the declared parents \(table.parents.sorted()) are not its foreign keys \(keys.sorted())")
                switch (table.rows, table.forget) {
                case (.byLibrary, .cascade):
                    #expect(keys.contains("libraries"), "\(table.name) says its rows go with the library by a foreign key, and has none")
                case (.childOf(let parent, _), .cascade):
                    #expect(keys.contains(parent), "\(table.name) says its rows go with their \(parent), and has no key to it")
                case (.byLibrary, .no), (.byLibrary, .deleted), (.childOf, _), (.library, _), (.server, _):
                    break
                }
                if case .server = table.rows {
                    if case .no = table.erase {} else { Issue.record("\(table.name) is the server's: no library's erase may delete it") }
                    if case .no = table.swap {} else { Issue.record("\(table.name) is the server's: no restore may move it") }
                }
            }
        }
    }

    /// Every backup key a policy names is one the backup file is written with (the streamed writer
    /// included), and a table in the backup is one a restore over a library replaces.
    @Test func everyBackedUpTableHasItsPlaceInTheBackupFile() throws {
        let empty = LibraryBackup(
            createdAt: Date(timeIntervalSince1970: 0),
            library: try JSONDecoder().decode(LibraryRow.self, from: Data(#"{"name":"x","loan_period_days":14,"max_renewals":2,"public_catalog":false,"next_accession":1}"#.utf8)),
            categories: [], titleCategories: [], titleSeries: [], titles: [], copies: [], members: [], loans: [], activities: [], covers: [], reads: [],
            progressEvents: [], readingGoals: [], quotes: [], pagePhotos: [], holds: [], fines: [], mailTemplates: [], collections: [], shelves: [],
            stocktakes: [], stocktakeScans: [], savedReports: [], auditLog: [])
        let written = try #require(try JSONSerialization.jsonObject(with: Backup.encode(empty)) as? [String: Any])
        for table in Features.tables {
            guard case .kept(let key) = table.backup else { continue }
            #expect(written[key] != nil, "\(table.name) says it is backed up as “\(key)”; the backup file has no such key")
            // Moved in by a restore over a library, unless the library keeps its own rows through it (the
            // audit log, which nothing erases).
            if case .byLibrary = table.rows, case .erased = table.erase {
                #expect(table.swap == .moved || table.name == "libraries", "\(table.name) is backed up but a restore over a library does not move it in")
            }
        }
        #expect(Features.owner(of: "stocktakes")?.name == "Shelves")
    }

    /// A backed-up table's one row type has every column of the live table, or the table says why it
    /// leaves one out, and no key the table has no column for: a column added without a place in the
    /// backup fails here.
    @Test func aBackedUpTablesRowHasEveryColumnOrSaysWhyNot() async throws {
        try await withTestApp { app in
            let sql = app.db.sql
            let dialect = sql.dialect.name
            for table in Features.tables where table.onlyOn == nil || table.onlyOn == dialect {
                guard case .kept = table.backup else {
                    #expect(table.row == nil && table.notInRow.isEmpty, "\(table.name) is not backed up and declares a row")
                    continue
                }
                guard let row = table.row else { Issue.record("\(table.name) is backed up without a row type"); continue }
                let keys = Set(row.columns())
                let columns = try await Self.columns(of: table.name, sql)
                var implied: Set<String> = []
                if case .byLibrary = table.rows { implied.insert(LibraryNumber.column(of: table.name)) }
                #expect(keys.count > 1, "\(table.name): no keys read from its row")
                #expect(keys.subtracting(columns).isEmpty, "\(table.name)'s row has keys the table has no column for: \(keys.subtracting(columns).sorted())")
                let missing = columns.subtracting(keys).subtracting(implied).subtracting(table.notInRow.keys)
                #expect(missing.isEmpty, "\(table.name) has columns its row leaves out without saying why: \(missing.sorted())")
                let both = keys.intersection(table.notInRow.keys)
                #expect(both.isEmpty, "\(table.name) says its row leaves out \(both.sorted()), and the row has them")
            }
        }
    }

    /// The features' migrations run in the order they landed, whatever feature declares them: the
    /// orders are 1 … n, each once, and the history is the one that landed (a new migration is added
    /// at the end; a landed one is never moved, renamed or removed).
    @Test func migrationsRunInTheOrderTheyLanded() {
        let landed = Features.all.flatMap { $0.migrations }
        #expect(landed.map(\.order).sorted() == Array(1...landed.count), "landing orders: \(landed.map(\.order).sorted())")
        let history = [
            "CreateLibrary", "CreateUser", "CreateMembership", "CreateUserSession", "CreateAPIToken", "CreateTitle",
            "CreateCategory", "CreateCopy", "CreateMember", "CreateLoan", "CreateActivity", "CreateTitleSearchIndex",
            "CreateLookupCache", "CreateCover", "CreateEnrichmentJob", "AddSecurityControls", "CreateJob", "AddActivityDetail",
            "AddClassToMemberSearch", "AddWishDetails", "AddLibraryTimeZone", "AddTitleASIN", "AddCopyStatusDetails",
            "CreateReading", "CreateQuotes", "CreatePagePhotos", "AddProgressGain", "CreateReadingShares", "CreateReadingDays",
            "AddLoanOrderIndex", "HashReadingShareTokens", "UnifyJobs", "AddTitleListKeys", "AddCopyCounts",
            "AddLibraryPendingJob", "ShrinkTitleSearch", "CreateHolds", "CreateCalendarFeeds", "CreateFines", "CreateReminders",
            "AddReadingLevels", "CreateCollections", "AddCopyShelfIndexes", "CreateShelves", "CreateSyncLog",
            "CreateMemberPortal", "CreateKiosks", "AddLibraryRestoreSwap", "AddShelfCounts", "AddPublicDoorSettings",
            "AddSecurityLifetimes", "AddNightlyBackupRuns", "KeepFiguresOfFormerMembers", "CreateSavedReports", "AddPublicFigures", "CreateLoanTallies", "CreateSchoolYear", "CreateRollovers", "AddRetention", "AddRosterFolder",
            "CreateSchoolSignIn", "AddClassTeachers", "ArchivedMembersLeaveTheFeed", "AddCallNumbers", "CreateBulkChanges", "CreateTitleSeries",
            "AddEnrichmentRanges", "CompactSyncLog", "LeanListIndexes", "AddRatingScores", "AddCategoryCallNumbers", "PartialTitleIndexes",
            "IdsAsBytes", "SortKeysCompareAsBytes", "AddOpenLoanCounts", "LeanTitleSearch", "TitleSearchWords", "MemberSearchWords", "QuoteSearchWords",
            "SyncLogLibraryNumbers", "TitleSearchWithoutColumns", "CopiesByLibraryNumber", "TitlesByLibraryNumber", "LoansByLibraryNumber",
            "ForeignKeyIndexes",
        ]
        #expect(Migrations.inOrder.map { $0.name.split(separator: ".").last.map(String.init) ?? $0.name } == history)
    }

    /// A library's settings are the features' groups: each field belongs to one group, and the
    /// library's PATCH (and its OpenAPI schema) is exactly the name and the groups' fields.
    @Test func everyLibrarySettingBelongsToOneFeature() throws {
        var owner: [String: String] = [:]
        for feature in Features.all {
            guard let group = feature.settings else { continue }
            for key in group.fields {
                #expect(owner[key] == nil, "\(key) is a setting of \(owner[key] ?? "") and of \(feature.name)")
                owner[key] = feature.name
            }
        }
        #expect(owner["loanPeriodDays"] == "Circulation" && owner["fineMode"] == "Fines" && owner["kioskAsksPin"] == "Kiosk")
        #expect(Set(SchemaDerivation.keys(of: LibraryPatch.self)) == Set(owner.keys).union(["name"]))
        let patch = try JSONDecoder().decode(LibraryPatch.self, from: Data(#"{"maxHoldsPerMember": 3, "fineMode": "money"}"#.utf8))
        #expect(patch.group(HoldSettings.self)?.maxHoldsPerMember == 3 && patch.group(FineSettings.self)?.fineMode == .money)
        #expect(patch.group(LoanSettings.self)?.loanPeriodDays == nil && patch.name == nil)
        let written = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(patch)) as? [String: Any])
        #expect(Set(written.keys) == ["maxHoldsPerMember", "fineMode"])
    }

    /// The erase deletes children before their parents and the swap moves parents first.
    @Test func theEraseAndTheSwapFollowTheForeignKeys() {
        for order in [Features.eraseOrder(includingRestoreOnly: false), Features.eraseOrder(includingRestoreOnly: true)] {
            let position = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element.name, $0.offset) })
            for table in order {
                for parent in table.parents {
                    if let p = position[parent] { #expect(position[table.name]! < p, "\(table.name) is erased after its parent \(parent)") }
                }
            }
        }
        let erased = Set(Features.eraseOrder(includingRestoreOnly: false).map(\.name))
        #expect(erased.isSuperset(of: ["titles", "copies", "members", "loans", "holds", "fines", "shelves", "stocktakes", "stocktake_scans"]))
        #expect(!erased.contains("reads") && Set(Features.eraseOrder(includingRestoreOnly: true).map(\.name)).contains("reads"))
        let swap = Features.swapOrder
        #expect(swap.firstIndex(of: "shelves")! < swap.firstIndex(of: "stocktakes")!)
        #expect(Features.forgottenTables.sorted() == ["copy_counts", "reading_days", "shelf_counts", "sync_mutations", "title_counts"])
    }

    /// Every foreign key of the schema has an index that leads with its columns: deleting a row looks
    /// for the rows that name it, and without one that look reads the whole child table per deleted row.
    @Test func everyForeignKeyHasAnIndexThatLeadsWithIt() async throws {
        try await withTestApp { app in
            let sql = app.db.sql
            var keys = 0
            var missing: [String] = []
            for table in try await Self.tables(sql).sorted() {
                let leading = try await Self.indexColumns(of: table, sql)
                for key in try await Self.foreignKeyColumns(of: table, sql) {
                    keys += 1
                    if !leading.contains(where: { $0.starts(with: key) }) { missing.append("\(table) (\(key.joined(separator: ", ")))") }
                }
            }
            #expect(keys > 40, "the schema's foreign keys were not read: \(keys)")
            #expect(missing.isEmpty, "foreign keys without an index leading with them: \(missing)")
        }
    }

    /// The columns of each index of `table`, in order (a primary key's too).
    static func indexColumns(of table: String, _ sql: any SQLDatabase) async throws -> [[String]] {
        if sql.dialect.name == "sqlite" {
            var indexes: [[String]] = []
            for index in try await sql.raw("SELECT name FROM pragma_index_list(\(bind: table))").all() {
                let name = try index.decode(column: "name", as: String.self)
                // An expression's column has no name: it leads with no key.
                indexes.append(try await sql.raw("SELECT name FROM pragma_index_info(\(bind: name)) ORDER BY seqno").all()
                    .map { try $0.decode(column: "name", as: String?.self) ?? "" })
            }
            // A rowid table's INTEGER PRIMARY KEY is the table's own order, not an index.
            indexes.append(try await sql.raw("SELECT name FROM pragma_table_info(\(bind: table)) WHERE pk > 0 ORDER BY pk").all()
                .map { try $0.decode(column: "name", as: String.self) })
            return indexes
        }
        return try await sql.raw("""
            SELECT string_agg(a.attname::text, ',' ORDER BY k.n) AS columns
            FROM pg_index i CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            WHERE i.indrelid = (\(bind: table))::regclass GROUP BY i.indexrelid
            """).all().map { try $0.decode(column: "columns", as: String.self).split(separator: ",").map(String.init) }
    }

    /// The columns of each foreign key of `table`, in the key's order.
    static func foreignKeyColumns(of table: String, _ sql: any SQLDatabase) async throws -> [[String]] {
        if sql.dialect.name == "sqlite" {
            struct Row: Decodable { var id: Int; var from: String }
            let rows = try await sql.raw("SELECT id, \"from\" FROM pragma_foreign_key_list(\(bind: table)) ORDER BY id, seq").all(decoding: Row.self)
            return Dictionary(grouping: rows, by: \.id).sorted { $0.key < $1.key }.map { $0.value.map(\.from) }
        }
        return try await sql.raw("""
            SELECT string_agg(a.attname::text, ',' ORDER BY k.n) AS columns
            FROM pg_constraint c CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY AS k(attnum, n)
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
            WHERE c.contype = 'f' AND c.conrelid = (\(bind: table))::regclass GROUP BY c.oid
            """).all().map { try $0.decode(column: "columns", as: String.self).split(separator: ",").map(String.init) }
    }

    static func tables(_ sql: any SQLDatabase) async throws -> Set<String> {
        if sql.dialect.name == "sqlite" { return try await FeatureSchema.sqliteTables(sql) }
        return Set(try await sql.raw("""
            SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """).all().map { try $0.decode(column: "name", as: String.self) })
    }

    static func columns(of table: String, _ sql: any SQLDatabase) async throws -> Set<String> {
        if sql.dialect.name == "sqlite" {
            return Set(try await sql.raw("SELECT name FROM pragma_table_info(\(bind: table))").all().map { try $0.decode(column: "name", as: String.self) })
        }
        return Set(try await sql.raw("""
            SELECT column_name::text AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(bind: table)
            """).all().map { try $0.decode(column: "name", as: String.self) })
    }

    static func foreignKeys(of table: String, _ sql: any SQLDatabase) async throws -> Set<String> {
        if sql.dialect.name == "sqlite" {
            return Set(try await sql.raw("SELECT \"table\" AS parent FROM pragma_foreign_key_list(\(bind: table))").all()
                .map { try $0.decode(column: "parent", as: String.self) })
        }
        return Set(try await sql.raw("""
            SELECT confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f' AND conrelid = (\(bind: table))::regclass
            """).all().map { try $0.decode(column: "parent", as: String.self) })
    }
}
