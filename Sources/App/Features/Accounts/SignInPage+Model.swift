import Foundation

/// Sign-in: the username typed before (a refused attempt keeps it), why it was refused, and the page
/// to go back to (a path of this server, checked by `LocalPath`).
struct SignInPage: Sendable {
    var username: String?
    var error: String?
    var next: String?
    /// The school's sign-in provider's name, when staff may sign in with their school account.
    var school: String? = nil
}
