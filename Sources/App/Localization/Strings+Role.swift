import ShelfmarkCore
import Vapor

extension Strings {
    /// A role's name in this language.
    func role(_ role: Role) -> String {
        switch role {
        case .owner: self(.roleOwner)
        case .librarian: self(.roleLibrarian)
        case .volunteer: self(.roleVolunteer)
        case .viewer: self(.roleViewer)
        }
    }
}
