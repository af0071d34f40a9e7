import Fluent
import Foundation
import ShelfmarkCore

/// Writes the activity log (D1). Called inside the transaction of the change it records, so an
/// entry exists exactly when its change does.
enum ActivityLog {
    struct Entry: Sendable {
        var type: ActivityType
        var titleID: UUID? = nil
        var title: String? = nil
        var author: String? = nil
        var memberCardID: String? = nil
        var info: String? = nil
    }

    static func record(_ entry: Entry, library: LibraryContext, at date: Date, on db: any Database) async throws {
        let activity = Activity()
        activity.$library.id = library.libraryID
        activity.at = date
        activity.type = entry.type.rawValue
        activity.titleID = entry.titleID
        activity.titleText = entry.title
        activity.authorText = entry.author
        activity.memberCardID = entry.memberCardID
        activity.info = entry.info
        activity.actor = library.user.username
        try await activity.create(on: db)
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
                    memberCardId: memberCardID, info: info, actor: actor)
    }
}
