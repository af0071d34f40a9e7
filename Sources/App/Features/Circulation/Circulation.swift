import Fluent
import FluentSQL
import FluentSQLiteDriver
import Foundation
import NIOHTTP1
import ShelfmarkCore
import SQLKit

/// Lending and returning.
enum Circulation {
    /// A copy is claimed by one conditional UPDATE, so two check-outs can never take the same
    /// copy. On PostgreSQL the candidate row is locked with SKIP LOCKED, so concurrent borrowers of
    /// the same title take different copies instead of queueing on one; on SQLite the write gate
    /// runs one writer at a time.
    static func checkout(_ input: CheckoutInput, in scope: Scope) async throws -> LoanDTO {
        let (library, now, gate, db) = (scope.library, scope.now, scope.gate, scope.db)
        let resolved = try await resolve(input, in: scope)
        let (member, target, dueAt, holds) = (resolved.member, resolved.target, resolved.dueAt, resolved.holds)
        let title = target.title
        // Refusals below are thrown before the first write, as group commit requires.
        return try await gate.batchedTransaction(on: db) { db in
            let claimed: (any SQLRow)?
            if let copyID = target.copyID {
                claimed = try await db.sql.raw("""
                    UPDATE copies SET status = \(bind: CopyStatus.onLoan.rawValue), updated_at = \(bind: now), last_lent_at = \(bind: now)
                    WHERE id = \(bind: copyID) AND status = \(bind: CopyStatus.available.rawValue)
                    RETURNING id, barcode, location
                    """).first()
            } else {
                let lock = Dialect(db).skipLocked
                claimed = try await db.sql.raw("UPDATE copies SET status = \(bind: CopyStatus.onLoan.rawValue), updated_at = \(bind: now), last_lent_at = \(bind: now) WHERE id = "
                    + claimableCopy(title: title.id, holds: holds, lock: lock)
                    + " AND status = \(bind: CopyStatus.available.rawValue) RETURNING id, barcode, location").first()
            }
            guard let claimed else {
                if target.copyID != nil {
                    throw LoanError.copyNotAvailable(title: title.title)
                }
                throw CirculationError.noCopyAvailable(title: title.title)
            }
            let copyID = try claimed.decode(column: "id", as: UUID.self)
            let barcode = try claimed.decode(column: "barcode", as: String.self)
            let location = try claimed.decode(column: "location", as: String?.self)
            // The loan starts now, read after the claim (a return of the same copy has committed before the
            // claim could see the copy on the shelf), and never before the copy's last loan ended, whatever
            // the clocks of several instances say: so a copy's loans never overlap in time. The insert reads
            // that end itself: its statement begins after the claim.
            let (loanID, now) = (UUID(), scope.moment())
            let inserted = try await db.sql.raw("""
                INSERT INTO loans (id, library_no, copy_id, title_id, member_id, title_text, member_card_id, member_name,
                                   checked_out_at, due_at, returned_at, renewals, checked_out_by, member_grade)
                SELECT \(bind: loanID), \(LibraryNumber.of(library.libraryID)), \(bind: copyID), \(bind: title.id), \(bind: member.id),
                       \(bind: title.title), \(bind: member.cardID), \(bind: member.name),
                       CASE WHEN ended.r >= \(bind: now) THEN \(unsafeRaw: Dialect(db).millisecondAfter("ended.r")) ELSE \(bind: now) END,
                       \(bind: dueAt), NULL, 0, \(bind: library.user.username), \(bind: member.grade)
                FROM (SELECT MAX(returned_at) AS r FROM loans WHERE copy_id = \(bind: copyID)) ended
                RETURNING checked_out_at
                """).first()
            // The moment bound, unless the insert moved it past the copy's last return: a moment read back
            // can differ from the one bound in its last bits, and the log and the answer say the one bound.
            let stored = try inserted?.decode(column: "checked_out_at", as: Date.self)
            let started = stored.map { $0.timeIntervalSince(now) > 0.0005 ? $0 : now } ?? now
            if let batch = scope.batch, batch.hasNoHolds(title.id) {
                batch.lent(copy: copyID, to: member.id)   // looked at once for the whole push, at its end
            } else {
                try await settleHolds(holds, lent: copyID, named: target.copyID != nil, title: title, member: member, in: scope, at: started, on: db)
            }
            var tally = LoanTallies.Changes()
            tally.lent(at: started, calendar: library.policy.calendar, title: title.id, card: member.cardID, grade: member.grade, location: location)
            try await LoanTallies.add(tally, in: scope, on: db)
            // The title's loan counts ("most borrowed", on loan) are kept by triggers on the loans
            // (`AddOpenLoanCounts`); a sync push writes its log entries once for all its mutations, at its end.
            let entry = ActivityLog.Entry(type: .checkout, titleID: title.id, title: title.title, author: title.authors.joined(separator: ", "),
                                          memberCardID: member.cardID, detail: .lent(barcode: barcode, due: dueAt))
            if let batch = scope.batch {
                batch.log(entry, at: started)
            } else {
                try await ActivityLog.record(entry, library: library, at: started, on: db)
            }
            return LoanDTO(id: loanID, titleId: title.id, title: title.title, copyId: copyID, copyBarcode: barcode, memberId: member.id,
                           memberCardId: member.cardID, memberName: member.name, checkedOutAt: started, dueAt: dueAt, returnedAt: nil,
                           renewals: 0, overdue: false, daysOverdue: 0)
        }
    }

    /// Closes the loan (never deletes it) and puts the copy back on the shelf.
    static func giveBack(_ input: ReturnInput, in scope: Scope) async throws -> LoanDTO {
        let (library, gate, db) = (scope.library, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            // The open loan closed and read in one statement: returned when it is closed, not when the
            // request arrived, and never before it began.
            let moment = scope.moment()
            let closing: SQLQueryString = "UPDATE loans SET returned_at = \(unsafeRaw: Dialect(db).greatest)(checked_out_at, \(bind: moment)) WHERE "
            let closed: any SQLRow
            if let loanID = input.loanId {
                guard let row = try await db.sql.raw(closing + "id = \(bind: loanID) AND \(LibraryNumber.rows(of: "loans", library.libraryID)) AND returned_at IS NULL RETURNING *")
                    .first() else {
                    guard try await db.sql.raw("SELECT 1 AS n FROM loans WHERE id = \(bind: loanID) AND \(LibraryNumber.rows(of: "loans", library.libraryID))")
                        .first() != nil else { throw LoanError.loanNotFound }
                    throw CirculationError.loanAlreadyReturned
                }
                closed = row
            } else if let barcode = try Check.optional(input.copyBarcode, field: "copyBarcode", max: 64) {
                let known = scope.batch?.copy(barcode: barcode)?.copyID   // a sync push read it already
                // The barcode as scanned, through the index, in the statement that closes the loan; only a
                // miss looks for the copy (the case folded) to say why, or to close its loan after all.
                let copy: SQLQueryString = known.map { "copy_id = \(bind: $0)" }
                    ?? "copy_id = (SELECT id FROM copies WHERE library_no = \(LibraryNumber.of(library.libraryID)) AND barcode = \(bind: barcode))"
                if let row = try await db.sql.raw(closing + copy + " AND returned_at IS NULL RETURNING *").first() {
                    closed = row
                } else {
                    // A copy the push knew, or one with this barcode as scanned, is simply not on loan.
                    guard known == nil else { throw LoanError.notOnLoan(barcode: barcode) }
                    guard let copyID = try await Lookup.copy(foldingCase: barcode, library: library.libraryID, on: db) else {
                        throw LoanError.noCopyWithBarcode(barcode)
                    }
                    guard let row = try await db.sql.raw(closing + "copy_id = \(bind: copyID) AND returned_at IS NULL RETURNING *").first() else {
                        throw LoanError.notOnLoan(barcode: barcode)
                    }
                    closed = row
                }
            } else {
                throw LoanError.sayWhichLoan
            }
            let loan = try closed.decode(fluentModel: Loan.self)
            // As the statement set it, not as read back (a moment read back can differ in its last bits).
            let now = max(moment, loan.checkedOutAt)
            loan.returnedAt = now
            var barcode: String?, location: String?
            if let copyID = loan.$copy.id {
                let back = try await db.sql.raw("""
                    UPDATE copies SET status = \(bind: CopyStatus.available.rawValue), updated_at = \(bind: now)
                    WHERE id = \(bind: copyID) AND status = \(bind: CopyStatus.onLoan.rawValue) RETURNING barcode, location
                    """).first()
                barcode = try back?.decode(column: "barcode", as: String.self)
                location = back != nil ? try back?.decode(column: "location", as: String?.self)
                    : try await db.sql.raw("SELECT location FROM copies WHERE id = \(bind: copyID)").first()?.decode(column: "location", as: String?.self)
            }
            var tally = LoanTallies.Changes()
            tally.returned(lentAt: loan.checkedOutAt, at: now, due: loan.dueAt, calendar: library.policy.calendar, grade: loan.memberGrade,
                           location: location)
            try await LoanTallies.add(tally, in: scope, on: db)
            // A member waiting for the title gets this copy put aside.
            var heldFor: HeldForDTO?
            if barcode != nil, let copyID = loan.$copy.id, let titleID = loan.$title.id {
                if let batch = scope.batch, batch.hasNoHolds(titleID) {
                    batch.shelved(copy: copyID, title: titleID)   // looked at once for the whole push, at its end
                } else {
                    heldFor = try await Holds.setAside(copy: copyID, title: titleID, in: scope, on: db)
                }
            }
            let overdueDays = daysOverdue(dueAt: loan.dueAt, now: now)
            let entry = ActivityLog.Entry(type: .returnBook, titleID: loan.$title.id, title: loan.titleText, memberCardID: loan.memberCardID,
                                          detail: overdueDays > 0 ? .overdue(days: overdueDays) : nil)
            if let batch = scope.batch {
                batch.log(entry, at: now)
                batch.returned(member: loan.$member.id)
            } else {
                try await ActivityLog.record(entry, library: library, at: now, on: db)
            }
            // A late return is charged, or suspends the member, as the library's fine policy says.
            try await Fines.lateReturn(loanID: loan.id!, member: loan.$member.id, title: loan.titleText, card: loan.memberCardID,
                                       overdueDays: overdueDays, in: scope, at: now, on: db)
            var dto = loan.dto(now: now, barcode: barcode)
            dto.heldFor = heldFor
            return dto
        }
    }

    /// Extends a loan by the library's loan period from its current due date, up to the renewal limit.
    static func renew(_ loanID: UUID, in scope: Scope) async throws -> LoanDTO {
        let (library, gate, db) = (scope.library, scope.gate, scope.db)
        return try await gate.transaction(on: db) { db in
            guard let loan = try await Loan.query(on: db).filter(\.$id == loanID).inLibrary(library.libraryID).first() else {
                throw LoanError.loanNotFound
            }
            guard loan.returnedAt == nil else { throw CirculationError.loanAlreadyReturned }
            // Returned when the loan is closed, not when the request arrived; never before it began.
            let now = max(scope.moment(), loan.checkedOutAt)
            // The library's renewal policy, and whether others wait with no other copy on the shelf.
            struct Settings: Decodable { var renewal_days: Int?; var renew_window_days: Int? }
            let settings = try await db.sql.raw("SELECT renewal_days, renew_window_days FROM libraries WHERE id = \(bind: library.libraryID)")
                .first(decoding: Settings.self)
            var policy = library.policy
            (policy.renewalDays, policy.renewWindowDays) = (settings?.renewal_days, settings?.renew_window_days)
            // A member who may not borrow (suspended, or owing the library's limit) renews nothing either.
            if let member = loan.$member.id { try await Fines.refuseIfBlocked(member: member, libraryID: library.libraryID, now: now, on: db) }
            var waiting = 0
            if let titleID = loan.$title.id, try await Holds.freeCopy(title: titleID, on: db) == nil {
                waiting = try await Holds.waitingOthers(title: titleID, member: loan.$member.id, on: db)
            }
            loan.dueAt = try policy.renewal(dueAt: loan.dueAt, renewals: loan.renewals, now: now, waiting: waiting)
            loan.renewals += 1
            try await loan.save(on: db)
            var location: String?
            if let copy = loan.$copy.id {
                location = try await db.sql.raw("SELECT location FROM copies WHERE id = \(bind: copy)").first()?.decode(column: "location", as: String?.self)
            }
            var tally = LoanTallies.Changes()
            tally.renewed(lentAt: loan.checkedOutAt, calendar: library.policy.calendar, grade: loan.memberGrade, location: location)
            try await LoanTallies.add(tally, in: scope, on: db)
            try await ActivityLog.record(.init(type: .renew, titleID: loan.$title.id, title: loan.titleText, memberCardID: loan.memberCardID,
                                               detail: .renewed(due: loan.dueAt)),
                                         library: library, at: now, on: db)
            return loan.dto(now: now)
        }
    }

    /// Renews every open loan of `member`, each on its own; what each answered.
    static func renewAll(member: UUID, in scope: Scope) async throws -> [(loanID: UUID, title: String, loan: LoanDTO?, error: (any Error)?)] {
        struct Open: Decodable { var id: UUID; var title_text: String }
        let open = try await scope.db.sql.raw("""
            SELECT id, title_text FROM loans WHERE \(LibraryNumber.rows(of: "loans", scope.libraryID)) AND member_id = \(bind: member) AND returned_at IS NULL
            ORDER BY due_at, id
            """).all(decoding: Open.self)
        if open.isEmpty {
            let known = try await scope.db.sql.raw("SELECT 1 AS n FROM members WHERE id = \(bind: member) AND library_id = \(bind: scope.libraryID)").first()
            guard known != nil else { throw LoanError.memberIDNotFound }
        }
        var outcomes: [(loanID: UUID, title: String, loan: LoanDTO?, error: (any Error)?)] = []
        for loan in open {
            do {
                outcomes.append((loan.id, loan.title_text, try await renew(loan.id, in: scope), nil))
            } catch let error where error.answered.status.code < 500 {
                outcomes.append((loan.id, loan.title_text, nil, error))
            }
        }
        return outcomes
    }

    /// Active loans by due date; `overdueOnly` narrows to those past due.
    /// One statement with the copies' barcodes joined, decoded by position on SQLite (Fluent's models
    /// and a second query for the barcodes were most of the loans page's time at 3,000 loans).
    static func activeLoans(libraryID: UUID, overdueOnly: Bool, memberID: UUID? = nil, now: Date, limit: Int, offset: Int, on db: any Database) async throws -> [LoanDTO] {
        // The page's ids are taken first from the open loans' index (library, due, id) alone, then their
        // rows and copies, so a late page does not read or join every loan it skips.
        var page = "SELECT id FROM loans WHERE library_no = (SELECT no FROM libraries WHERE id = ?1) AND returned_at IS NULL"
        if overdueOnly { page += " AND due_at < ?2" }
        if memberID != nil { page += " AND member_id = ?3" }
        page += " ORDER BY due_at, id LIMIT \(max(0, limit)) OFFSET \(max(0, offset))"
        let sql = """
            SELECT l.id, l.title_id, l.title_text, l.copy_id, c.barcode, l.member_id, l.member_card_id, l.member_name, l.checked_out_at,
                   l.due_at, l.renewals
            FROM (\(page)) p JOIN loans l ON l.id = p.id LEFT JOIN copies c ON c.id = l.copy_id
            ORDER BY l.due_at, l.id
            """
        @Sendable func loan(id: UUID, titleID: UUID?, title: String, copyID: UUID?, barcode: String?, memberID: UUID?, card: String, name: String,
                            out: Date, due: Date, renewals: Int) -> LoanDTO {
            LoanDTO(id: id, titleId: titleID, title: title, copyId: copyID, copyBarcode: barcode, memberId: memberID, memberCardId: card,
                    memberName: name, checkedOutAt: out, dueAt: due, returnedAt: nil, renewals: renewals,
                    overdue: isOverdue(dueAt: due, returnedAt: nil, now: now), daysOverdue: daysOverdue(dueAt: due, now: now))
        }
        let statement = sql
        if let sqlite = db as? any SQLiteDatabase {
            // As many values as the highest ?n the statement uses.
            let binds = Array(([libraryID.sqliteData!, .float(now.timeIntervalSince1970), memberID?.sqliteData ?? .null] as [SQLiteData])
                .prefix(memberID != nil ? 3 : (overdueOnly ? 2 : 1)))
            return try await sqlite.withConnection { connection in
                try await connection.rows(statement, binds) { row in
                    let c = row.columns
                    func uuid(_ i: Int) -> UUID? { UUID(sqliteData: c[i].data) }
                    guard let id = uuid(0), let out = Date(sqliteData: c[8].data), let due = Date(sqliteData: c[9].data) else {
                        throw AppError(status: .internalServerError, code: "internal", message: "A loan row could not be read.")
                    }
                    return loan(id: id, titleID: uuid(1), title: c[2].data.string ?? "", copyID: uuid(3), barcode: c[4].data.string, memberID: uuid(5),
                                card: c[6].data.string ?? "", name: c[7].data.string ?? "", out: out, due: due, renewals: c[10].data.integer ?? 0)
                }
            }
        }
        return try await db.sql.raw(SQLQueryString(numbered: sql, [libraryID, now, memberID])).all().map { row in
            loan(id: try row.decode(column: "id", as: UUID.self), titleID: try row.decode(column: "title_id", as: UUID?.self),
                 title: try row.decode(column: "title_text", as: String.self), copyID: try row.decode(column: "copy_id", as: UUID?.self),
                 barcode: try row.decode(column: "barcode", as: String?.self), memberID: try row.decode(column: "member_id", as: UUID?.self),
                 card: try row.decode(column: "member_card_id", as: String.self), name: try row.decode(column: "member_name", as: String.self),
                 out: try row.decode(column: "checked_out_at", as: Date.self), due: try row.decode(column: "due_at", as: Date.self),
                 renewals: try row.decode(column: "renewals", as: Int.self))
        }
    }

    /// A title's loans, newest first, returned or not: who borrowed it and when.
    static func history(titleID: UUID, libraryID: UUID, limit: Int, now: Date, on db: any Database) async throws -> [LoanDTO] {
        let loans = try await Loan.query(on: db).inLibrary(libraryID).filter(\.$title.$id == titleID)
            .sort(\.$checkedOutAt, .descending).sort(\.$id).range(0..<limit).all()
        return try await withBarcodes(loans, now: now, on: db)
    }

    static func activeLoanCount(libraryID: UUID, overdueOnly: Bool, now: Date, on db: any Database) async throws -> Int {
        var query = Loan.query(on: db).inLibrary(libraryID).filter(\.$returnedAt == nil)
        if overdueOnly { query = query.filter(\.$dueAt < now) }
        return try await query.count()
    }

    /// The open loan of the copy with this barcode (any case), with its book's cover: what the return
    /// screen confirms. Nil when no copy of the library has that barcode or it is not on loan.
    static func openLoan(barcode: String, library: UUID, now: Date, on db: any Database) async throws -> (loan: LoanDTO, coverURL: String?)? {
        guard let copyID = try await Lookup.copy(barcode: barcode, library: library, on: db),
              let open = try await Loan.query(on: db).filter(\.$copy.$id == copyID).filter(\.$returnedAt == nil).first() else { return nil }
        return try await withCover(open, now: now, on: db)
    }

    /// The library's open loan `id` with its title's cover (nil when returned or not the library's).
    static func openLoan(id: UUID, library: UUID, now: Date, on db: any Database) async throws -> (loan: LoanDTO, coverURL: String?)? {
        guard let open = try await Loan.query(on: db).filter(\.$id == id).inLibrary(library).filter(\.$returnedAt == nil).first() else {
            return nil
        }
        return try await withCover(open, now: now, on: db)
    }

    private static func withCover(_ open: Loan, now: Date, on db: any Database) async throws -> (loan: LoanDTO, coverURL: String?)? {
        guard let loan = try await withBarcodes([open], now: now, on: db).first else { return nil }
        struct Cover: Decodable { var cover_url: String? }
        guard let titleID = loan.titleId else { return (loan, nil) }
        let cover = try await db.sql.raw("SELECT cover_url FROM titles WHERE id = \(bind: titleID)").first(decoding: Cover.self)?.cover_url
        return (loan, cover)
    }

    static func withBarcodes(_ loans: [Loan], now: Date, on db: any Database) async throws -> [LoanDTO] {
        let copyIDs = loans.compactMap { $0.$copy.id }
        var barcodes: [UUID: String] = [:]
        if !copyIDs.isEmpty {
            for copy in try await Copy.query(on: db).filter(\.$id ~~ copyIDs).all() { barcodes[copy.id!] = copy.barcode }
        }
        return loans.map { $0.dto(now: now, barcode: $0.$copy.id.flatMap { barcodes[$0] }) }
    }

    /// What a check-out needs to know, read with plain SQL (this is the busiest write path).
    struct Borrower: Sendable {
        let id: UUID, cardID: String, name: String
        /// The class the loan records (the reports count by the class at lending).
        var grade: String? = nil
        /// Fines, read with the member: a suspension, and the library's limit and currency.
        var suspendedUntil: Date? = nil, blockAt: Int? = nil, currency = "EUR"
        /// When the member left the library (archived); nil while they belong to it.
        var archivedAt: Date? = nil

        /// A member who has left borrows nothing, renews nothing and holds nothing.
        func refuseIfLeft() throws {
            if let archivedAt { throw LoanError.memberLeft(name: name, on: archivedAt) }
        }
    }
    struct Book: Sendable { let id: UUID, title: String, authors: [String] }
    /// `held`: whether the title has waiting or ready holds, when the statement that read it said so.
    struct Target: Sendable { let title: Book, copyID: UUID?; var held: Bool? = nil }

    static func resolveMember(_ input: CheckoutInput, libraryID: UUID, on db: any Database) async throws -> Borrower {
        let select: SQLQueryString = """
            SELECT \(unsafeRaw: borrowerColumns) FROM members m JOIN libraries l ON l.id = m.library_id WHERE m.library_id = \(bind: libraryID) AND m.
            """
        let row: (any SQLRow)?
        if let id = input.memberId {
            row = try await db.sql.raw(select + "id = \(bind: id)").first()
            guard row != nil else {
                throw LoanError.memberIDNotFound
            }
        } else {
            guard let card = try Check.optional(input.cardId, field: "cardId", max: 64) else {
                throw LoanError.sayWhoBorrows
            }
            // The card as typed, through the index, in the statement that reads the borrower; only a miss
            // looks again with the case folded.
            if let exact = try await db.sql.raw(select + "card_id = \(bind: card)").first() {
                row = exact
            } else {
                guard let id = try await Lookup.member(foldingCase: card, library: libraryID, on: db) else { throw CirculationError.memberNotFound(card) }
                row = try await db.sql.raw(select + "id = \(bind: id)").first()
            }
        }
        return try borrower(row!)
    }

    /// What `borrower(_:)` reads, of `members m` joined with `libraries l`.
    static let borrowerColumns = "m.id, m.card_id, m.first_name, m.last_name, m.grade, m.suspended_until, m.archived_at, l.fine_block_at AS block_at, l.currency"

    /// A borrower from a row of members joined with their library (`block_at`, `currency`).
    static func borrower(_ row: any SQLRow) throws -> Borrower {
        let name = Member.fullName(first: try row.decode(column: "first_name", as: String.self),
                                   last: try row.decode(column: "last_name", as: String.self))
        return Borrower(id: try row.decode(column: "id", as: UUID.self), cardID: try row.decode(column: "card_id", as: String.self), name: name,
                        grade: try row.decode(column: "grade", as: String?.self),
                        suspendedUntil: try row.decode(column: "suspended_until", as: Date?.self),
                        blockAt: try row.decode(column: "block_at", as: Int?.self), currency: try row.decode(column: "currency", as: String.self),
                        archivedAt: try row.decode(column: "archived_at", as: Date?.self))
    }

    static func resolveBook(_ input: CheckoutInput, libraryID: UUID, on db: any Database) async throws -> Target {
        // Whether anyone holds the title, in the statement that reads it: most titles have no holds, and
        // the check-out then asks nothing more about them (`holdContext`).
        let columns: SQLQueryString = """
            t.id, t.title, t.authors, t.wishlist, EXISTS (SELECT 1 FROM holds h WHERE h.title_id = t.id AND h.state IN ('waiting', 'ready')) AS held
            """
        func book(_ row: any SQLRow) throws -> Book {
            Book(id: try row.decode(column: "id", as: UUID.self), title: try row.decode(column: "title", as: String.self),
                 authors: try row.decode(column: "authors", as: [String].self))
        }
        if let barcode = try Check.optional(input.copyBarcode, field: "copyBarcode", max: 64) {
            let select: SQLQueryString = "SELECT c.id AS copy_id, " + columns + " FROM copies c JOIN titles t ON t.id = c.title_id WHERE "
            // The barcode as scanned, through the index, in the statement that reads the book; only a miss
            // looks again with the case folded.
            var found = try await db.sql.raw(select + "c.library_no = \(LibraryNumber.of(libraryID)) AND c.barcode = \(bind: barcode)").first()
            if found == nil, let copyID = try await Lookup.copy(foldingCase: barcode, library: libraryID, on: db) {
                found = try await db.sql.raw(select + "c.id = \(bind: copyID)").first()
            }
            guard let row = found else { throw LoanError.noCopyWithBarcode(barcode) }
            return Target(title: try book(row), copyID: try row.decode(column: "copy_id", as: UUID.self), held: try row.decode(column: "held", as: Bool.self))
        }
        let row: any SQLRow
        if let id = input.titleId {
            guard let found = try await db.sql.raw("SELECT " + columns + " FROM titles t WHERE t.id = \(bind: id) AND t.library_no = \(LibraryNumber.of(libraryID))").first() else {
                throw CatalogError.titleNotFound
            }
            row = found
        } else if let raw = try Check.optional(input.isbn, field: "isbn", max: 40) {
            let isbn = try ISBN(raw).isbn13
            guard let found = try await db.sql.raw("SELECT " + columns + " FROM titles t WHERE t.library_no = \(LibraryNumber.of(libraryID)) AND t.isbn13 = \(bind: isbn)").first() else {
                throw LoanError.noTitleWithISBN(isbn)
            }
            row = found
        } else {
            throw LoanError.sayWhichBook
        }
        if try row.decode(column: "wishlist", as: Bool.self) { throw CirculationError.titleIsWishlistItem }
        return Target(title: try book(row), copyID: nil, held: try row.decode(column: "held", as: Bool.self))
    }
}
