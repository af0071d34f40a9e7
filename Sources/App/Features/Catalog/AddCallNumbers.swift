import Fluent
import SQLKit

/// Call numbers and the MARC record a national library gave:
/// - `call_number`: as the library writes it ("823.914 ROW", "J 590 ANI");
/// - `call_number_sort`: `CallNumber.sortKey` of it, whose byte order is shelf order ("~", after
///   every key, for a title without one); PostgreSQL compares it byte by byte (`COLLATE "C"`), as
///   SQLite does, whatever the database's own collation;
/// - `marc_record`: the record as MARCXML, as the catalogue sent it;
/// - `copies.call_number`: a copy's own, where it differs from the title's (a reference copy);
/// - the shelf order's index, like the other list orders' (`AddTitleListKeys`).
struct AddCallNumbers: AsyncMigration {
    func prepare(on database: any Database) async throws {
        let sql = database.sql
        try await database.schema("titles").field("call_number", .string).update()
        let collate = Dialect(database) == .postgresql ? " COLLATE \"C\"" : ""
        try await sql.raw(SQLQueryString("ALTER TABLE titles ADD COLUMN call_number_sort TEXT\(collate) NOT NULL DEFAULT '~'")).run()
        try await database.schema("titles").field("marc_record", .string).update()
        try await database.schema("copies").field("call_number", .string).update()
        try await sql.raw("CREATE INDEX titles_list_shelf ON titles (library_id, wishlist, call_number_sort, sort_key, id)").run()
    }

    func revert(on database: any Database) async throws {
        let sql = database.sql
        try await sql.drop(index: "titles_list_shelf").run()
        try await database.schema("copies").deleteField("call_number").update()
        for column in ["marc_record", "call_number_sort", "call_number"] {
            try await database.schema("titles").deleteField(.string(column)).update()
        }
    }
}
