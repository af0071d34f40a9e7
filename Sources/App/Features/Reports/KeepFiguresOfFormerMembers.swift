import Fluent
import FluentSQL
import SQLKit

/// What the reports count outlives the member it counted. A loan keeps the class its borrower was in
/// when it was lent (`loans.member_grade`; a class changes at the year's end, last year's figures do
/// not), filled in for the loans already made from their members' classes today. A member's fines and
/// holds stay when the member is deleted, without the member (`member_id` becomes NULL instead of the
/// rows being deleted with them): charged, paid and waived money and the holds placed and filled stay
/// true. SQLite cannot change a foreign key, so `fines` and `holds` are built anew with every row;
/// PostgreSQL changes the two constraints. And the indexes the reports' periods read: loans by the day
/// they were lent, holds by the day they were placed, fines by the day they were charged.
struct KeepFiguresOfFormerMembers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await database.schema("loans").field("member_grade", .string).update()
        try await sql.raw("UPDATE loans SET member_grade = (SELECT m.grade FROM members m WHERE m.id = loans.member_id) WHERE member_id IS NOT NULL").run()
        if sql.dialect.name == "sqlite" {
            try await rebuildOnSQLite(database, sql)
        } else {
            for table in ["fines", "holds"] {
                try await sql.raw("ALTER TABLE \(ident: table) ALTER COLUMN member_id DROP NOT NULL").run()
                try await replaceMemberKey(table, onDelete: "SET NULL", sql)
            }
        }
        try await sql.raw("CREATE INDEX loans_library_lent ON loans (library_id, checked_out_at)").run()
        try await sql.raw("CREATE INDEX holds_library_placed ON holds (library_id, created_at)").run()
        try await sql.raw("CREATE INDEX fines_library_created ON fines (library_id, created_at)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        for index in ["loans_library_lent", "holds_library_placed", "fines_library_created"] {
            try await sql.raw("DROP INDEX IF EXISTS \(ident: index)").run()
        }
        // Rows of former members cannot go back under a NOT NULL key: they go.
        try await sql.raw("DELETE FROM fines WHERE member_id IS NULL").run()
        try await sql.raw("DELETE FROM holds WHERE member_id IS NULL").run()
        if sql.dialect.name == "sqlite" {
            try await rebuildOnSQLite(database, sql, keepFormer: false)
        } else {
            for table in ["fines", "holds"] {
                try await sql.raw("ALTER TABLE \(ident: table) ALTER COLUMN member_id SET NOT NULL").run()
                try await replaceMemberKey(table, onDelete: "CASCADE", sql)
            }
        }
        try await database.schema("loans").deleteField("member_grade").update()
    }

    /// PostgreSQL: the table's foreign key on `member_id`, dropped and made again with `onDelete`.
    private func replaceMemberKey(_ table: String, onDelete: String, _ sql: any SQLDatabase) async throws {
        struct Constraint: Decodable { var conname: String }
        let found = try await sql.raw("""
            SELECT c.conname FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
            WHERE c.conrelid = to_regclass(\(bind: table)) AND c.contype = 'f' AND a.attname = 'member_id'
            """).all(decoding: Constraint.self)
        for constraint in found {
            try await sql.raw("ALTER TABLE \(ident: table) DROP CONSTRAINT \(ident: constraint.conname)").run()
        }
        try await sql.raw("""
            ALTER TABLE \(ident: table) ADD CONSTRAINT \(ident: "fk:\(table).member_id") FOREIGN KEY (member_id)
            REFERENCES members (id) ON DELETE \(unsafeRaw: onDelete)
            """).run()
    }

    /// SQLite: each table made again under a new name with the key as it should be, its rows copied,
    /// the old one dropped and the new one renamed, its indexes made again (nothing references either).
    private func rebuildOnSQLite(_ database: any Database, _ sql: any SQLDatabase, keepFormer: Bool = true) async throws {
        let member: DatabaseSchema.FieldConstraint = .references("members", "id", onDelete: keepFormer ? .setNull : .cascade)
        var fines = database.schema("fines_rebuilt")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
        fines = keepFormer ? fines.field("member_id", .uuid, member) : fines.field("member_id", .uuid, .required, member)
        try await fines
            .field("loan_id", .uuid, .references("loans", "id", onDelete: .setNull))
            .field("kind", .string, .required)
            .field("amount", .int64, .required)
            .field("title_text", .string)
            .field("reason", .string)
            .field("created_by", .string, .required)
            .field("created_at", .datetime, .required)
            .create()
        var holds = database.schema("holds_rebuilt")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("title_id", .uuid, .required, .references("titles", "id", onDelete: .cascade))
        holds = keepFormer ? holds.field("member_id", .uuid, member) : holds.field("member_id", .uuid, .required, member)
        try await holds
            .field("rank", .int64, .required)
            .field("state", .string, .required)
            .field("suspended", .bool, .required)
            .field("copy_id", .uuid, .references("copies", "id", onDelete: .setNull))
            .field("ready_at", .datetime)
            .field("pickup_by", .datetime)
            .field("placed_by", .string, .required)
            .field("created_at", .datetime, .required)
            .field("closed_at", .datetime)
            .create()
        try await sql.raw("""
            INSERT INTO fines_rebuilt (id, library_id, member_id, loan_id, kind, amount, title_text, reason, created_by, created_at)
            SELECT id, library_id, member_id, loan_id, kind, amount, title_text, reason, created_by, created_at FROM fines
            """).run()
        try await sql.raw("""
            INSERT INTO holds_rebuilt (id, library_id, title_id, member_id, rank, state, suspended, copy_id, ready_at, pickup_by, placed_by, created_at, closed_at)
            SELECT id, library_id, title_id, member_id, rank, state, suspended, copy_id, ready_at, pickup_by, placed_by, created_at, closed_at FROM holds
            """).run()
        try await sql.raw("DROP TABLE fines").run()
        try await sql.raw("DROP TABLE holds").run()
        try await sql.raw("ALTER TABLE fines_rebuilt RENAME TO fines").run()
        try await sql.raw("ALTER TABLE holds_rebuilt RENAME TO holds").run()
        try await sql.raw("CREATE INDEX fines_member ON fines (member_id, created_at)").run()
        try await sql.raw("CREATE UNIQUE INDEX fines_one_charge_per_loan ON fines (loan_id) WHERE kind = 'charge'").run()
        try await sql.raw("CREATE UNIQUE INDEX holds_one_per_member ON holds (title_id, member_id) WHERE state IN ('waiting', 'ready')").run()
        try await sql.raw("CREATE UNIQUE INDEX holds_one_per_copy ON holds (copy_id) WHERE state = 'ready'").run()
        try await sql.raw("CREATE INDEX holds_queue ON holds (title_id, state, rank)").run()
        try await sql.raw("CREATE INDEX holds_library_state ON holds (library_id, state, pickup_by)").run()
        try await sql.raw("CREATE INDEX holds_member ON holds (member_id, state)").run()
    }
}
