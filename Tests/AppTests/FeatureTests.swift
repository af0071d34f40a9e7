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
            library: try JSONDecoder().decode(LibraryBackup.LibraryRow.self, from: Data(#"{"name":"x","loan_period_days":14,"max_renewals":2,"public_catalog":false,"next_accession":1}"#.utf8)),
            categories: [], titleCategories: [], titles: [], copies: [], members: [], loans: [], activities: [], covers: [], reads: [],
            progressEvents: [], readingGoals: [], quotes: [], pagePhotos: [], holds: [], fines: [], mailTemplates: [], collections: [], shelves: [],
            stocktakes: [], stocktakeScans: [])
        let written = try #require(try JSONSerialization.jsonObject(with: Backup.encode(empty)) as? [String: Any])
        for table in Features.tables {
            guard case .kept(let key) = table.backup else { continue }
            #expect(written[key] != nil, "\(table.name) says it is backed up as “\(key)”; the backup file has no such key")
            if case .byLibrary = table.rows {
                #expect(table.swap == .moved || table.name == "libraries", "\(table.name) is backed up but a restore over a library does not move it in")
            }
        }
        #expect(Features.owner(of: "stocktakes")?.name == "Shelves")
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
        #expect(Features.forgottenTables.sorted() == ["copy_counts", "reading_days", "shelf_counts", "sync_log", "sync_mutations", "title_counts"])
    }

    static func tables(_ sql: any SQLDatabase) async throws -> Set<String> {
        if sql.dialect.name == "sqlite" {
            let rows = try await sql.raw("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all()
            let all = try rows.map { (try $0.decode(column: "name", as: String.self), (try $0.decode(column: "sql", as: String?.self)) ?? "") }
            // A virtual table's own tables (`title_search_data` …) are part of it.
            let virtual = all.filter { $0.1.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.0)
            return Set(all.map(\.0).filter { name in !virtual.contains { name.hasPrefix($0 + "_") } })
        }
        return Set(try await sql.raw("""
            SELECT table_name::text AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
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
