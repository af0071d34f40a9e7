import Foundation

/// Small forms many pages send (every form is a `WebForm`).

/// A destructive button's form: `confirm=true` says the person was asked and said yes.
struct ConfirmedForm: WebForm {
    var confirm: Bool
}

/// A button that returns to the page it was pressed on (`back`: a path of this server, checked by `LocalPath`).
struct BackForm: WebForm {
    var back: String?
    static var maxLength: [String: Int] { ["back": 2_000] }
}
