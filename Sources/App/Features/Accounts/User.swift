import Fluent
import Foundation
import ShelfmarkCore

/// A staff account. Members (borrowers) are not users.
final class User: Model, @unchecked Sendable {
    static let schema = "users"

    @ID(key: .id) var id: UUID?
    @Field(key: "username") var username: String
    @Field(key: "display_name") var displayName: String
    @Field(key: "password_hash") var passwordHash: String
    /// The installation's administrator (the account made at setup): decides who may create libraries.
    @Field(key: "is_admin") var isAdmin: Bool
    /// The school e-mail a sign-in with the school's account is matched to (lower case, unique).
    @OptionalField(key: "email") var email: String?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?

    init() {}

    init(id: UUID? = nil, username: String, displayName: String, passwordHash: String, isAdmin: Bool = false) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.isAdmin = isAdmin
    }
}

/// A user's role in one library.
final class Membership: Model, @unchecked Sendable {
    static let schema = "memberships"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: User
    @Parent(key: "library_id") var library: Library
    @Enum(key: "role") var role: Role
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?

    init() {}

    init(userID: UUID, libraryID: UUID, role: Role) {
        self.$user.id = userID
        self.$library.id = libraryID
        self.role = role
    }
}

/// A signed-in browser or API client. Only the SHA-256 of the secret is stored, so a leaked
/// database does not leak live credentials.
final class UserSession: Model, @unchecked Sendable {
    static let schema = "user_sessions"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: User
    @Field(key: "token_hash") var tokenHash: String
    @Field(key: "expires_at") var expiresAt: Date
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?

    init() {}

    init(userID: UUID, tokenHash: String, expiresAt: Date) {
        self.$user.id = userID
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
    }
}

/// A long-lived bearer token a user creates for an integration and can revoke.
final class APIToken: Model, @unchecked Sendable {
    static let schema = "api_tokens"

    @ID(key: .id) var id: UUID?
    @Parent(key: "user_id") var user: User
    @Field(key: "name") var name: String
    @Field(key: "token_hash") var tokenHash: String
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @OptionalField(key: "expires_at") var expiresAt: Date?

    init() {}

    init(userID: UUID, name: String, tokenHash: String, expiresAt: Date? = nil) {
        self.$user.id = userID
        self.name = name
        self.tokenHash = tokenHash
        self.expiresAt = expiresAt
    }
}
