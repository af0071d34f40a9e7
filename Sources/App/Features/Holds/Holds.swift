import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Vapor

/// Holds: a queue per title. Staff place a hold for a member; a copy that comes back
/// (or is on the shelf when the first in line places theirs) is set aside for the first member in
/// line who is not suspended, with a deadline to collect it; lending it to that member fulfils the
/// hold, lending it to someone else needs the librarian's word (`CheckoutInput.lendHeld`) and puts
/// the hold back first in line; an uncollected hold expires (`RecurringJob.expireHolds`) and the copy
/// passes on. A copy set aside stays `available` in `copies`: the hold's `copy_id` is what sets it aside.
enum Holds {
    static func place(_ input: HoldInput, in scope: Scope) async throws -> HoldDTO {
        let libraryID = scope.libraryID
        let member = try await Circulation.resolveMember(CheckoutInput(memberId: input.memberId, cardId: input.cardId), libraryID: libraryID,
                                                         on: scope.db)
        try member.refuseIfLeft()
        struct TitleRow: Decodable { var id: UUID; var title: String; var wishlist: Bool }
        guard let title = try await scope.db.sql.raw("""
            SELECT id, title, wishlist FROM titles WHERE id = \(bind: input.titleId) AND library_no = \(LibraryNumber.of(libraryID))
            """).first(decoding: TitleRow.self) else { throw CatalogError.titleNotFound }
        guard !title.wishlist else { throw CirculationError.titleIsWishlistItem }
        if try await scope.db.sql.raw("""
            SELECT 1 AS n FROM loans WHERE title_id = \(bind: title.id) AND member_id = \(bind: member.id) AND returned_at IS NULL
            """).first() != nil {
            throw HoldError.alreadyBorrowing(member: member.name)
        }
        let now = scope.now
        let id = try await scope.gate.transaction(on: scope.db) { db -> UUID in
            // A member's own holds are bounded (the library's setting), so nobody empties the shelf by holding it all.
            let allowed = try await Self.count(db, "SELECT max_holds_per_member AS n FROM libraries WHERE id = \(bind: libraryID)")
            let own = try await Self.count(db, "SELECT COUNT(*) AS n FROM holds WHERE member_id = \(bind: member.id) AND state IN ('waiting', 'ready')")
            guard own < allowed else { throw HoldError.tooManyHolds(max: allowed) }
            let active = try await Self.count(db, "SELECT COUNT(*) AS n FROM holds WHERE title_id = \(bind: title.id) AND state IN ('waiting', 'ready')")
            guard active < Limits.holdsPerTitle else { throw HoldError.queueFull(max: Limits.holdsPerTitle) }
            let rank = try await Self.count(db, "SELECT COALESCE(MAX(rank), 0) AS n FROM holds WHERE title_id = \(bind: title.id)") + 1
            let id = UUID()
            let inserted = try await db.sql.raw("""
                INSERT INTO holds (id, library_id, title_id, member_id, rank, state, suspended, placed_by, created_at)
                VALUES (\(bind: id), \(bind: libraryID), \(bind: title.id), \(bind: member.id), \(bind: rank), 'waiting', \(bind: false),
                        \(bind: scope.library.user.username), \(bind: now))
                ON CONFLICT (title_id, member_id) WHERE state IN ('waiting', 'ready') DO NOTHING
                RETURNING id
                """).first()
            guard inserted != nil else { throw HoldError.alreadyWaiting(member: member.name) }
            try await ActivityLog.record(.init(type: .holdPlaced, titleID: title.id, title: title.title, memberCardID: member.cardID),
                                         library: scope.library, at: now, on: db)
            // A copy on the shelf that nobody has been given: set aside for the first in line at once.
            if let free = try await freeCopy(title: title.id, on: db) {
                _ = try await setAside(copy: free, title: title.id, in: scope, on: db)
            }
            return id
        }
        return try await hold(id, libraryID: libraryID, on: scope.db)
    }

    /// A copy of `title` on the shelf and set aside for nobody.
    static func freeCopy(title: UUID, on db: any Database) async throws -> UUID? {
        try await db.sql.raw("""
            SELECT c.id FROM copies c WHERE c.title_id = \(bind: title) AND c.status = \(bind: CopyStatus.available.rawValue)
              AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.copy_id = c.id AND h.state = 'ready')
            ORDER BY c.copy_number LIMIT 1
            """).first()?.decode(column: "id", as: UUID.self)
    }

    /// Sets `copy` (on the shelf, set aside for nobody) aside for the first member in line for `title`
    /// who is not suspended, until the end of the day `hold_pickup_days` from now. Nil when nobody waits.
    static func setAside(copy: UUID, title: UUID, in scope: Scope, on db: any Database) async throws -> HeldForDTO? {
        struct Next: Decodable { var id: UUID; var member_id: UUID; var card_id: String; var first_name: String; var last_name: String }
        guard let next = try await db.sql.raw("""
            SELECT h.id, h.member_id, m.card_id, m.first_name, m.last_name FROM holds h JOIN members m ON m.id = h.member_id
            WHERE h.title_id = \(bind: title) AND h.state = 'waiting' AND h.suspended = \(bind: false)
            ORDER BY h.rank LIMIT 1
            """).first(decoding: Next.self) else { return nil }
        let now = scope.moment()
        let days = try await count(db, "SELECT hold_pickup_days AS n FROM libraries WHERE id = \(bind: scope.libraryID)")
        let policy = scope.library.policy
        let day = policy.calendar.date(byAdding: .day, value: max(days, 1), to: policy.calendar.startOfDay(for: now))!
        let pickupBy = policy.endOfDay(policy.calendar.dateComponents([.year, .month, .day], from: day))!
        try await db.sql.raw("""
            UPDATE holds SET state = 'ready', copy_id = \(bind: copy), ready_at = \(bind: now), pickup_by = \(bind: pickupBy)
            WHERE id = \(bind: next.id) AND state = 'waiting'
            """).run()
        try await Reminders.queueHoldReady(member: next.member_id, title: title, until: pickupBy, library: scope.libraryID,
                                           actor: scope.library.user.username, now: now, on: db)
        return HeldForDTO(holdId: next.id, memberId: next.member_id, cardId: next.card_id,
                          memberName: Member.fullName(first: next.first_name, last: next.last_name), pickupBy: pickupBy)
    }

    /// A ready hold stops holding its copy (cancelled, suspended, expired, or its copy lent to someone
    /// else): the copy passes to the next in line, if any.
    static func passOn(copy: UUID?, title: UUID, in scope: Scope, on db: any Database) async throws {
        guard let copy, try await freeCopy(title: title, on: db) == copy else { return }
        _ = try await setAside(copy: copy, title: title, in: scope, on: db)
    }

    /// Sets `copy` aside for the first in line for `title` if it is on the shelf and set aside for nobody
    /// (a sync push's returns, looked at once at the push's end).
    static func offer(copy: UUID, title: UUID, in scope: Scope, on db: any Database) async throws {
        guard try await db.sql.raw("""
            SELECT 1 AS n FROM copies c WHERE c.id = \(bind: copy) AND c.status = \(bind: CopyStatus.available.rawValue)
              AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.copy_id = c.id AND h.state = 'ready')
            """).first() != nil else { return }
        _ = try await setAside(copy: copy, title: title, in: scope, on: db)
    }

    /// Cancels an active hold (the staff's or the member's cancel, or the member's deletion); a copy set
    /// aside for it passes to the next in line.
    static func close(_ id: UUID, state: String, copy: UUID?, title: UUID, in scope: Scope, on db: any Database) async throws {
        try await db.sql.raw("UPDATE holds SET state = 'cancelled', closed_at = \(bind: scope.now), copy_id = NULL WHERE id = \(bind: id)").run()
        if state == HoldState.ready.rawValue { try await passOn(copy: copy, title: title, in: scope, on: db) }
    }

    static func cancel(_ id: UUID, in scope: Scope) async throws -> HoldDTO {
        let now = scope.now
        try await scope.gate.transaction(on: scope.db) { db in
            let hold = try await active(id, libraryID: scope.libraryID, on: db)
            try await ActivityLog.record(.init(type: .holdCancelled, titleID: hold.title_id, title: hold.title, memberCardID: hold.card_id),
                                         library: scope.library, at: now, on: db)
            try await close(id, state: hold.state, copy: hold.copy_id, title: hold.title_id, in: scope, on: db)
        }
        return try await hold(id, libraryID: scope.libraryID, on: scope.db)
    }

    /// Suspends or resumes a hold, or moves it one place in its title's queue.
    static func update(_ id: UUID, _ patch: HoldPatch, in scope: Scope) async throws -> HoldDTO {
        try await scope.gate.transaction(on: scope.db) { db in
            let hold = try await active(id, libraryID: scope.libraryID, on: db)
            if let suspended = patch.suspended, suspended != hold.suspended {
                if suspended, hold.state == HoldState.ready.rawValue {
                    // A suspended member is not waiting for the copy: it goes to the next in line.
                    try await db.sql.raw("""
                        UPDATE holds SET suspended = \(bind: true), state = 'waiting', copy_id = NULL, ready_at = NULL, pickup_by = NULL
                        WHERE id = \(bind: id)
                        """).run()
                    try await passOn(copy: hold.copy_id, title: hold.title_id, in: scope, on: db)
                } else {
                    try await db.sql.raw("UPDATE holds SET suspended = \(bind: suspended) WHERE id = \(bind: id)").run()
                    if !suspended, let free = try await freeCopy(title: hold.title_id, on: db) {
                        _ = try await setAside(copy: free, title: hold.title_id, in: scope, on: db)
                    }
                }
            }
            if let move = patch.move {
                let neighbour = try await db.sql.raw("""
                    SELECT id, rank FROM holds WHERE title_id = \(bind: hold.title_id) AND state IN ('waiting', 'ready')
                      AND rank \(unsafeRaw: move == .up ? "<" : ">") \(bind: hold.rank)
                    ORDER BY rank \(unsafeRaw: move == .up ? "DESC" : "ASC") LIMIT 1
                    """).first()
                if let neighbour {
                    let otherID = try neighbour.decode(column: "id", as: UUID.self)
                    let otherRank = try neighbour.decode(column: "rank", as: Int.self)
                    try await db.sql.raw("UPDATE holds SET rank = \(bind: otherRank) WHERE id = \(bind: id)").run()
                    try await db.sql.raw("UPDATE holds SET rank = \(bind: hold.rank) WHERE id = \(bind: otherID)").run()
                }
            }
        }
        return try await hold(id, libraryID: scope.libraryID, on: scope.db)
    }

    /// The open holds of `members` end (a copy set aside passes to the next in line), inside the
    /// caller's transaction: a member deleted, archived or erased holds nothing.
    static func closeOpen(members: [UUID], in scope: Scope, on db: any Database) async throws {
        struct OpenHold: Decodable { var id: UUID; var title_id: UUID; var copy_id: UUID?; var state: String }
        for chunk in members.chunked(500) {
            for hold in try await db.sql.raw("""
                SELECT id, title_id, copy_id, state FROM holds WHERE member_id IN (\(binds: chunk)) AND state IN ('waiting', 'ready')
                """).all(decoding: OpenHold.self) {
                try await close(hold.id, state: hold.state, copy: hold.copy_id, title: hold.title_id, in: scope, on: db)
            }
        }
    }

    /// Ready holds past their pickup day end as expired; each copy passes to the next in line.
    static func expire(library: UUID, app: Application) async throws -> Int {
        let now = app.clock.now()
        guard let ctx = try await LibraryContext.server(library, on: app.db) else { return 0 }
        let scope = Scope(library: ctx, now: now, gate: app.writeGate, db: app.db, clock: app.clock)
        return try await app.writeGate.transaction(on: app.db) { db in
            let late = try await db.sql.raw("""
                SELECT h.id, h.title_id, h.copy_id, h.rank, h.suspended, h.state, t.title, m.card_id FROM holds h
                JOIN titles t ON t.id = h.title_id JOIN members m ON m.id = h.member_id
                WHERE h.library_id = \(bind: library) AND h.state = 'ready' AND h.pickup_by < \(bind: now)
                """).all(decoding: ActiveHold.self)
            for hold in late {
                try await db.sql.raw("""
                    UPDATE holds SET state = 'expired', closed_at = \(bind: now), copy_id = NULL WHERE id = \(bind: hold.id)
                    """).run()
                try await ActivityLog.record(.init(type: .holdExpired, titleID: hold.title_id, title: hold.title, memberCardID: hold.card_id),
                                             library: ctx, at: now, on: db)
                try await passOn(copy: hold.copy_id, title: hold.title_id, in: scope, on: db)
            }
            return late.count
        }
    }

    // MARK: - Reading

    struct ActiveHold: Decodable {
        var id: UUID; var title_id: UUID; var copy_id: UUID?; var rank: Int; var suspended: Bool; var state: String
        var title: String; var card_id: String
    }

    static func active(_ id: UUID, libraryID: UUID, on db: any Database) async throws -> ActiveHold {
        guard let hold = try await db.sql.raw("""
            SELECT h.id, h.title_id, h.copy_id, h.rank, h.suspended, h.state, t.title, m.card_id FROM holds h
            JOIN titles t ON t.id = h.title_id JOIN members m ON m.id = h.member_id
            WHERE h.id = \(bind: id) AND h.library_id = \(bind: libraryID)
            """).first(decoding: ActiveHold.self) else { throw HoldError.notFound }
        guard HoldState.active.map(\.rawValue).contains(hold.state) else { throw HoldError.ended }
        return hold
    }

    static func hold(_ id: UUID, libraryID: UUID, on db: any Database) async throws -> HoldDTO {
        guard let found = try await list(libraryID: libraryID, where: "h.id = \(bind: id)", on: db).first else { throw HoldError.notFound }
        return found
    }

    /// A title's queue: its active holds, first in line first.
    static func queue(title: UUID, libraryID: UUID, on db: any Database) async throws -> [HoldDTO] {
        try await list(libraryID: libraryID, where: "h.title_id = \(bind: title) AND h.state IN ('waiting', 'ready')", on: db)
    }

    /// A member's active holds.
    static func ofMember(_ member: UUID, libraryID: UUID, on db: any Database) async throws -> [HoldDTO] {
        try await list(libraryID: libraryID, where: "h.member_id = \(bind: member) AND h.state IN ('waiting', 'ready')", on: db)
    }

    /// The library's active holds: the ones ready to collect first (soonest deadline first), then those waiting.
    static func library(_ libraryID: UUID, state: HoldState?, limit: Int, offset: Int, on db: any Database) async throws -> [HoldDTO] {
        let condition: SQLQueryString = state.map { "h.state = \(bind: $0.rawValue)" } ?? "h.state IN ('waiting', 'ready')"
        return try await list(libraryID: libraryID, where: condition, order: " ORDER BY h.state, h.pickup_by, t.sort_key, h.rank",
                              limit: limit, offset: offset, on: db)
    }

    private static func list(libraryID: UUID, where condition: SQLQueryString, order: SQLQueryString = " ORDER BY h.rank",
                             limit: Int = Limits.holdsPerTitle, offset: Int = 0, on db: any Database) async throws -> [HoldDTO] {
        struct Row: Decodable {
            var id: UUID; var title_id: UUID; var title: String; var member_id: UUID; var card_id: String; var first_name: String
            var last_name: String; var state: String; var suspended: Bool; var barcode: String?; var ready_at: Date?; var pickup_by: Date?
            var created_at: Date; var position: Int?
        }
        let rows = try await db.sql.raw("""
            SELECT h.id, h.title_id, t.title, h.member_id, m.card_id, m.first_name, m.last_name, h.state, h.suspended, c.barcode,
                   h.ready_at, h.pickup_by, h.created_at,
                   CASE WHEN h.state IN ('waiting', 'ready') THEN
                     (SELECT COUNT(*) FROM holds o WHERE o.title_id = h.title_id AND o.state IN ('waiting', 'ready') AND o.rank <= h.rank)
                   END AS position
            FROM holds h JOIN titles t ON t.id = h.title_id JOIN members m ON m.id = h.member_id LEFT JOIN copies c ON c.id = h.copy_id
            WHERE h.library_id = \(bind: libraryID) AND \(unsafeRaw: "")
            """ + " " + condition + order + " LIMIT \(literal: limit) OFFSET \(literal: offset)").all(decoding: Row.self)
        return rows.map {
            HoldDTO(id: $0.id, titleId: $0.title_id, title: $0.title, memberId: $0.member_id, cardId: $0.card_id,
                    memberName: Member.fullName(first: $0.first_name, last: $0.last_name), state: HoldState(rawValue: $0.state) ?? .waiting,
                    position: $0.position, suspended: $0.suspended, copyBarcode: $0.barcode, readyAt: $0.ready_at, pickupBy: $0.pickup_by,
                    createdAt: $0.created_at)
        }
    }

    /// Members waiting for `title` other than `member` (not suspended): what a renewal and the lending
    /// preview weigh.
    static func waitingOthers(title: UUID, member: UUID?, on db: any Database) async throws -> Int {
        try await count(db, """
            SELECT COUNT(*) AS n FROM holds WHERE title_id = \(bind: title) AND state = 'waiting' AND suspended = \(bind: false)
              AND member_id <> \(bind: member ?? UUID())
            """)
    }

    static func count(_ db: any Database, _ query: SQLQueryString) async throws -> Int {
        try await TitleQuery.count(db.sql, query)
    }
}
