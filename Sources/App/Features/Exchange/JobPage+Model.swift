import Foundation
import Vapor

/// The page of one background job (`/libraries/{id}/exchange/jobs/{jobID}`): an import's rows
/// landing while it runs, then its report; a restore while it runs (when done, the controller sends
/// the reader to the restored library); or why the job failed.
struct JobPage: Sendable {
    enum State: Sendable {
        case importing(ImportProgress)
        case restoring
        case imported(ImportReport, madeLibrary: LibraryDTO?)
        case restored(LibraryDTO, leftOut: Backup.LeftOut?)
        case failed(kind: Jobs.Kind, message: String)
    }

    var jobID: UUID
    var libraryID: UUID
    var state: State

    /// The model for job `jobID` of the signed-in user, seen from `library`.
    static func make(jobID: UUID, library: LibraryContext, app: Application, t: Strings) async throws -> JobPage {
        let record = try await Jobs.find(jobID, user: library.user.id, app: app)
        guard record.library_id == library.libraryID, let kind = Jobs.Kind(rawValue: record.kind), kind == .importFile || kind == .restore
        else { throw JobError.notFound }
        let failed = { (failure: Jobs.Failure?) in State.failed(kind: kind, message: (failure ?? .interrupted).message(t)) }
        let state: State = switch (record.status, kind) {
        case (.running, .importFile):
            .importing(ImportProgress(rowsRead: record.rows_read, titlesCreated: record.titles_created, copiesAdded: record.copies_added))
        case (.running, .restore): .restoring
        case (.done, .importFile):
            record.decodedResult(ImportJob.Outcome.self).map { .imported($0.report, madeLibrary: $0.library) } ?? failed(nil)
        case (.done, .restore):
            record.decodedResult(RestoreJob.Outcome.self).map { .restored($0.library, leftOut: $0.leftOut) } ?? failed(nil)
        case (.failed, _), (_, .enrich), (_, .prune), (_, .expireHolds), (_, .reminders), (_, .nightlyBackup), (_, .backupDrill),
             (_, .mailReports), (_, .retention), (_, .rosterFolder): failed(record.decodedFailure)
        }
        return JobPage(jobID: jobID, libraryID: library.libraryID, state: state)
    }

    /// What a restore left out, in the reader's words.
    static func leftOutText(_ leftOut: Backup.LeftOut, t: Strings) -> String {
        t.format(.restoreLeftOut, t.number(leftOut.reads), t.number(leftOut.quotes), t.number(leftOut.photos))
    }

    var isRunning: Bool {
        switch state {
        case .importing, .restoring: true
        default: false
        }
    }
}
