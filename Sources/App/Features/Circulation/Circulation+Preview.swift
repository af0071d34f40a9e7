import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// The lending preview: what a check-out would do, decided without writing — who borrows,
/// which book, the copy to hand over, until when — or every refusal the lending itself would give.
/// The lend confirmation page and the API's dry run (`POST …/checkouts/preview`) ask it; `checkout`
/// resolves its input with the same `resolve`, so a rule added there (holds, a blocked member) is
/// said on the first screen, in the API's preview and at the lending alike.
extension Circulation {
    struct Preview: Sendable {
        var memberId: UUID
        var cardId: String
        var memberName: String
        var titleId: UUID
        var title: String
        var coverUrl: String?
        /// The copy to hand over: the one scanned, else the first on the shelf (the one the lending takes).
        var copyId: UUID
        var copyBarcode: String
        var dueAt: Date
        /// Other members waiting for this book; whether the borrower collects their own hold.
        var waiting: Int
        var collectsHold: Bool
        /// What to confirm with: the member and book resolved to ids.
        var input: CheckoutInput
    }

    enum PreviewOutcome: Sendable {
        case ready(Preview)
        /// The words typed match several books: the librarian picks one.
        case choose([TitleSummary])
    }

    /// What the lending decides before it writes: the borrower, the book and the due date. Throws
    /// what the lending would refuse.
    struct Resolved: Sendable {
        let member: Borrower
        let target: Target
        let dueAt: Date
        let holds: HoldContext
    }

    static func resolve(_ input: CheckoutInput, in scope: Scope) async throws -> Resolved {
        let libraryID = scope.libraryID
        // A sync push has read its members, copies and holds already (`PushBatch`).
        let member: Borrower
        if input.memberId == nil, let known = scope.batch?.member(card: input.cardId) {
            member = known
        } else {
            member = try await resolveMember(input, libraryID: libraryID, on: scope.db)
        }
        try member.refuseIfLeft()
        try await Fines.refuseIfBlocked(member: member.id, suspendedUntil: member.suspendedUntil, blockAt: member.blockAt,
                                        currency: member.currency, now: scope.now, on: scope.db)
        let target: Target
        if let known = scope.batch?.copy(barcode: input.copyBarcode) {
            target = Target(title: known.book, copyID: known.copyID)
        } else {
            target = try await resolveBook(input, libraryID: libraryID, on: scope.db)
        }
        let days = try Check.range(input.days, LoanPolicy.loanPeriodRange, field: "days")
        let dueAt = try scope.library.policy.dueDate(from: scope.now, days: days, explicit: input.dueDate)
        let holds = try await holdContext(input, member: member, target: target, in: scope)
        return Resolved(member: member, target: target, dueAt: dueAt, holds: holds)
    }

    /// `input` as the API sends it; `book` what a librarian typed or scanned in one field: an ISBN, a
    /// copy's barcode, or words of a title or author (used when `input` names no book).
    static func preview(_ input: CheckoutInput, book: String? = nil, in scope: Scope) async throws -> PreviewOutcome {
        var input = input
        let db = scope.db
        if input.titleId == nil, input.copyBarcode == nil, input.isbn == nil, let text = try Check.optional(book, field: "book", max: 500) {
            if let isbn = try? ISBN(text) {
                input.isbn = isbn.isbn13
            } else if try await Lookup.copy(barcode: text, library: scope.libraryID, on: db) != nil {
                input.copyBarcode = text
            } else {
                var filters = TitleQuery.Filters()
                filters.query = text
                filters.limit = 20
                let matches = try await TitleQuery.list(filters, libraryID: scope.libraryID, now: scope.now, on: db).items
                // The member is checked before the book is chosen: a wrong card is said at once.
                _ = try await resolveMember(input, libraryID: scope.libraryID, on: db)
                guard let first = matches.first else { throw LoanError.noBookMatches(text) }
                if matches.count > 1 { return .choose(matches) }
                input.titleId = first.id
            }
        }
        let resolved = try await resolve(input, in: scope)
        let title = resolved.target.title
        struct CopyRow: Decodable { var id: UUID; var barcode: String; var status: String }
        let copy: CopyRow
        if let copyID = resolved.target.copyID {
            guard let row = try await db.sql.raw("SELECT id, barcode, status FROM copies WHERE id = \(bind: copyID)").first(decoding: CopyRow.self),
                  row.status == CopyStatus.available.rawValue else {
                throw LoanError.copyNotAvailable(title: title.title)
            }
            copy = row
        } else {
            guard let row = try await db.sql.raw("SELECT id, barcode, status FROM copies WHERE id = "
                                                 + claimableCopy(title: title.id, holds: resolved.holds)).first(decoding: CopyRow.self),
                  row.status == CopyStatus.available.rawValue else {
                throw CirculationError.noCopyAvailable(title: title.title)
            }
            copy = row
        }
        struct Cover: Decodable { var cover_url: String? }
        let cover = try await db.sql.raw("SELECT cover_url FROM titles WHERE id = \(bind: title.id)").first(decoding: Cover.self)?.cover_url
        var confirm = input
        (confirm.memberId, confirm.cardId) = (resolved.member.id, nil)
        if confirm.copyBarcode == nil { (confirm.titleId, confirm.isbn) = (title.id, nil) }
        return .ready(Preview(memberId: resolved.member.id, cardId: resolved.member.cardID, memberName: resolved.member.name,
                              titleId: title.id, title: title.title, coverUrl: cover, copyId: copy.id, copyBarcode: copy.barcode,
                              dueAt: resolved.dueAt, waiting: resolved.holds.waiting, collectsHold: resolved.holds.ownHold != nil, input: confirm))
    }
}
