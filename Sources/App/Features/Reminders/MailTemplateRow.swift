import Foundation

/// A message template the library edited.
struct MailTemplateRow: Codable, Sendable, Equatable {
    var id: UUID
    var kind: String
    var language: String
    var subject: String
    var body: String
    var updated_at: Date
}
