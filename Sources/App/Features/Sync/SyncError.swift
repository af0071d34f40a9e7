import Vapor

/// The refusals of the sync feed and push.
enum SyncError: DomainError, Equatable {
    /// The cursor is older than the removals the library still remembers: fetch everything again.
    case mustRefetch
    case badCursor(String)
    /// An offline title edit with no field in it.
    case nothingToEdit

    var described: Described {
        switch self {
        case .mustRefetch:
            .init(.gone, "sync_refetch", field: "cursor") { $0(.errSyncRefetch) }
        case .badCursor(let cursor):
            .init(.invalid, "invalid", field: "cursor") { $0.format(.errSyncCursor, String(cursor.prefix(80))) }
        case .nothingToEdit:
            .init(.invalid, "invalid", field: "fields") { $0(.errSyncNothingToEdit) }
        }
    }
}
