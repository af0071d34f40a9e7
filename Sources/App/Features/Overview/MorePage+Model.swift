import Foundation
import ShelfmarkCore

/// "More": the pages outside the tab bar, as far as the role reaches, and the user's other libraries.
struct MorePage: Sendable {
    var libraryID: UUID
    var role: Role
    /// The installation's administrator also sees the installation's pages (the nightly backups).
    var isAdmin = false
    /// A class teacher (not a librarian): the readers report of their classes is theirs to see.
    var teachesClasses = false

    static func make(library: LibraryContext, isAdmin: Bool) -> MorePage {
        MorePage(libraryID: library.libraryID, role: library.role, isAdmin: isAdmin)
    }
}
