import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor
import ZIPFoundation

/// Students from the school's records. A roster (a OneRoster bundle, zipped or as files, or a plain
/// CSV of students) is read and kept as a *run*; its preview says who would be added, whose name,
/// class or e-mail would change, and who has left, against the members as they are. Applying the run
/// computes the same again and writes it in one transaction: new members (card = student number
/// unless a member holds it), changes, and leavers archived — never deleted: they keep their loans and
/// counts, borrow nothing, leave the lists, and their open loans are listed for follow-up. Members are
/// matched by the school's id, or on a first sync by card = student number; a member added by hand is
/// never archived by a sync.
enum RosterSync {
    /// An upload (a zip or a CSV) and what a zip may hold unpacked.
    static let maxBytes = 20 << 20
    static let maxUnpacked = 64 << 20
    /// Runs kept per library (the newest); a preview is applied within a day.
    static let runsKept = 20
    static let previewLifetime: TimeInterval = 86_400

    struct Options: Sendable {
        var mode: RosterFile.Mode = .full
        /// A plain CSV's columns by field (a field left out is found by its header).
        var mapping: [StudentList.Field: String] = [:]
    }

    // MARK: Reading

    /// The roster in `data`: a zip (a OneRoster bundle, or one CSV), or a CSV (a OneRoster `users.csv`
    /// alone, or a student list).
    static func read(_ data: Data, fileName: String, options: Options) throws -> RosterFile {
        guard !data.isEmpty else { throw ExchangeError.emptyFile }
        guard data.count <= maxBytes else { throw SchoolYearError.rosterTooLarge(maxMB: maxBytes >> 20) }
        if data.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            let files = try unzip(data)
            return try read(files: files, options: options)
        }
        let name = String(fileName.split(separator: "/").last ?? "")
        return try read(files: [name.isEmpty ? "students.csv" : name: TextDecoding.decode(data).text], options: options)
    }

    /// A roster from files by name (a bundle's, a folder's); one file alone, whatever its name, is a
    /// OneRoster users.csv on its own or a student list.
    static func read(files: [String: String], options: Options) throws -> RosterFile {
        do {
            if OneRoster.isBundle(Array(files.keys)) { return try OneRoster.read(files) }
            let csvs = files.count == 1 ? files
                : files.filter { $0.key.lowercased().hasSuffix(".csv") || $0.key.lowercased().hasSuffix(".txt") || $0.key.lowercased().hasSuffix(".tsv") }
            guard csvs.count == 1, let (name, text) = csvs.first else {
                throw SchoolYearError.notARoster(files: files.keys.sorted())
            }
            let header = StudentList.headers(text).map { $0.lowercased() }
            if header.contains("sourcedid"), header.contains("givenname") { return try OneRoster.read(["users.csv": text]) }
            return try StudentList.read(text, mode: options.mode, mapping: options.mapping, file: String(name.split(separator: "/").last ?? ""))
        } catch let error as RosterError {
            throw SchoolYearError.roster(error)
        }
    }

    /// The CSV files of a zip, by name, bounded in number and unpacked size (a zip bomb stops at the bound).
    static func unzip(_ data: Data) throws -> [String: String] {
        let archive: Archive
        do { archive = try Archive(data: data, accessMode: .read) } catch { throw SchoolYearError.unreadableZip }
        var files: [String: String] = [:]
        var unpacked = 0
        for entry in archive where entry.type == .file {
            let name = entry.path
            let lower = name.lowercased()
            guard lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv"),
                  !lower.split(separator: "/").contains(where: { $0.hasPrefix(".") || $0 == "__macosx" }) else { continue }
            guard files.count < 20 else { throw SchoolYearError.rosterTooLarge(maxMB: maxUnpacked >> 20) }
            var bytes = Data()
            do {
                _ = try archive.extract(entry, skipCRC32: false) { chunk in
                    unpacked += chunk.count
                    guard unpacked <= maxUnpacked else { throw SchoolYearError.rosterTooLarge(maxMB: maxUnpacked >> 20) }
                    bytes.append(chunk)
                }
            } catch let error as SchoolYearError {
                throw error
            } catch {
                throw SchoolYearError.unreadableZip
            }
            files[name] = TextDecoding.decode(bytes).text
        }
        guard !files.isEmpty else { throw SchoolYearError.notARoster(files: archive.map(\.path).sorted()) }
        return files
    }

    // MARK: The plan

    /// A member as the plan compares them.
    struct Known: Decodable, Sendable {
        var id: UUID
        var card_id: String
        var first_name: String
        var last_name: String
        var grade: String?
        var email: String?
        var guardian_email: String?
        var roster_id: String?
        var archived_at: Date?
        var name: String { Member.fullName(first: first_name, last: last_name) }
    }

    /// What applying `roster` to the members as they are would do.
    static func plan(_ roster: RosterFile, library: UUID, on db: any SQLDatabase) async throws -> (RosterPlanDTO, [PlannedWrite]) {
        let members = try await db.raw("""
            SELECT id, card_id, first_name, last_name, grade, email, guardian_email, roster_id, archived_at FROM members
            WHERE library_id = \(bind: library)
            """).all(decoding: Known.self)
        var byRoster: [String: Known] = [:], byCard: [String: Known] = [:]
        for m in members {
            if let r = m.roster_id { byRoster[r] = m }
            byCard[m.card_id.uppercased()] = m
        }
        var plan = RosterPlanDTO(format: roster.format, mode: roster.mode, students: roster.students.count, teachers: roster.teachers.count)
        plan.refused = roster.problems.map(RosterProblemDTO.init)
        var writes: [PlannedWrite] = []
        var claimed = Set<UUID>()
        var newCards = Set<String>()
        for s in roster.students {
            let match: Known? = byRoster[s.id] ?? s.number.flatMap { byCard[$0.uppercased()] }.flatMap { $0.roster_id == nil ? $0 : nil }
            if let m = match {
                guard claimed.insert(m.id).inserted else {
                    plan.refused.append(.init(file: s.file, line: s.line, code: "card_matched_twice", values: ["card": m.card_id, "name": m.name]))
                    continue
                }
                var changes: [RosterChangeDTO.Field] = []
                func differ(_ field: String, _ old: String?, _ new: String?) {
                    if (old ?? "") != (new ?? "") { changes.append(.init(field: field, from: old, to: new)) }
                }
                differ("firstName", m.first_name, s.firstName)
                differ("lastName", m.last_name, s.lastName)
                differ("grade", m.grade, s.grade)
                differ("email", m.email, s.email)
                differ("guardianEmail", m.guardian_email, s.guardianEmail)
                if m.roster_id == nil { changes.append(.init(field: "rosterId", from: nil, to: s.id)) }
                if m.archived_at != nil { changes.append(.init(field: "archived", from: "true", to: nil)) }
                if changes.isEmpty {
                    plan.unchanged += 1
                } else {
                    plan.changed.append(.init(memberId: m.id, card: m.card_id, name: m.name, changes: changes))
                    writes.append(.update(m.id, s))
                }
                continue
            }
            // A new member: the student number as their card, else the school's id, when free.
            let card = [s.number, s.id].compactMap { $0 }.first { candidate in
                (try? Identifier.parse(candidate, spaces: false)) == candidate && byCard[candidate.uppercased()] == nil
                    && !newCards.contains(candidate.uppercased())
            }
            guard let card else {
                let taken = s.number.flatMap { byCard[$0.uppercased()] }
                plan.refused.append(.init(file: s.file, line: s.line, code: "card_taken",
                                          values: ["card": s.number ?? s.id, "name": taken?.name ?? ""]))
                continue
            }
            newCards.insert(card.uppercased())
            plan.added.append(.init(card: card, name: Member.fullName(first: s.firstName, last: s.lastName), grade: s.grade, email: s.email))
            writes.append(.add(card, s))
        }
        // Who left: a full roster names everyone (a row it could not take names them too); a delta says who.
        let leaving: [Known]
        switch roster.mode {
        case .full:
            let named = roster.namedIDs
            leaving = members.filter { m in m.archived_at == nil && m.roster_id.map { !named.contains($0) } == true }
        case .delta:
            leaving = roster.leaving.compactMap { byRoster[$0] }.filter { $0.archived_at == nil && !claimed.contains($0.id) }
        }
        if !leaving.isEmpty {
            let loans = try await openLoans(Set(leaving.map(\.id)), on: db)
            for m in leaving.sorted(by: { ($0.grade ?? "", $0.last_name, $0.first_name) < ($1.grade ?? "", $1.last_name, $1.first_name) }) {
                plan.leaving.append(.init(memberId: m.id, card: m.card_id, name: m.name, grade: m.grade, loansOut: loans[m.id] ?? []))
                writes.append(.archive(m.id))
            }
        }
        plan.withoutSchoolID = members.filter { $0.roster_id == nil && $0.archived_at == nil && !claimed.contains($0.id) }.count
        if !roster.teachers.isEmpty { plan.teacherAccounts = try await ClassTeachers.preview(roster.teachers, library: library, on: db) }
        return (plan, writes)
    }

    /// The titles each member still has out.
    static func openLoans(_ members: Set<UUID>, on db: any SQLDatabase) async throws -> [UUID: [String]] {
        struct Row: Decodable { var member_id: UUID; var title_text: String }
        var out: [UUID: [String]] = [:]
        for chunk in Array(members).chunked(500) {
            for row in try await db.raw("""
                SELECT member_id, title_text FROM loans WHERE member_id IN (\(binds: chunk)) AND returned_at IS NULL ORDER BY due_at
                """).all(decoding: Row.self) {
                out[row.member_id, default: []].append(row.title_text)
            }
        }
        return out
    }

    enum PlannedWrite: Sendable {
        case add(String, RosterFile.Student)
        case update(UUID, RosterFile.Student)
        case archive(UUID)
    }

    // MARK: Runs

    /// Reads the upload and keeps it as a run with its preview.
    static func preview(_ data: Data, fileName: String, options: Options, source: String = "upload", in scope: Scope) async throws -> RosterRunDTO {
        let roster = try read(data, fileName: fileName, options: options)
        return try await preview(roster, fileName: fileName, source: source, in: scope)
    }

    static func preview(_ roster: RosterFile, fileName: String, source: String, hash: String? = nil, in scope: Scope) async throws -> RosterRunDTO {
        let (plan, _) = try await plan(roster, library: scope.libraryID, on: scope.db.sql)
        let id = UUID()
        let name = String(fileName.split(separator: "/").last.map(String.init)?.cleanedInput.prefix(200) ?? "")
        let by = scope.library.user.username
        try await scope.gate.transaction(on: scope.db) { db in
            try await db.sql.raw("""
                INSERT INTO roster_runs (id, library_id, created_at, created_by, source, file_name, mode, roster, summary, source_hash)
                VALUES (\(bind: id), \(bind: scope.libraryID), \(bind: scope.now), \(bind: by), \(bind: source), \(bind: name),
                        \(bind: roster.mode.rawValue), \(bind: String(decoding: try JSONEncoder().encode(roster), as: UTF8.self)),
                        \(bind: String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)), \(bind: hash))
                """).run()
            try await prune(library: scope.libraryID, on: db.sql)
        }
        return RosterRunDTO(id: id, createdAt: scope.now, createdBy: by, source: source, fileName: name, mode: roster.mode, appliedAt: nil,
                            appliedBy: nil, plan: plan)
    }

    /// The newest runs stay; older ones go.
    static func prune(library: UUID, on db: any SQLDatabase) async throws {
        struct Row: Decodable { var id: UUID }
        let old = try await db.raw("""
            SELECT id FROM roster_runs WHERE library_id = \(bind: library) ORDER BY created_at DESC, id LIMIT 1000 OFFSET \(literal: runsKept)
            """).all(decoding: Row.self).map(\.id)
        if !old.isEmpty { try await db.raw("DELETE FROM roster_runs WHERE id IN (\(binds: old))").run() }
    }

    struct RunRow: Decodable {
        var id: UUID
        var created_at: Date
        var created_by: String
        var source: String
        var file_name: String
        var mode: String
        var roster: String?
        var summary: String
        var applied_at: Date?
        var applied_by: String?

        var dto: RosterRunDTO {
            RosterRunDTO(id: id, createdAt: created_at, createdBy: created_by, source: source, fileName: file_name,
                         mode: RosterFile.Mode(rawValue: mode) ?? .full, appliedAt: applied_at, appliedBy: applied_by,
                         plan: (try? JSONDecoder().decode(RosterPlanDTO.self, from: Data(summary.utf8))) ?? RosterPlanDTO(format: "", mode: .full))
        }
    }

    static func run(_ id: UUID, library: UUID, on db: any SQLDatabase) async throws -> RunRow {
        guard let row = try await db.raw("""
            SELECT id, created_at, created_by, source, file_name, mode, roster, summary, applied_at, applied_by FROM roster_runs
            WHERE id = \(bind: id) AND library_id = \(bind: library)
            """).first(decoding: RunRow.self) else { throw SchoolYearError.runNotFound }
        return row
    }

    /// The library's runs, newest first (without their plans' lists).
    static func runs(library: UUID, on db: any SQLDatabase) async throws -> [RosterRunDTO] {
        try await db.raw("""
            SELECT id, created_at, created_by, source, file_name, mode, NULL AS roster, summary, applied_at, applied_by FROM roster_runs
            WHERE library_id = \(bind: library) ORDER BY created_at DESC, id
            """).all(decoding: RunRow.self).map { row in
            var dto = row.dto
            dto.plan = dto.plan.counted
            return dto
        }
    }

    /// Applies a previewed run: the plan is made again against the members as they are now and
    /// written in one transaction; the run keeps what was done. A run is applied once.
    /// With `teachersAs`, the roster's teachers become staff with that role (an owner's decision).
    static func apply(_ id: UUID, teachersAs: Role? = nil, in scope: Scope) async throws -> RosterRunDTO {
        let library = scope.libraryID
        if let role = teachersAs {
            guard scope.library.role.may(.administer) else { throw AccountError.roleTooLow(scope.library.role, needs: .owner) }
            guard role != .owner else { throw SchoolSignInError.badRole(role.rawValue) }
        }
        let row = try await run(id, library: library, on: scope.db.sql)
        guard row.applied_at == nil else { throw SchoolYearError.runAlreadyApplied(at: row.applied_at!) }
        guard scope.now.timeIntervalSince(row.created_at) <= previewLifetime, let text = row.roster,
              let roster = try? JSONDecoder().decode(RosterFile.self, from: Data(text.utf8)) else {
            throw SchoolYearError.runExpired
        }
        let by = scope.library.user.username
        let plan = try await scope.gate.transaction(on: scope.db) { db -> RosterPlanDTO in
            // Claimed first: the same run sent twice applies once.
            guard try await db.sql.raw("""
                UPDATE roster_runs SET applied_at = \(bind: scope.now), applied_by = \(bind: by), roster = NULL
                WHERE id = \(bind: id) AND applied_at IS NULL RETURNING id
                """).first() != nil else { throw SchoolYearError.runAlreadyApplied(at: scope.now) }
            var (plan, writes) = try await Self.plan(roster, library: library, on: db.sql)
            try await write(writes, in: scope, on: db)
            if let role = teachersAs {
                plan.staffRole = role
                plan.staffAdded = try await ClassTeachers.apply(roster.teachers, role: role, full: roster.mode == .full, in: scope, on: db)
            }
            try await db.sql.raw("""
                UPDATE roster_runs SET summary = \(bind: String(decoding: try JSONEncoder().encode(plan), as: UTF8.self)) WHERE id = \(bind: id)
                """).run()
            let detail: [String: String] = ["added": String(plan.added.count), "changed": String(plan.changed.count),
                                            "archived": String(plan.leaving.count), "refused": String(plan.refused.count)]
            try await ActivityLog.record(.init(type: .rosterSynced, detail: .rosterSynced(added: plan.added.count, changed: plan.changed.count,
                                                                                          left: plan.leaving.count)),
                                         library: scope.library, at: scope.now, on: db)
            try await AuditLog.record(.init(action: .rosterApplied, target: row.file_name, detail: detail), in: scope, on: db)
            return plan
        }
        var dto = row.dto
        (dto.appliedAt, dto.appliedBy, dto.plan) = (scope.now, by, plan)
        return dto
    }

    /// The plan's writes: members added, changed (back from the archive too) and archived.
    static func write(_ writes: [PlannedWrite], in scope: Scope, on db: any Database) async throws {
        let library = scope.libraryID
        var archived: [UUID] = []
        for w in writes {
            switch w {
            case .add(let card, let s):
                let member = Member()
                member.$library.id = library
                try Members.apply(MemberPatch(cardId: card, firstName: s.firstName, lastName: s.lastName, grade: s.grade ?? "", email: s.email ?? "",
                                              notes: nil), to: member, creating: true)
                member.rosterID = s.id
                member.guardianEmail = s.guardianEmail
                try await member.create(on: db)
            case .update(let id, let s):
                guard let member = try await Member.query(on: db).filter(\.$id == id).filter(\.$library.$id == library).first() else { continue }
                try Members.apply(MemberPatch(cardId: nil, firstName: s.firstName, lastName: s.lastName, grade: s.grade ?? "", email: s.email ?? "",
                                              notes: nil), to: member, creating: false)
                (member.rosterID, member.guardianEmail, member.archivedAt) = (s.id, s.guardianEmail, nil)
                try await member.save(on: db)
            case .archive(let id):
                archived.append(id)
            }
        }
        try await Members.archive(archived, in: scope, on: db)
    }
}
