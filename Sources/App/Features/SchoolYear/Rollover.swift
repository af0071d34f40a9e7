import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// The year-end rollover: every class moves as the librarian confirmed ("3A → 4A", "6A → leavers"),
/// the leavers are archived (decision 060), the members' reading goals are cleared when asked. The
/// library's backup is taken first and kept with the rollover, and what each member was before is
/// recorded, so the latest rollover is undone in one step (loans made since stay).
enum Rollover {
    static let maxClasses = 300
    /// Rollovers kept per library (with their backups): the newest.
    static let kept = 5

    /// The library's classes now (members not archived), with how many are in each and where the
    /// rollover would move them first.
    static func classes(library: UUID, on db: any SQLDatabase) async throws -> [RolloverClassDTO] {
        struct Row: Decodable { var grade: String; var n: Int }
        let rows = try await db.raw("""
            SELECT grade, COUNT(*) AS n FROM members WHERE library_id = \(bind: library) AND archived_at IS NULL AND grade IS NOT NULL AND grade <> ''
            GROUP BY grade
            """).all(decoding: Row.self)
            .sorted { $0.grade.localizedStandardCompare($1.grade) == .orderedAscending }
        let suggested = ClassPromotion.suggest(rows.map(\.grade))
        return rows.prefix(maxClasses).map { row in
            let next = suggested[row.grade]
            return RolloverClassDTO(name: row.grade, members: row.n, becomes: next.flatMap { $0 } ?? (next == nil ? row.grade : nil),
                                    leaves: next == .some(nil))
        }
    }

    /// Runs the rollover: the backup first, then every move in one transaction.
    static func run(_ input: RolloverInput, in scope: Scope) async throws -> RolloverDTO {
        let library = scope.libraryID
        guard !input.classes.isEmpty else { throw SchoolYearError.rolloverEmpty }
        guard input.classes.count <= maxClasses else { throw SchoolYearError.tooManyClasses(max: maxClasses) }
        let current = Set(try await classes(library: library, on: scope.db.sql).map(\.name))
        var planned: [String: String?] = [:]
        for (i, step) in input.classes.enumerated() {
            guard current.contains(step.from) else { throw SchoolYearError.noSuchClass(step.from, field: "classes[\(i)].from") }
            guard planned[step.from] == nil else { throw SchoolYearError.classTwice(step.from, field: "classes[\(i)].from") }
            if step.leave == true {
                planned[step.from] = .some(nil)
            } else {
                // A class given no new name keeps its own.
                planned[step.from] = .some(try Check.optional(step.to, field: "classes[\(i)].to", max: 50) ?? step.from)
            }
        }
        let moves = planned
        let backup = try Backup.encode(try await Backup.make(libraryID: library, includeCovers: false, now: scope.now, on: scope.db))
        let id = UUID()
        let by = scope.library.user.username
        let summary = try await scope.gate.transaction(on: scope.db) { db -> RolloverSummaryDTO in
            struct Before: Codable { var id: UUID; var grade: String?; var archived_at: Date? }
            var before: [Before] = []
            for chunk in Array(moves.keys).chunked(500) {
                before += try await db.sql.raw("""
                    SELECT id, grade, archived_at FROM members WHERE library_id = \(bind: library) AND archived_at IS NULL AND grade IN (\(binds: chunk))
                    """).all(decoding: Before.self)
            }
            var leaving: [UUID] = []
            var moved = 0
            let byID = Dictionary(uniqueKeysWithValues: before.map { ($0.id, $0) })
            for chunk in before.map(\.id).chunked(500) {
                for member in try await Member.query(on: db).filter(\.$id ~~ chunk).all() {
                    guard let grade = byID[member.id!]?.grade, let move = moves[grade] else { continue }
                    if let to = move {
                        guard to != grade else { continue }
                        member.grade = to
                        member.refreshDerived()
                        try await member.save(on: db)
                        moved += 1
                    } else {
                        leaving.append(member.id!)
                    }
                }
            }
            try await Members.archive(leaving, in: scope, on: db)
            var goals: [GoalRow] = []
            if input.clearGoals == true {
                goals = try await db.sql.raw("""
                    SELECT id, member_id, reader_key, year, books, pages FROM reading_goals WHERE library_id = \(bind: library) AND member_id IS NOT NULL
                    """).all(decoding: GoalRow.self)
                try await db.sql.raw("DELETE FROM reading_goals WHERE library_id = \(bind: library) AND member_id IS NOT NULL").run()
            }
            let summary = RolloverSummaryDTO(moved: moved, archived: leaving.count, goalsCleared: goals.count)
            let mapping = input.classes.map { RolloverStepDTO(from: $0.from, to: $0.leave == true ? nil : moves[$0.from].flatMap { $0 }, leave: $0.leave == true) }
            try await db.sql.raw("""
                INSERT INTO rollovers (id, library_id, at, by_name, mapping, clear_goals, changes, goals, summary, backup)
                VALUES (\(bind: id), \(bind: library), \(bind: scope.now), \(bind: by), \(bind: try json(mapping)), \(bind: input.clearGoals == true),
                        \(bind: try json(before)), \(bind: try json(goals)), \(bind: try json(summary)), \(bind: backup))
                """).run()
            // The newest few are kept, with their backups.
            struct IDRow: Decodable { var id: UUID }
            let old = try await db.sql.raw("""
                SELECT id FROM rollovers WHERE library_id = \(bind: library) ORDER BY at DESC, id LIMIT 100 OFFSET \(literal: kept)
                """).all(decoding: IDRow.self).map(\.id)
            if !old.isEmpty { try await db.sql.raw("DELETE FROM rollovers WHERE id IN (\(binds: old))").run() }
            try await AuditLog.record(.init(action: .rollover, target: nil, detail: ["moved": String(moved), "archived": String(leaving.count),
                                                                                     "goalsCleared": String(goals.count)]), in: scope, on: db)
            return summary
        }
        return try await list(library: library, on: scope.db.sql).first { $0.id == id } ?? RolloverDTO(id: id, at: scope.now, by: by, classes: [],
                                                                                                       summary: summary, undoable: true)
    }

    struct GoalRow: Codable, Sendable { var id: UUID; var member_id: UUID?; var reader_key: String; var year: Int; var books: Int?; var pages: Int? }

    static func json<T: Encodable>(_ value: T) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }

    struct Row: Decodable {
        var id: UUID; var at: Date; var by_name: String; var mapping: String; var summary: String; var undone_at: Date?; var undone_by: String?
    }

    /// The library's rollovers, newest first; only the newest not undone can be undone.
    static func list(library: UUID, on db: any SQLDatabase) async throws -> [RolloverDTO] {
        let rows = try await db.raw("""
            SELECT id, at, by_name, mapping, summary, undone_at, undone_by FROM rollovers WHERE library_id = \(bind: library) ORDER BY at DESC, id
            """).all(decoding: Row.self)
        let latest = rows.first { $0.undone_at == nil }?.id
        return rows.map { row in
            RolloverDTO(id: row.id, at: row.at, by: row.by_name,
                        classes: (try? JSONDecoder().decode([RolloverStepDTO].self, from: Data(row.mapping.utf8))) ?? [],
                        summary: (try? JSONDecoder().decode(RolloverSummaryDTO.self, from: Data(row.summary.utf8))) ?? .init(moved: 0, archived: 0, goalsCleared: 0),
                        undoneAt: row.undone_at, undoneBy: row.undone_by, undoable: row.id == latest && rows.first?.id == latest)
        }
    }

    /// Undoes the newest rollover: every member it moved or archived is as before (a member deleted
    /// since stays deleted), the goals it cleared come back. Loans made since stay.
    static func undo(_ id: UUID, in scope: Scope) async throws -> RolloverDTO {
        let library = scope.libraryID
        let all = try await list(library: library, on: scope.db.sql)
        guard let target = all.first(where: { $0.id == id }) else { throw SchoolYearError.rolloverNotFound }
        guard target.undoneAt == nil else { throw SchoolYearError.rolloverUndone }
        guard target.undoable else { throw SchoolYearError.rolloverNotLatest }
        let by = scope.library.user.username
        try await scope.gate.transaction(on: scope.db) { db in
            struct Saved: Decodable { var changes: String; var goals: String }
            guard let saved = try await db.sql.raw("""
                UPDATE rollovers SET undone_at = \(bind: scope.now), undone_by = \(bind: by) WHERE id = \(bind: id) AND undone_at IS NULL
                RETURNING changes, goals
                """).first(decoding: Saved.self) else { throw SchoolYearError.rolloverUndone }
            struct Before: Decodable { var id: UUID; var grade: String?; var archived_at: Date? }
            let before = try JSONDecoder().decode([Before].self, from: Data(saved.changes.utf8))
            let byID = Dictionary(uniqueKeysWithValues: before.map { ($0.id, $0) })
            for chunk in before.map(\.id).chunked(500) {
                for member in try await Member.query(on: db).filter(\.$id ~~ chunk).filter(\.$library.$id == library).all() {
                    guard let was = byID[member.id!] else { continue }
                    (member.grade, member.archivedAt) = (was.grade, was.archived_at)
                    member.refreshDerived()
                    try await member.save(on: db)
                }
            }
            for goal in try JSONDecoder().decode([GoalRow].self, from: Data(saved.goals.utf8)) {
                // A goal set again since the rollover stays as it is now.
                try await db.sql.raw("""
                    INSERT INTO reading_goals (id, library_id, member_id, reader_key, year, books, pages)
                    SELECT \(bind: goal.id), \(bind: library), \(bind: goal.member_id), \(bind: goal.reader_key), \(bind: goal.year), \(bind: goal.books), \(bind: goal.pages)
                    WHERE EXISTS (SELECT 1 FROM members WHERE id = \(bind: goal.member_id))
                      AND NOT EXISTS (SELECT 1 FROM reading_goals WHERE library_id = \(bind: library) AND reader_key = \(bind: goal.reader_key) AND year = \(bind: goal.year))
                    """).run()
            }
            try await AuditLog.record(.init(action: .rolloverUndone, target: nil, detail: ["rolloverAt": target.at.formatted(.iso8601)]),
                                      in: scope, on: db)
        }
        return try await list(library: library, on: scope.db.sql).first { $0.id == id }!
    }

    /// The backup taken before the rollover (a library backup file).
    static func backup(_ id: UUID, library: UUID, on db: any SQLDatabase) async throws -> (Data, Date) {
        struct Row: Decodable { var backup: Data; var at: Date }
        guard let row = try await db.raw("SELECT backup, at FROM rollovers WHERE id = \(bind: id) AND library_id = \(bind: library)")
            .first(decoding: Row.self) else { throw SchoolYearError.rolloverNotFound }
        guard !row.backup.isEmpty else { throw SchoolYearError.rolloverBackupErased }
        return (row.backup, row.at)
    }
}

struct RolloverClassDTO: Content {
    var name: String
    /// Members in the class now (not archived).
    var members: Int
    /// Where the rollover would move it first (the librarian confirms): the next year's class, the
    /// class itself when it has no year number, nil when it leaves.
    var becomes: String?
    var leaves: Bool
}

struct RolloverInput: Content, SchemaConstrained {
    struct Step: Content {
        var from: String
        var to: String?
        /// Its members leave (archived).
        var leave: Bool?
    }
    var classes: [Step]
    /// Clear the members' reading goals.
    var clearGoals: Bool?

    static var schemaConstraints: [String: JSONValue] {
        ["classes": ["minItems": 1, "maxItems": .number(Double(Rollover.maxClasses)),
                     "items": ["type": "object", "required": ["from"],
                               "properties": ["from": ["type": "string", "minLength": 1, "maxLength": 50, "pattern": .string(Rule.notBlank)],
                                              "to": ["type": "string", "maxLength": 50], "leave": ["type": "boolean"]]]]]
    }
}

struct RolloverStepDTO: Content {
    var from: String
    var to: String?
    var leave: Bool
}

struct RolloverSummaryDTO: Content {
    var moved: Int
    var archived: Int
    var goalsCleared: Int
}

struct RolloverDTO: Content {
    var id: UUID
    var at: Date
    var by: String
    var classes: [RolloverStepDTO]
    var summary: RolloverSummaryDTO
    var undoneAt: Date? = nil
    var undoneBy: String? = nil
    /// The newest rollover not undone: undone in one step.
    var undoable: Bool
}

struct RolloverPlanDTO: Content {
    var classes: [RolloverClassDTO]
    var rollovers: [RolloverDTO]
}
