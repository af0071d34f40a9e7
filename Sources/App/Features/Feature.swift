import Fluent
import Vapor

/// A feature of Shelfmark as the rest of the app sees it: its tables, each with what happens to its
/// rows when a library is backed up, erased, restored over or deleted, and its routes. The erase, the
/// restore's swap, `Accounts.forgetLibrary` and the router read `Features.all`; a test holds every
/// table of the live schema (SQLite and PostgreSQL) to exactly one feature.
protocol Feature {
    /// The feature's name as its folder under `Sources/App/Features/` says it.
    static var name: String { get }
    static var tables: [DataTable] { get }
    /// Registers the feature's API operations (with their OpenAPI entries) and its web pages.
    static func register(api: APIRoutes, web: any RoutesBuilder)
    /// The loops it runs in the background of `shelfmark serve`, made anew for each application.
    static func backgroundLoops() -> [BackgroundLoop]
    /// The migrations that made and changed its tables, each with its place in the schema's history.
    static var migrations: [Landed] { get }
    /// Its group of a library's settings, in the library's PATCH and on the settings page.
    static var settings: (any LibrarySettings.Type)? { get }
}

extension Feature {
    static func backgroundLoops() -> [BackgroundLoop] { [] }
    static var migrations: [Landed] { [] }
    static var settings: (any LibrarySettings.Type)? { nil }
}

/// A migration and its place in the schema's history: every feature's migrations run in the order
/// they landed (`order`, 1 … n across features), and a landed one never changes. A migration that
/// changes another feature's table belongs to the feature that needed the change. `FeatureTests`
/// holds the history as it landed.
struct Landed {
    let order: Int
    let migration: any Migration

    init(_ order: Int, _ migration: any Migration) {
        (self.order, self.migration) = (order, migration)
    }
}

/// A table's row type, by its coding keys.
struct RowShape: Sendable {
    /// The columns the row has: its coding keys, as decoding it asks for them.
    let columns: @Sendable () -> [String]

    static func of<T: Decodable>(_ type: T.Type) -> RowShape { RowShape { SchemaDerivation.keys(of: T.self) } }
}

/// One table and its policy. Every "no" says why, so a table is never left out by forgetting it.
struct DataTable: Sendable {
    /// How a library's rows of the table are found.
    enum Rows: Sendable, Equatable {
        /// The `libraries` row itself.
        case library
        /// Rows with a `library_id`; `only` narrows the erase (a library's enrichment jobs, not its imports).
        case byLibrary(only: String? = nil)
        /// Rows found through a parent's key (a title's categories, a read's progress).
        case childOf(String, key: String)
        /// Not one library's rows: the server's, an account's, or the database's own.
        case server
    }

    /// In a library's backup (`LibraryBackup`, under `key`), or not and why.
    enum Backup: Sendable, Equatable {
        case kept(key: String)
        case no(String)
    }

    /// Deleted by "erase the library's data" and by a restore over the library (`erased`), only by the
    /// restore (`byRestoreOnly`: what the erase keeps, a restore replaces), or neither.
    enum Erase: Sendable, Equatable {
        case erased
        case byRestoreOnly
        case no(String)
    }

    /// Moved from a restore's hidden library into the restored one (`library_id` rewritten), following
    /// its parent (rows with no `library_id`), or neither.
    enum Swap: Sendable, Equatable {
        case moved
        case followsParent
        case no(String)
    }

    /// When its library is deleted: removed by a foreign key's cascade, deleted by
    /// `Accounts.forgetLibrary` (rows with no foreign key to the library), or not a library's.
    enum Forget: Sendable, Equatable {
        case cascade
        case deleted
        case no(String)
    }

    var name: String
    var rows: Rows
    /// The tables its rows reference, as the schema's foreign keys say (children are erased before their
    /// parents and moved after them). `libraries` and `users` are left out: they are never erased or moved.
    var parents: [String] = []
    /// Its rows have an `id` (a large erase deletes them in batches by it); `reading_days` is keyed by
    /// reader and day instead.
    var keyedByID = true
    /// The one database the table exists on (its dialect's name), when not both: SQLite's full-text
    /// index is a table of its own, PostgreSQL's a column of the titles.
    var onlyOn: String? = nil
    /// The one row type of a backed-up table: the backup writes and the restore reads its rows as it,
    /// so its coding keys are the table's columns. The columns it leaves out say why (`library_id` of
    /// a library's rows goes without saying: a backup is one library's). `FeatureTests` holds both to
    /// the live schema, so a column added to a backed-up table cannot be forgotten by the backup.
    var row: RowShape? = nil
    var notInRow: [String: String] = [:]
    var backup: Backup
    var erase: Erase
    var swap: Swap
    var forget: Forget
}

enum Features {
    /// Every feature; the order breaks ties where the tables' parents leave one open.
    static let all: [any Feature.Type] = [
        AccountsFeature.self, CatalogFeature.self, MembersFeature.self, CirculationFeature.self, HoldsFeature.self,
        FinesFeature.self, ShelvesFeature.self, ReadingFeature.self, RemindersFeature.self, JobsFeature.self, SyncFeature.self,
        PublicCatalogFeature.self, KioskFeature.self, PrintingFeature.self, OverviewFeature.self, ExchangeFeature.self,
        ScanningFeature.self, NightlyBackupsFeature.self, ReportsFeature.self, SchoolYearFeature.self,
        SchoolSignInFeature.self,
    ]

    static var tables: [DataTable] { all.flatMap { $0.tables } }

    /// The features' settings groups, in the order of `all`.
    static var settings: [any LibrarySettings.Type] { all.compactMap { $0.settings } }

    /// The feature that owns `table`.
    static func owner(of table: String) -> (any Feature.Type)? {
        all.first { $0.tables.contains { $0.name == table } }
    }

    /// What "erase the library's data" deletes (`includingRestoreOnly`: what a restore over it deletes),
    /// children before their parents.
    static func eraseOrder(includingRestoreOnly: Bool) -> [DataTable] {
        let chosen = tables.filter { t in
            switch t.erase {
            case .erased: true
            case .byRestoreOnly: includingRestoreOnly
            case .no: false
            }
        }
        return Array(parentsFirst(chosen).reversed())
    }

    /// The tables a restore's swap moves, parents before their children.
    static var swapOrder: [String] {
        parentsFirst(tables.filter { $0.swap == .moved }).map(\.name)
    }

    /// The tables whose rows `Accounts.forgetLibrary` deletes.
    static var forgottenTables: [String] {
        tables.filter { $0.forget == .deleted }.map(\.name)
    }

    /// `tables` ordered so every table comes after the parents among them; ties in declaration order.
    static func parentsFirst(_ tables: [DataTable]) -> [DataTable] {
        var placed: [DataTable] = [], left = tables
        let names = Set(tables.map(\.name))
        while !left.isEmpty {
            let done = Set(placed.map(\.name))
            guard let next = left.firstIndex(where: { t in t.parents.allSatisfy { !names.contains($0) || done.contains($0) || $0 == t.name } }) else {
                preconditionFailure("the tables' parents make a cycle: \(left.map(\.name))")
            }
            placed.append(left.remove(at: next))
        }
        return placed
    }
}
