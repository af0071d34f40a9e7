import Foundation
import Plot

/// What a form shows: the values in its fields (stored, or what the person typed before a refusal)
/// and the refusal, next to the field it is about or above the form when it is about no one field.
struct FormState: Sendable {
    var values: [String: String] = [:]
    var errors: [String: String] = [:]
    var general: String?

    init(values: [String: String] = [:]) {
        self.values = values
    }

    /// The form as typed, refused with `error` said in the reader's language: placed next to its
    /// field when the form has one by that name (`categories.2` is the `categories` field).
    init(values: [String: String], refusedWith error: any Error, t: Strings, fields: Set<String>) {
        self.values = values
        let message = t.message(error)
        let app = JSONErrorMiddleware.appError(for: error)
        let field = (app.field ?? "").split(separator: ".").first.map(String.init) ?? ""
        if fields.contains(field) { errors[field] = message } else { general = message }
    }

    subscript(_ name: String) -> String? { values[name] }

    var isRefused: Bool { general != nil || !errors.isEmpty }
}
