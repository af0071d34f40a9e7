import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// The Background work page: the recurring jobs with their schedule and next run in the
/// library's time zone, the titles waiting to be filled in, and the library's latest jobs (imports,
/// restores, scheduled runs) with how each ended — a failure said in the reader's language.
struct BackgroundPage: Sendable {
    struct Run: Sendable {
        var kind: Jobs.Kind?
        var state: Jobs.State
        var started: Date
        var finished: Date?
        var removed: Int?
        var expired: Int?
        var sent: Int? = nil
        var failedMessages: Int? = nil
        var withoutEmail: Int? = nil
        /// A roster from the drop folder: what it did, or would have (held back).
        var roster: RecurringJobs.Outcome? = nil
        var failure: Jobs.Failure?
        /// An import's or restore's own page (its report).
        var page: WebRoute?
    }

    var libraryID: UUID
    var planned: [RecurringJobs.Planned]
    var enrichment: Enrichment.Progress
    var runs: [Run]

    static let shown = 50

    static func make(library: LibraryContext, app: Application) async throws -> BackgroundPage {
        let records = try await Jobs.recent(library: library.libraryID, limit: shown, app: app)
        let runs = records.map { r in
            let kind = Jobs.Kind(rawValue: r.kind)
            let own = (kind == .importFile || kind == .restore)
            return Run(kind: kind, state: r.status, started: r.created_at, finished: r.finished_at, removed: r.outcome?.removed, expired: r.outcome?.expired,
                       sent: r.outcome?.sent, failedMessages: r.outcome?.failed, withoutEmail: r.outcome?.withoutEmail,
                       roster: kind == .rosterFolder ? r.outcome : nil, failure: r.decodedFailure, page: own ? .job(library: library.libraryID, job: r.id) : nil)
        }
        return BackgroundPage(libraryID: library.libraryID, planned: try await RecurringJobs.library(library.libraryID, on: app.db)
                                .map { RecurringJobs.planned(library: $0, now: app.clock.now()) } ?? [],
                              enrichment: try await Enrichment.progress(library: library.libraryID, on: app.db), runs: runs)
    }
}
