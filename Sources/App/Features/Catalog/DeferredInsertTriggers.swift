import Fluent
import FluentSQL
import SQLKit

/// SQLite runs a trigger once per row: a bulk insert of thousands of titles and copies (an import, a
/// seed, an undone bulk delete) did every row's kept counts and sync log entry one by one, half of
/// SQLite's own work in an import (measured with SQLite alone, 100,000 titles with three copies each:
/// 26–30 s with the triggers, 13–15 s without them).
///
/// The insert triggers of the kept counts and of the sync log on `titles` and `copies` now skip a row
/// while its table is named in `bulk_inserting`. `BulkInsert` names the table there, inserts its rows,
/// takes the name out again and then does the triggers' work for all of those rows at once (`work`):
/// each trigger's set-based form, the shape PostgreSQL's statement triggers have (PostgreSQL needs no
/// deferring: its `COPY` fires them once for all the rows). All of it is one savepoint of the writing
/// transaction, so the name never commits: no other connection ever sees it, and SQLite's one writer
/// means no other insert runs between. The triggers that stay row by row (the search index, a title's
/// rating score) keep their work; so do updates and deletes.
struct DeferredInsertTriggers: AsyncMigration {
    /// For each table whose insert triggers a bulk insert defers: those triggers as they are made with the
    /// condition, and the statements that do their work for every row after rowid `?1`.
    struct Deferrable: Sendable {
        let triggers: [(name: String, sql: String)]
        let work: [String]
    }

    /// The condition a deferrable insert trigger runs under: its table is not being bulk inserted.
    static func notDeferred(_ table: String) -> String {
        "NOT EXISTS (SELECT 1 FROM bulk_inserting WHERE on_table = '\(table)')"
    }

    static let deferrable: [String: Deferrable] = {
        let titles = notDeferred("titles"), copies = notDeferred("copies")
        let syncTitles = CreateSyncLog.sqliteTriggers(.title, numbered: true, insertWhen: titles)[0]
        let syncCopies = CreateSyncLog.sqliteTriggers(.copy, numbered: true, insertWhen: copies)[0]
        return [
            "titles": Deferrable(
                triggers: [
                    ("title_counts_insert", "CREATE TRIGGER title_counts_insert AFTER INSERT ON titles WHEN \(titles) BEGIN \(AddOpenLoanCounts.add("NEW.")) END"),
                    ("sync_titles_insert", syncTitles),
                ],
                work: [
                    """
                    INSERT INTO title_counts (\(AddOpenLoanCounts.columns), n)
                    SELECT \(AddOpenLoanCounts.key("")), COUNT(*) FROM titles WHERE rowid > ?1 GROUP BY 1, 2, 3, 4, 5, 6
                    ON CONFLICT (\(AddOpenLoanCounts.columns)) DO UPDATE SET n = n + excluded.n
                    """,
                ] + CreateSyncLog.sqliteLogInserted(.title)),
            "copies": Deferrable(
                triggers: [
                    ("copy_counts_insert", "CREATE TRIGGER copy_counts_insert AFTER INSERT ON copies WHEN \(copies) BEGIN \(AddCopyCounts.add) END"),
                    ("shelf_counts_insert", "CREATE TRIGGER shelf_counts_insert AFTER INSERT ON copies WHEN \(copies) BEGIN \(AddShelfCounts.add) END"),
                    ("sync_copies_insert", syncCopies),
                ],
                work: [
                    """
                    INSERT INTO copy_counts (library_id, circulating, n)
                    SELECT library_id, \(AddCopyCounts.circulating("")), COUNT(*) FROM copies WHERE rowid > ?1 GROUP BY 1, 2
                    ON CONFLICT (library_id, circulating) DO UPDATE SET n = n + excluded.n
                    """,
                    """
                    INSERT INTO shelf_counts (library_id, location, n)
                    SELECT library_id, location, COUNT(*) FROM copies WHERE rowid > ?1 AND \(AddShelfCounts.counted("")) GROUP BY 1, 2
                    ON CONFLICT (library_id, location) DO UPDATE SET n = n + excluded.n
                    """,
                ] + CreateSyncLog.sqliteLogInserted(.copy)),
        ]
    }()

    /// The same triggers as they were before: every row.
    private static let everyRow: [String] = [
        "CREATE TRIGGER title_counts_insert AFTER INSERT ON titles BEGIN \(AddOpenLoanCounts.add("NEW.")) END",
        CreateSyncLog.sqliteTriggers(.title, numbered: true)[0],
        "CREATE TRIGGER copy_counts_insert AFTER INSERT ON copies BEGIN \(AddCopyCounts.add) END",
        "CREATE TRIGGER shelf_counts_insert AFTER INSERT ON copies BEGIN \(AddShelfCounts.add) END",
        CreateSyncLog.sqliteTriggers(.copy, numbered: true)[0],
    ]

    func prepare(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        let sql = database.sql
        try await sql.raw("CREATE TABLE bulk_inserting (on_table TEXT PRIMARY KEY) WITHOUT ROWID").run()
        for table in ["titles", "copies"] {
            for trigger in Self.deferrable[table]!.triggers {
                try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(trigger.name)")).run()
                try await sql.raw(SQLQueryString(trigger.sql)).run()
            }
        }
    }

    func revert(on database: any Database) async throws {
        guard Dialect(database) == .sqlite else { return }
        let sql = database.sql
        for name in ["title_counts_insert", "sync_titles_insert", "copy_counts_insert", "shelf_counts_insert", "sync_copies_insert"] {
            try await sql.raw(SQLQueryString("DROP TRIGGER IF EXISTS \(name)")).run()
        }
        for statement in Self.everyRow { try await sql.raw(SQLQueryString(statement)).run() }
        try await sql.raw("DROP TABLE bulk_inserting").run()
    }
}
