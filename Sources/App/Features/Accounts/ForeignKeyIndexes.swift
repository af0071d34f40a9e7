import Fluent
import SQLKit

/// An index that leads with each foreign key that had none. Deleting a row makes the database look for
/// the rows that name it in every table with a key to it (to delete them, empty their key, or refuse);
/// without an index on the key that look reads the whole child table, once per deleted row. A
/// library's erase deleting 20,000 copies read every stocktake scan 20,000 times, a rollover's leavers
/// every read of the year once each, a user's removal every job. `FeatureTests` holds every foreign key
/// of the schema to having one, so a table added later cannot miss it.
struct ForeignKeyIndexes: AsyncMigration {
    /// The keys that had no index leading with them: table, column.
    static let keys: [(table: String, column: String)] = [
        ("api_tokens", "user_id"), ("class_teachers", "user_id"), ("jobs", "user_id"), ("kiosks", "library_id"),
        ("member_sessions", "library_id"), ("memberships", "library_id"), ("page_photos", "library_id"), ("page_photos", "user_id"),
        ("quotes", "user_id"), ("reading_goals", "member_id"), ("reading_goals", "user_id"), ("reading_shares", "user_id"),
        ("reads", "member_id"), ("reads", "user_id"), ("school_sign_ins", "library_id"), ("stocktake_scans", "copy_id"),
        ("stocktakes", "library_id"), ("user_sessions", "user_id"),
    ]

    static func name(_ key: (table: String, column: String)) -> String { "\(key.table)_by_\(key.column)" }

    func prepare(on database: any Database) async throws {
        for key in Self.keys {
            try await database.sql.raw("CREATE INDEX IF NOT EXISTS \(ident: Self.name(key)) ON \(ident: key.table) (\(ident: key.column))").run()
        }
    }

    func revert(on database: any Database) async throws {
        for key in Self.keys { try await database.sql.raw("DROP INDEX IF EXISTS \(ident: Self.name(key))").run() }
    }
}
