import Fluent
import Foundation
import ShelfmarkCore
import SQLKit

/// Writes the activity log. Called inside the transaction of the change it records, so an
/// entry exists exactly when its change does.
enum ActivityLog {
    struct Entry: Sendable {
        var type: ActivityType
        var titleID: UUID? = nil
        var title: String? = nil
        var author: String? = nil
        var memberCardID: String? = nil
        var info: String? = nil
        /// The detail as values; its English text becomes `info` when `info` is not given.
        var detail: ActivityDetail? = nil
    }

    /// A plain INSERT: building a Fluent model costs reflection on every write, and every write logs.
    static func record(_ entry: Entry, library: LibraryContext, at date: Date, on db: any Database) async throws {
        try await record([(entry, date)], library: library, on: db)
    }

    /// Several entries in one statement per 200 (a sync push's, kept for its end).
    static func record(_ entries: [(Entry, Date)], library: LibraryContext, on db: any Database) async throws {
        for chunk in entries.chunked(200) {
            let rows: [SQLQueryString] = chunk.map { entry, date in
                "(\(bind: UUID()), \(bind: library.libraryID), \(bind: date), \(bind: entry.type.rawValue), \(bind: entry.titleID), \(bind: entry.title), "
                    + "\(bind: entry.author), \(bind: entry.memberCardID), \(bind: entry.info ?? entry.detail?.english), \(bind: entry.detail?.json), "
                    + "\(bind: library.user.username))"
            }
            try await db.sql.raw("INSERT INTO activities (id, library_id, at, type, title_id, title_text, author_text, member_card_id, info, detail, actor) VALUES "
                                 + rows.joined(separator: ", ")).run()
        }
    }

    static func list(libraryID: UUID, type: ActivityType?, limit: Int, offset: Int, on db: any Database) async throws -> [ActivityDTO] {
        var query = Activity.query(on: db).filter(\.$library.$id == libraryID)
        if let type { query = query.filter(\.$type == type.rawValue) }
        return try await query.sort(\.$at, .descending).range(offset..<(offset + limit)).all().map(\.dto)
    }
}

extension Activity {
    var dto: ActivityDTO {
        ActivityDTO(id: id!, at: at, type: type, titleId: titleID, title: titleText, author: authorText,
                    memberCardId: memberCardID, info: info, actor: actor, detail: ActivityDetail(json: detail))
    }
}
