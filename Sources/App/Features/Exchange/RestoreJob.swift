import Fluent
import Foundation
import Vapor

/// A restore run as a job: the backup is read and checked in the request (a file that is not a
/// backup is refused at once, on the form), the writing runs in the background.
enum RestoreJob {
    /// What a finished restore holds: the library it wrote (made for it, or restored over).
    struct Outcome: Content {
        var library: LibraryDTO
        /// What was not brought back (absent in jobs that ran before it was reported).
        var leftOut: Backup.LeftOut?
    }

    /// Restores `backup` over `library` (everything it holds is replaced: written beside it, then
    /// swapped in, batch by batch; `Backup.restore(_:over:job:…)`).
    static func start(_ backup: LibraryBackup, over library: LibraryContext, seenFrom: UUID?, app: Application, now: Date) async throws -> UUID {
        let id = try await Jobs.begin(.restore, library: seenFrom, target: library.libraryID, user: library.user.id, now: now, app: app)
        Jobs.run(id, app: app) {
            let (db, gate) = app.jobStorage
            let leftOut = try await Backup.restore(backup, over: library.libraryID, job: id, gate: gate, on: db, logger: app.logger)
            try await gate.transaction(on: db) { db in
                try await AuditLog.record(.init(action: .restore, target: backup.library.name,
                                                detail: ["backupOf": backup.createdAt.formatted(.iso8601)]),
                                          library: library.libraryID, by: library.user, at: app.clock.now(), on: db)
            }
            await db.settleAfterBulkLoad(titles: backup.titles.count, logger: app.logger)
            let restored = try await Accounts.libraries(of: library.user, on: db).first { $0.id == library.libraryID }
            guard let restored else { throw AccountError.libraryNotFound }
            return Outcome(library: restored, leftOut: leftOut)
        }
        return id
    }

    /// Restores `backup` as a new library of `user`, named `name` (else as in the backup); checked
    /// here (who may create libraries) before the job starts.
    static func start(_ backup: LibraryBackup, asNewNamed name: String?, user: AuthenticatedUser, seenFrom: UUID?,
                      app: Application, now: Date) async throws -> UUID {
        try await ServerSettings.requireMayCreateLibrary(user, on: app.db)
        let name = try Check.optional(name, field: "name", max: 200)
        let id = try await Jobs.begin(.restore, library: seenFrom, target: nil, user: user.id, now: now, app: app)
        Jobs.run(id, app: app) {
            let (db, gate) = app.jobStorage
            let (library, leftOut) = try await Backup.restoreAsNew(backup, name: name, user: user, job: id, gate: gate, on: db)
            let outcome = Outcome(library: library, leftOut: leftOut)
            await db.settleAfterBulkLoad(titles: backup.titles.count, logger: app.logger)
            return outcome
        }
        return id
    }
}
