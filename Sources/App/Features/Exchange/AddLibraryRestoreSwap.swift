import Fluent
import FluentSQL
import Foundation
import SQLKit

/// A restore *over* a library is written beside it first, into a hidden library, in bounded
/// batches; then the library is hidden while its old data is erased and the new moved in, batch by
/// batch (`Backup.restore(_:over:…)`). While that swap runs, the library names the hidden library it
/// takes its data from (`restore_source_id`) and whether its old data is all gone (`restore_erased`),
/// so a swap whose process died is finished by the next one to look (`Backup.resumeSwaps`), never
/// left half-made and never removed as an unfinished new library.
struct AddLibraryRestoreSwap: AsyncMigration {
    func prepare(on database: any Database) async throws {
        // One column per statement: SQLite adds one at a time.
        try await database.schema("libraries").field("restore_source_id", .uuid).update()
        try await database.schema("libraries").field("restore_erased", .bool, .required, .sql(.default(false))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("restore_erased").update()
        try await database.schema("libraries").deleteField("restore_source_id").update()
    }
}
