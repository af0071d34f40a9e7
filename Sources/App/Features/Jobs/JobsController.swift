import Foundation
import Vapor

/// A background job as the API shows it: how far it got, then its result or why it failed (the
/// message in the request's language).
struct JobDTO: Content {
    var id: UUID
    var kind: Jobs.Kind
    var state: Jobs.State
    var libraryId: UUID?
    var targetLibraryId: UUID?
    var rowsRead: Int
    var titlesCreated: Int
    var copiesAdded: Int
    /// An import's report, once done.
    var report: ImportReport?
    /// The library the job made (an import or restore as a new library), once done.
    var library: LibraryDTO?
    /// A restore's report, once done: what it did not bring back (reading life of readers without an
    /// account on this server, photos that are not images).
    var leftOut: Backup.LeftOut?
    /// The installation's backup, once done: where it went, its size, what the rotation removed.
    var backup: NightlyBackup.Report?
    /// A restore drill, once done: the backup restored and what came back.
    var drill: RestoreDrill.Report?
    var error: ErrorBody.Detail?
    var createdAt: Date
    var finishedAt: Date?

    init(_ record: Jobs.Record, t: Strings) {
        (id, libraryId, targetLibraryId) = (record.id, record.library_id, record.target_library_id)
        kind = Jobs.Kind(rawValue: record.kind) ?? .importFile
        state = record.status
        (rowsRead, titlesCreated, copiesAdded) = (record.rows_read, record.titles_created, record.copies_added)
        switch kind {
        case .importFile:
            let outcome = record.decodedResult(ImportJob.Outcome.self)
            (report, library) = (outcome?.report, outcome?.library)
        case .restore:
            let outcome = record.decodedResult(RestoreJob.Outcome.self)
            (report, library, leftOut) = (nil, outcome?.library, outcome?.leftOut)
        case .nightlyBackup:
            backup = record.decodedResult(NightlyBackup.Report.self)
        case .backupDrill:
            drill = record.decodedResult(RestoreDrill.Report.self)
        case .enrich, .prune, .expireHolds, .reminders, .mailReports, .retention, .rosterFolder:
            (report, library) = (nil, nil)
        }
        error = record.decodedFailure.map { ErrorBody.Detail(code: $0.code, message: $0.message(t), field: $0.field) }
        (createdAt, finishedAt) = (record.created_at, record.finished_at)
    }
}

enum JobsController {
    static func register(_ api: APIRoutes) {
        api.on(.GET, .job(.pattern), doc: .init(
            summary: "A background job you started (an import or restore): `state` is `running` (with the rows read and what landed so far), `done` (with the report) or `failed` (with `error`)",
            tag: "Import & export", response: JobDTO.self), use: show)
    }

    @Sendable static func show(req: Request) async throws -> JobDTO {
        let user = try req.user
        return JobDTO(try await Jobs.find(try req.uuid("jobID"), user: user.id, app: req.application), t: req.t)
    }

    /// 202 Accepted with the job and where to follow it.
    static func accepted(_ id: UUID, req: Request) async throws -> Response {
        let record = try await Jobs.find(id, user: try req.user.id, app: req.application)
        let response = Response(status: .accepted)
        response.headers.replaceOrAdd(name: .location, value: APILink.job(id).path)
        try response.content.encode(JobDTO(record, t: req.t))
        return response
    }
}
