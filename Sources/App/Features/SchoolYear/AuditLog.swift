import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The audit log: staff actions that touch people or the whole library — who, when, what. Owners
/// read it; nothing changes or deletes an entry (the table's triggers refuse it) but deleting the
/// library itself. An erase and a restore over the library keep it (and add their own entry); a
/// backup carries it, and a restore into a new library brings it back.
enum AuditLog {
    enum Action: String, Codable, Sendable, CaseIterable {
        case rosterApplied = "roster_applied"
        case memberArchived = "member_archived"
        case memberUnarchived = "member_unarchived"
        case memberExported = "member_exported"
        case memberErased = "member_erased"
        case staffAdded = "staff_added"
        case roleChanged = "role_changed"
        case staffRemoved = "staff_removed"
        case rollover
        case rolloverUndone = "rollover_undone"
        case retention
        case restore
        case erase
    }

    /// An entry to record: the action, whom or what it touched (a member's card, a username, a file),
    /// and its figures.
    struct Entry: Sendable {
        var action: Action
        var target: String?
        var detail: [String: String] = [:]

        init(action: Action, target: String? = nil, detail: [String: String] = [:]) {
            (self.action, self.target, self.detail) = (action, target, detail)
        }

        /// An action on a member: kept by their id (`member:…`), never their name or card, so an
        /// erasure leaves nothing of them here; the page names them while they are in the library.
        init(action: Action, member: UUID, detail: [String: String] = [:]) {
            self.init(action: action, target: memberPrefix + member.uuidString, detail: detail)
        }
    }

    static let memberPrefix = "member:"

    /// Records `entry` in the transaction of the action it describes.
    static func record(_ entry: Entry, library: UUID, by user: AuthenticatedUser?, at date: Date, on db: any Database) async throws {
        let detail = entry.detail.isEmpty ? nil : String(decoding: try JSONEncoder.sorted.encode(entry.detail), as: UTF8.self)
        try await db.sql.raw("""
            INSERT INTO audit_log (id, library_id, at, actor_id, actor, action, target, detail)
            VALUES (\(bind: UUID()), \(bind: library), \(bind: date), \(bind: user?.id), \(bind: user?.username ?? "shelfmark"),
                    \(bind: entry.action.rawValue), \(bind: entry.target.map { String($0.prefix(300)) }), \(bind: detail))
            """).run()
    }

    static func record(_ entry: Entry, in scope: Scope, on db: any Database) async throws {
        try await record(entry, library: scope.libraryID, by: scope.library.user, at: scope.now, on: db)
    }

    static let pageSize = 100

    /// The newest first; `before` pages back.
    static func list(library: UUID, action: Action?, limit: Int, offset: Int, on db: any Database) async throws -> [AuditEntryDTO] {
        var filter: SQLQueryString = ""
        if let action { filter = " AND action = \(bind: action.rawValue)" }
        return try await db.sql.raw("""
            SELECT id, at, actor, action, target, detail FROM audit_log WHERE library_id = \(bind: library)\(filter)
            ORDER BY at DESC, id LIMIT \(literal: limit) OFFSET \(literal: offset)
            """).all(decoding: AuditRow.self).map(\.dto)
    }

    static func count(library: UUID, action: Action?, on db: any Database) async throws -> Int {
        var filter: SQLQueryString = ""
        if let action { filter = " AND action = \(bind: action.rawValue)" }
        struct N: Decodable { var n: Int }
        return try await db.sql.raw("SELECT COUNT(*) AS n FROM audit_log WHERE library_id = \(bind: library)\(filter)").first(decoding: N.self)?.n ?? 0
    }
}

/// A row of `audit_log` as the backup carries it.
struct AuditRow: Codable, Sendable, Equatable {
    var id: UUID
    var at: Date
    var actor_id: UUID? = nil
    var actor: String
    var action: String
    var target: String?
    var detail: String?

    var dto: AuditEntryDTO {
        AuditEntryDTO(id: id, at: at, actor: actor, action: action, target: target,
                      detail: detail.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:])
    }
}

struct AuditEntryDTO: Content {
    var id: UUID
    var at: Date
    /// The staff account that acted (`shelfmark` for the server's own runs).
    var actor: String
    /// `roster_applied`, `member_archived`, `member_unarchived`, `member_exported`, `member_erased`, `staff_added`, `role_changed`,
    /// `staff_removed`, `rollover`, `rollover_undone`, `restore`, `erase`.
    var action: String
    /// Whom or what it touched: a member (`member:` and their id), a username, a file.
    var target: String?
    /// Its figures (added, archived, role …).
    var detail: [String: String]

    /// The member it was about, when it was about one.
    var memberID: UUID? {
        guard let target, target.hasPrefix(AuditLog.memberPrefix) else { return nil }
        return UUID(uuidString: String(target.dropFirst(AuditLog.memberPrefix.count)))
    }
}

extension JSONEncoder {
    /// Keys in order, so the same values give the same text.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
