import Foundation
import ShelfmarkCore

/// "More": the pages outside the tab bar, as far as the role reaches, and the user's other libraries.
struct MorePage: Sendable {
    var libraryID: UUID
    var role: Role

    static func make(library: LibraryContext) -> MorePage {
        MorePage(libraryID: library.libraryID, role: library.role)
    }
}
