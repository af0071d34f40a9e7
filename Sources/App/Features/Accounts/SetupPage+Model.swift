import Foundation

/// First run: the library's name, the first account, its password.
struct SetupPage: Sendable {
    static let fields: Set<String> = ["libraryName", "displayName", "username", "password"]

    /// As typed after a refusal (never the password), the reason next to its field.
    var form: FormState
}
