import Fluent
import Foundation
import SQLKit
import ShelfmarkCore

/// The roster page: a roster to read (the file, full or changes only, a student list's columns),
/// and the runs read before, newest first.
struct RosterPage: Sendable {
    var libraryID: UUID
    var runs: [RosterRunDTO]
    /// Why the last upload was refused, said on the form.
    var error: String? = nil

    static func make(library: LibraryContext, on db: any Database) async throws -> RosterPage {
        RosterPage(libraryID: library.libraryID, runs: try await RosterSync.runs(library: library.libraryID, on: db.sql))
    }
}

/// One run: the preview to read before applying it, or what applying it did.
struct RosterRunPage: Sendable {
    var libraryID: UUID
    var run: RosterRunDTO
    /// It can still be applied (not applied, and read within the day).
    var applicable: Bool
    /// An owner may make the roster's teachers staff as it is applied.
    var mayMakeStaff = false
    /// Lists are long for a whole school; each shows this many, then says how many more.
    static let shown = 300

    static func make(run id: UUID, library: LibraryContext, now: Date, on db: any Database) async throws -> RosterRunPage {
        let row = try await RosterSync.run(id, library: library.libraryID, on: db.sql)
        return RosterRunPage(libraryID: library.libraryID, run: row.dto,
                             applicable: row.applied_at == nil && row.roster != nil && now.timeIntervalSince(row.created_at) <= RosterSync.previewLifetime,
                             mayMakeStaff: library.role.may(.administer))
    }
}

/// The audit log's page (owners).
struct AuditPage: Sendable {
    var libraryID: UUID
    var entries: [AuditEntryDTO]
    var paging: Paging
    var total: Int
    /// The members the entries name (by id), as they are now: "name · card"; one erased or deleted is not here.
    var members: [UUID: String] = [:]

    static func make(library: LibraryContext, paging: Paging, on db: any Database) async throws -> AuditPage {
        var page = AuditPage(libraryID: library.libraryID,
                             entries: try await AuditLog.list(library: library.libraryID, action: nil, limit: paging.size, offset: paging.offset, on: db),
                             paging: paging, total: try await AuditLog.count(library: library.libraryID, action: nil, on: db))
        let ids = page.entries.compactMap { $0.memberID }
        if !ids.isEmpty {
            struct Row: Decodable { var id: UUID; var card_id: String; var first_name: String; var last_name: String }
            for row in try await db.sql.raw("""
                SELECT id, card_id, first_name, last_name FROM members WHERE library_id = \(bind: library.libraryID) AND id IN (\(binds: Array(Set(ids))))
                """).all(decoding: Row.self) {
                page.members[row.id] = Member.fullName(first: row.first_name, last: row.last_name) + " · " + row.card_id
            }
        }
        return page
    }
}

/// The year-end rollover's page: each class with where it goes (as the rollover first guesses, to be
/// confirmed), the rollovers made (the newest undone in one step).
struct RolloverPage: Sendable {
    var libraryID: UUID
    var classes: [RolloverClassDTO]
    var rollovers: [RolloverDTO]
    var isOwner: Bool
    var error: String? = nil

    static func make(library: LibraryContext, on db: any Database) async throws -> RolloverPage {
        RolloverPage(libraryID: library.libraryID, classes: try await Rollover.classes(library: library.libraryID, on: db.sql),
                     rollovers: try await Rollover.list(library: library.libraryID, on: db.sql), isOwner: library.role.may(.administer))
    }
}
