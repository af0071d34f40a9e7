import Foundation
import Vapor

/// The page of one import job (`/libraries/{id}/exchange/jobs/{jobID}`): how far it got while it
/// runs, then the report, or why it failed.
struct ImportJobPage: Sendable {
    enum State: Sendable {
        case running(ImportProgress)
        case done(ImportReport, madeLibrary: LibraryDTO?)
        case failed(message: String)
    }

    var jobID: UUID
    var libraryID: UUID
    var state: State

    /// The model for job `jobID` of the signed-in user, seen from `library`.
    static func make(jobID: UUID, library: LibraryContext, app: Application, t: Strings) async throws -> ImportJobPage {
        let record = try await Jobs.find(jobID, user: library.user.id, app: app)
        guard record.library_id == library.libraryID, record.kind == Jobs.Kind.importFile.rawValue else { throw AppError.notFound("Job") }
        let state: State = switch record.status {
        case .running:
            .running(ImportProgress(rowsRead: record.rows_read, titlesCreated: record.titles_created, copiesAdded: record.copies_added))
        case .done:
            if let outcome = record.decodedResult(ImportJob.Outcome.self) {
                .done(outcome.report, madeLibrary: outcome.library)
            } else {
                .failed(message: t.message(Jobs.Failure.interrupted.error))
            }
        case .failed:
            .failed(message: t.message((record.decodedFailure ?? .interrupted).error))
        }
        return ImportJobPage(jobID: jobID, libraryID: library.libraryID, state: state)
    }

    var isRunning: Bool { if case .running = state { true } else { false } }
}
