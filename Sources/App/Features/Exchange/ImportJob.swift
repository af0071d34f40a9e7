import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// An import run as a job: the upload answers at once, the job's page (and
/// `GET /api/v1/jobs/{id}`) shows rows landing, then the report.
enum ImportJob {
    /// What a finished import job holds: the report, and the library it made.
    struct Outcome: Content {
        var report: ImportReport
        var library: LibraryDTO?
    }

    /// Starts importing `data` into `library`. `createdLibrary`: the library was made for this file
    ///, and goes again if the file is refused as a whole. `seenFrom`: the library whose page shows the job.
    static func start(_ data: Data, format: ImportFormat?, existing: ExistingISBNPolicy, into library: LibraryContext,
                      createdLibrary: LibraryDTO? = nil, seenFrom: UUID?, app: Application, now: Date) async throws -> UUID {
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        let id = try await Jobs.begin(.importFile, library: seenFrom, target: library.libraryID, user: library.user.id, now: now, app: app)
        Jobs.run(id, app: app, {
            let report = try await Importer.run(data, format: format, existing: existing, library: library, app: app, now: now) { progress in
                try? await Jobs.progress(id, rows: progress.rowsRead, titles: progress.titlesCreated, copies: progress.copiesAdded, app: app)
            }
            try await Jobs.progress(id, rows: report.rowsRead, titles: report.titlesCreated, copies: report.copiesAdded, app: app)
            return Outcome(report: report, library: createdLibrary)
        }, onFailure: { error in
            // Refused as a whole (unknown format, no header): nothing was written, no empty library stays.
            if let createdLibrary, error.answered.status.code < 500 {
                await Accounts.removeNewLibrary(createdLibrary.id, gate: app.writeGate, on: app.db)
            }
        })
        return id
    }
}
