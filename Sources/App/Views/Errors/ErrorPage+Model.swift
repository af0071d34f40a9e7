import Foundation

/// A page that says why something could not be shown or done (not found, not allowed, a server
/// error …), in the reader's language, with the header and a way back.
struct ErrorPage: Sendable {
    var title: String
    var message: String
}
