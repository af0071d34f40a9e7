import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The roster's teachers as staff, and the classes they teach. Off unless an owner applies a roster
/// with a role for them: each teacher with an e-mail becomes staff with that role (their account is
/// the one with that school e-mail, or a new one without a password, for the school's sign-in), a role
/// they have already is never changed, and the classes the roster gives them are kept. A class teacher
/// (a viewer or volunteer with classes) sees the readers report of their classes and no other report.
enum ClassTeachers {
    /// What the roster's teachers would be: staff here already, an account to add, a new account, or
    /// none (no e-mail).
    static func preview(_ teachers: [RosterFile.Teacher], library: UUID, on db: any SQLDatabase) async throws -> [RosterTeacherDTO] {
        let emails = teachers.compactMap { email($0) }
        struct Known: Decodable { var id: UUID; var email: String?; var role: String? }
        var known: [String: Known] = [:]
        for chunk in emails.chunked(500) {
            for row in try await db.raw("""
                SELECT u.id, u.email, m.role FROM users u LEFT JOIN memberships m ON m.user_id = u.id AND m.library_id = \(bind: library)
                WHERE u.email IN (\(binds: chunk))
                """).all(decoding: Known.self) {
                if let e = row.email { known[e] = row }
            }
        }
        return teachers.map { t in
            let name = Member.fullName(first: t.firstName, last: t.lastName)
            guard let e = email(t) else { return RosterTeacherDTO(name: name, email: nil, classes: t.classes, account: .noEmail) }
            let account: RosterTeacherDTO.Account = switch known[e] {
            case .none: .new
            case .some(let k) where k.role != nil: .staff
            case .some: .existing
            }
            return RosterTeacherDTO(name: name, email: e, classes: t.classes, account: account)
        }
    }

    /// A teacher's school e-mail, when it is one.
    static func email(_ t: RosterFile.Teacher) -> String? {
        t.email.flatMap { EmailAddress(parsing: $0) }.map { $0.text.lowercased() }
    }

    /// Makes the roster's teachers staff with `role` (inside the roster's transaction) and keeps their
    /// classes; in a full roster the library's class teachers are the roster's only.
    static func apply(_ teachers: [RosterFile.Teacher], role: Role, full: Bool, in scope: Scope, on db: any Database) async throws -> Int {
        let library = scope.libraryID
        if full { try await db.sql.raw("DELETE FROM class_teachers WHERE library_id = \(bind: library)").run() }
        var added = 0
        for t in teachers {
            guard let e = email(t) else { continue }
            let name = Member.fullName(first: t.firstName, last: t.lastName)
            let user = try await SchoolSignIn.accountForSchoolEmail(e, name: name.isEmpty ? e : name, on: db)
            let userID = try user.requireID()
            if try await Membership.query(on: db).filter(\.$user.$id == userID).filter(\.$library.$id == library).first() == nil {
                try await Membership(userID: userID, libraryID: library, role: role).create(on: db)
                try await AuditLog.record(.init(action: .staffAdded, target: user.username, detail: ["role": role.rawValue, "by": "roster"]),
                                          in: scope, on: db)
                added += 1
            }
            try await db.sql.raw("DELETE FROM class_teachers WHERE library_id = \(bind: library) AND user_id = \(bind: userID)").run()
            for grade in Set(t.classes.map { String($0.prefix(100)) }).sorted() where !grade.isEmpty {
                try await db.sql.raw("""
                    INSERT INTO class_teachers (library_id, user_id, grade) VALUES (\(bind: library), \(bind: userID), \(bind: grade))
                    """).run()
            }
        }
        return added
    }

    /// The classes `user` teaches in `library`, by name.
    static func classes(of user: UUID, library: UUID, on db: any Database) async throws -> [String] {
        struct Row: Decodable { var grade: String }
        return try await db.sql.raw("""
            SELECT grade FROM class_teachers WHERE library_id = \(bind: library) AND user_id = \(bind: user) ORDER BY grade
            """).all(decoding: Row.self).map(\.grade)
    }

    /// Who may see `kind` with `options`: librarians and owners anything; a class teacher the readers
    /// report of one of their classes (the first when none of theirs is asked for); anyone else no report.
    static func limit(_ ctx: LibraryContext, kind: ReportKind?, options: inout ReportOptions, on db: any Database) async throws {
        if ctx.role.may(.manageMembers) { return }
        let mine = try await classes(of: ctx.user.id, library: ctx.libraryID, on: db)
        guard kind == .readers, let first = mine.first else { throw AccountError.roleTooLow(ctx.role, needs: .librarian) }
        if !(options.grade.map(mine.contains) ?? false) { options.grade = first }
    }
}

/// A teacher of the roster and what applying it with a role for teachers would make of them.
struct RosterTeacherDTO: Content {
    enum Account: String, Codable, Sendable {
        /// Staff of this library already (their role stays).
        case staff
        /// Has an account with this school e-mail: added to the library's staff.
        case existing
        /// A new account (no password: the school's sign-in, or a password an owner sets).
        case new
        /// No e-mail in the roster: not made staff.
        case noEmail = "no_email"
    }

    var name: String
    var email: String?
    var classes: [String]
    var account: Account
}
