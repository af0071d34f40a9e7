import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The school year's tables and columns: a member's id in the school's records (`roster_id`, the
/// roster sync matches by it, never by name), their guardian's e-mail, and when they left
/// (`archived_at`: they keep their history and counts, but borrow nothing and leave the lists);
/// the roster files read and what applying them did (`roster_runs`); and the audit log, which no
/// statement may change or delete while its library exists.
struct CreateSchoolYear: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column a statement: SQLite adds them one at a time.
        try await database.schema("members").field("roster_id", .string).update()
        try await database.schema("members").field("guardian_email", .string).update()
        try await database.schema("members").field("archived_at", .datetime).update()
        let sql = database as! any SQLDatabase
        try await sql.raw("CREATE UNIQUE INDEX members_roster_id ON members (library_id, roster_id)").run()
        try await database.schema("roster_runs")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("created_at", .datetime, .required)
            .field("created_by", .string, .required)
            .field("source", .string, .required)
            .field("file_name", .string, .required)
            .field("mode", .string, .required)
            .field("roster", .string)
            .field("summary", .string, .required)
            .field("applied_at", .datetime)
            .field("applied_by", .string)
            .create()
        try await sql.raw("CREATE INDEX roster_runs_library ON roster_runs (library_id, created_at)").run()
        try await database.schema("audit_log")
            .id()
            .field("library_id", .uuid, .required, .references("libraries", "id", onDelete: .cascade))
            .field("at", .datetime, .required)
            .field("actor_id", .uuid)
            .field("actor", .string, .required)
            .field("action", .string, .required)
            .field("target", .string)
            .field("detail", .string)
            .create()
        try await sql.raw("CREATE INDEX audit_log_library_at ON audit_log (library_id, at)").run()
        // Append-only: a change or a deletion is refused, but for the cascade of deleting the library
        // itself (its row is gone by then).
        if sql.dialect.name == "sqlite" {
            try await sql.raw("""
                CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
                """).run()
            try await sql.raw("""
                CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
                WHEN EXISTS (SELECT 1 FROM libraries WHERE id = OLD.library_id)
                BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END
                """).run()
        } else {
            try await sql.raw("""
                CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM libraries WHERE id = OLD.library_id) THEN RETURN OLD; END IF;
                    RAISE EXCEPTION 'the audit log is append-only';
                END $$
                """).run()
            try await sql.raw("""
                CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
                FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()
                """).run()
        }
    }

    func revert(on database: any Database) async throws {
        let sql = database as! any SQLDatabase
        try await database.schema("audit_log").delete()
        if sql.dialect.name != "sqlite" { try await sql.raw("DROP FUNCTION audit_log_append_only()").run() }
        try await database.schema("roster_runs").delete()
        try await sql.raw("DROP INDEX members_roster_id").run()
        for field in ["archived_at", "guardian_email", "roster_id"] { try await database.schema("members").deleteField(.string(field)).update() }
    }
}
