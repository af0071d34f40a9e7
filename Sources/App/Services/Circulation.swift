import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// Lending and returning (B2–B5, B7).
enum Circulation {
    /// B7: a copy is claimed by one conditional UPDATE, so two check-outs can never take the same
    /// copy. On PostgreSQL the candidate row is locked with SKIP LOCKED, so concurrent borrowers of
    /// the same title take different copies instead of queueing on one; on SQLite the write gate
    /// runs one writer at a time.
    static func checkout(_ input: CheckoutInput, library: LibraryContext, now: Date, gate: WriteGate, on db: any Database) async throws -> LoanDTO {
        let member = try await resolveMember(input, libraryID: library.libraryID, on: db)
        let target = try await resolveBook(input, libraryID: library.libraryID, on: db)
        let days = try Check.range(input.days, LoanPolicy.loanPeriodRange, field: "days")
        let dueAt = try library.policy.dueDate(from: now, days: days, explicit: input.dueDate)
        let memberID = try member.requireID()
        return try await gate.transaction(on: db) { db in
            let claimed: (any SQLRow)?
            switch target {
            case .copy(let copyID, _):
                claimed = try await db.sql.raw("""
                    UPDATE copies SET status = \(bind: CopyStatus.onLoan.rawValue), updated_at = \(bind: now)
                    WHERE id = \(bind: copyID) AND status = \(bind: CopyStatus.available.rawValue)
                    RETURNING id, barcode
                    """).first()
            case .title(let titleID, _):
                let lock: SQLQueryString = db.isSQLite ? "" : " FOR UPDATE SKIP LOCKED"
                claimed = try await db.sql.raw("""
                    UPDATE copies SET status = \(bind: CopyStatus.onLoan.rawValue), updated_at = \(bind: now)
                    WHERE id = (SELECT id FROM copies WHERE title_id = \(bind: titleID) AND status = \(bind: CopyStatus.available.rawValue)
                                ORDER BY copy_number LIMIT 1
                    """ + lock + ") AND status = \(bind: CopyStatus.available.rawValue) RETURNING id, barcode").first()
            }
            guard let claimed else {
                switch target {
                case .copy(_, let title): throw AppError.conflict("copy_not_available", "This copy of “\(title.title)” is not available to lend.")
                case .title(_, let title): throw CirculationError.noCopyAvailable(title: title.title)
                }
            }
            let title = target.title
            let loan = Loan()
            loan.$library.id = library.libraryID
            loan.$copy.id = try claimed.decode(column: "id", as: UUID.self)
            loan.$title.id = try title.requireID()
            loan.$member.id = memberID
            loan.titleText = title.title
            loan.memberCardID = member.cardID
            loan.memberName = member.fullName
            loan.checkedOutAt = now
            loan.dueAt = dueAt
            loan.renewals = 0
            loan.checkedOutBy = library.user.username
            try await loan.create(on: db)
            let barcode = try claimed.decode(column: "barcode", as: String.self)
            try await ActivityLog.record(.init(type: .checkout, titleID: title.id, title: title.title, author: title.authorLine,
                                               memberCardID: member.cardID, info: "copy \(barcode), due \(dueAt.formatted(.iso8601.year().month().day()))"),
                                         library: library, at: now, on: db)
            return loan.dto(now: now, barcode: barcode)
        }
    }

    /// B3: closes the loan (never deletes it) and puts the copy back on the shelf.
    static func giveBack(_ input: ReturnInput, library: LibraryContext, now: Date, gate: WriteGate, on db: any Database) async throws -> LoanDTO {
        try await gate.transaction(on: db) { db in
            let loan: Loan
            if let loanID = input.loanId {
                guard let found = try await Loan.query(on: db).filter(\.$id == loanID).filter(\.$library.$id == library.libraryID).first() else {
                    throw AppError.notFound("Loan")
                }
                loan = found
            } else if let barcode = try Check.optional(input.copyBarcode, field: "copyBarcode", max: 64) {
                guard let copy = try await Copy.query(on: db).filter(\.$library.$id == library.libraryID).filter(\.$barcode == barcode).first() else {
                    throw AppError(status: .notFound, code: "not_found", message: "No copy has the barcode \(barcode).", field: "copyBarcode")
                }
                guard let found = try await Loan.query(on: db).filter(\.$copy.$id == copy.id!).filter(\.$returnedAt == nil).first() else {
                    throw AppError.conflict("not_on_loan", "Copy \(barcode) is not on loan.", field: "copyBarcode")
                }
                loan = found
            } else {
                throw AppError.invalid("loanId", "Say which loan to return: `loanId` or `copyBarcode`.")
            }
            guard loan.returnedAt == nil else { throw CirculationError.loanAlreadyReturned }
            let closed = try await db.sql.raw("""
                UPDATE loans SET returned_at = \(bind: now) WHERE id = \(bind: loan.id!) AND returned_at IS NULL RETURNING id
                """).first()
            guard closed != nil else { throw CirculationError.loanAlreadyReturned }
            loan.returnedAt = now
            var barcode: String?
            if let copyID = loan.$copy.id {
                barcode = try await db.sql.raw("""
                    UPDATE copies SET status = \(bind: CopyStatus.available.rawValue), updated_at = \(bind: now)
                    WHERE id = \(bind: copyID) AND status = \(bind: CopyStatus.onLoan.rawValue) RETURNING barcode
                    """).first()?.decode(column: "barcode", as: String.self)
            }
            let overdueDays = daysOverdue(dueAt: loan.dueAt, now: now)
            try await ActivityLog.record(.init(type: .returnBook, titleID: loan.$title.id, title: loan.titleText,
                                               memberCardID: loan.memberCardID,
                                               info: overdueDays > 0 ? "\(overdueDays) \(overdueDays == 1 ? "day" : "days") overdue" : nil),
                                         library: library, at: now, on: db)
            return loan.dto(now: now, barcode: barcode)
        }
    }

    /// B5: extends a loan by the library's loan period from its current due date, up to the renewal limit.
    static func renew(_ loanID: UUID, library: LibraryContext, now: Date, gate: WriteGate, on db: any Database) async throws -> LoanDTO {
        try await gate.transaction(on: db) { db in
            guard let loan = try await Loan.query(on: db).filter(\.$id == loanID).filter(\.$library.$id == library.libraryID).first() else {
                throw AppError.notFound("Loan")
            }
            guard loan.returnedAt == nil else { throw CirculationError.loanAlreadyReturned }
            guard loan.renewals < library.policy.maxRenewals else { throw CirculationError.renewalLimitReached(library.policy.maxRenewals) }
            loan.dueAt = try library.policy.dueDate(from: max(loan.dueAt, now))
            loan.renewals += 1
            try await loan.save(on: db)
            try await ActivityLog.record(.init(type: .renew, titleID: loan.$title.id, title: loan.titleText, memberCardID: loan.memberCardID,
                                               info: "due \(loan.dueAt.formatted(.iso8601.year().month().day()))"),
                                         library: library, at: now, on: db)
            return loan.dto(now: now)
        }
    }

    /// B4: active loans by due date; `overdueOnly` narrows to those past due.
    static func activeLoans(libraryID: UUID, overdueOnly: Bool, memberID: UUID? = nil, now: Date, limit: Int, offset: Int, on db: any Database) async throws -> [LoanDTO] {
        var query = Loan.query(on: db).filter(\.$library.$id == libraryID).filter(\.$returnedAt == nil)
        if overdueOnly { query = query.filter(\.$dueAt < now) }
        if let memberID { query = query.filter(\.$member.$id == memberID) }
        let loans = try await query.sort(\.$dueAt).sort(\.$id).range(offset..<(offset + limit)).all()
        return try await withBarcodes(loans, now: now, on: db)
    }

    static func withBarcodes(_ loans: [Loan], now: Date, on db: any Database) async throws -> [LoanDTO] {
        let copyIDs = loans.compactMap { $0.$copy.id }
        var barcodes: [UUID: String] = [:]
        if !copyIDs.isEmpty {
            for copy in try await Copy.query(on: db).filter(\.$id ~~ copyIDs).all() { barcodes[copy.id!] = copy.barcode }
        }
        return loans.map { $0.dto(now: now, barcode: $0.$copy.id.flatMap { barcodes[$0] }) }
    }

    private enum Target {
        case copy(UUID, Title)
        case title(UUID, Title)

        var title: Title {
            switch self {
            case .copy(_, let t), .title(_, let t): t
            }
        }
    }

    private static func resolveMember(_ input: CheckoutInput, libraryID: UUID, on db: any Database) async throws -> Member {
        if let id = input.memberId {
            guard let member = try await Member.query(on: db).filter(\.$id == id).filter(\.$library.$id == libraryID).first() else {
                throw AppError(status: .notFound, code: "member_not_found", message: "No member has this id.", field: "memberId")
            }
            return member
        }
        guard let card = try Check.optional(input.cardId, field: "cardId", max: 64) else {
            throw AppError.invalid("cardId", "Say who borrows: `cardId` or `memberId`.")
        }
        guard let member = try await Member.query(on: db).filter(\.$library.$id == libraryID).filter(\.$cardID == card).first() else {
            throw CirculationError.memberNotFound(card)
        }
        return member
    }

    private static func resolveBook(_ input: CheckoutInput, libraryID: UUID, on db: any Database) async throws -> Target {
        if let barcode = try Check.optional(input.copyBarcode, field: "copyBarcode", max: 64) {
            guard let copy = try await Copy.query(on: db).filter(\.$library.$id == libraryID).filter(\.$barcode == barcode)
                .with(\.$title).first() else {
                throw AppError(status: .notFound, code: "not_found", message: "No copy has the barcode \(barcode).", field: "copyBarcode")
            }
            return .copy(copy.id!, copy.title)
        }
        let title: Title
        if let id = input.titleId {
            title = try await Catalog.find(id, library: libraryID, on: db)
        } else if let raw = try Check.optional(input.isbn, field: "isbn", max: 40) {
            let isbn = try ISBN(raw).isbn13
            guard let found = try await Title.query(on: db).filter(\.$library.$id == libraryID).filter(\.$isbn13 == isbn).first() else {
                throw AppError(status: .notFound, code: "not_found", message: "No title with ISBN \(isbn) is in this library.", field: "isbn")
            }
            title = found
        } else {
            throw AppError.invalid("titleId", "Say which book: `titleId`, `copyBarcode` or `isbn`.")
        }
        if title.wishlist { throw CirculationError.titleIsWishlistItem }
        return .title(title.id!, title)
    }
}
