import Fluent
import Foundation

/// A library being restored from a backup (as a new library) carries the id of the job
/// writing it, and is seen by nobody until the job has finished and cleared it. A job that dies on the
/// way (its process killed, its lease run out) leaves a library whose job is no longer running: it is
/// removed whole (`Jobs.removeUnfinishedLibraries`), so a half-written library is never anyone's and
/// its name is free for the next try.
struct AddLibraryPendingJob: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("pending_job_id", .uuid).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("pending_job_id").update()
    }
}
