import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// `shelfmark user create`: make a staff account from a shell (e.g. when the web setup is not reachable).
struct UserCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Argument(name: "action", help: "What to do: create")
        var action: String
        @Option(name: "username", short: "u", help: "Login name (letters, digits, . _ - @)")
        var username: String?
        @Option(name: "password", short: "p", help: "Password, at least 8 characters (asked for when left out)")
        var password: String?
        @Option(name: "display-name", help: "Name shown in the app")
        var displayName: String?
        @Option(name: "library", short: "l", help: "Library to join by name; created when it does not exist")
        var library: String?
        @Option(name: "role", short: "r", help: "Role in that library: owner, librarian, volunteer or viewer (default owner)")
        var role: String?
    }

    var help: String { "Manage staff accounts: `user create --username NAME [--password …] [--library NAME --role owner]`." }

    func run(using context: CommandContext, signature: Signature) async throws {
        guard signature.action == "create" else {
            throw CLIError("Unknown action “\(signature.action)”. Use: shelfmark user create --username NAME")
        }
        guard let username = signature.username else { throw CLIError("--username is required.") }
        let role = try signature.role.map { raw in
            guard let role = Role(rawValue: raw) else {
                throw CLIError("--role must be one of \(Role.allCases.map(\.rawValue).joined(separator: ", ")), not “\(raw)”.")
            }
            return role
        } ?? .owner
        let password = signature.password ?? context.console.ask("Password for \(username):", isSecure: true)
        let app = context.application
        do {
            let user = try await Accounts.createUser(username: username, password: password, displayName: signature.displayName,
                                                     passwords: app.passwordHashing, gate: app.writeGate, on: app.db)
            if let name = signature.library {
                let library = try await LibraryLookup.findOrCreate(named: name, gate: app.writeGate, on: app.db)
                let membership = Membership(userID: user.id!, libraryID: library.id!, role: role)
                try await app.writeGate.transaction(on: app.db) { db in try await membership.create(on: db) }
                context.console.print("Created \(user.username), \(role.rawValue) of “\(library.name)”.")
            } else {
                context.console.print("Created \(user.username).")
            }
        } catch let error where error.answered.status.code < 500 {
            throw CLIError(error.answered.message)
        }
    }
}

/// A command-line mistake, printed as the message alone.
struct CLIError: Error, CustomStringConvertible, LocalizedError {
    let description: String
    init(_ message: String) { description = message }
    var errorDescription: String? { description }
}

enum LibraryLookup {
    static func findOrCreate(named name: String, gate: WriteGate, on db: any Database) async throws -> Library {
        if let library = try await Library.query(on: db).filter(\.$name == name).first() { return library }
        let library = Library(name: try Check.required(name, field: "library", max: 200))
        try await gate.transaction(on: db) { db in try await library.create(on: db) }
        return library
    }
}
