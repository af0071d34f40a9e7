import ShelfmarkCore
import Vapor

// The refusals of lending and returning; those of the domain rules themselves are Core's `CirculationError`.

enum LoanError: DomainError, Equatable {
    case loanNotFound
    case noCopyWithBarcode(String)
    case notOnLoan(barcode: String)
    case sayWhichLoan
    case memberIDNotFound
    case sayWhoBorrows
    case noTitleWithISBN(String)
    case sayWhichBook
    case copyNotAvailable(title: String)
    /// Words typed in the lending form's one book field that match no book of the library.
    case noBookMatches(String)
    /// The member may not borrow before `until` (a late return, in a library that suspends).
    case suspended(until: Date)
    /// The member owes the library's limit or more (in minor units).
    case owesFines(owed: Int, limit: Int, currency: String)
    /// The member has left (archived by a roster sync, the rollover or a librarian): no loans, renewals or holds.
    case memberLeft(name: String, on: Date)

    var described: Described {
        switch self {
        case .loanNotFound:
            .init(.notFound, "not_found") { $0(.errLoanNotFound) }
        case .noCopyWithBarcode(let barcode):
            .init(.notFound, "not_found", field: "copyBarcode") { $0.format(.errNoCopyWithBarcode, barcode) }
        case .notOnLoan(let barcode):
            .init(.conflict, "not_on_loan", field: "copyBarcode", details: ["barcode": barcode]) { $0.format(.errNotOnLoan, barcode) }
        case .sayWhichLoan:
            .init(.invalid, "invalid", field: "loanId") { $0(.errSayWhichLoan) }
        case .memberIDNotFound:
            .init(.notFound, "member_not_found", field: "memberId") { $0(.errMemberIDNotFound) }
        case .sayWhoBorrows:
            .init(.invalid, "invalid", field: "cardId") { $0(.errSayWhoBorrows) }
        case .noTitleWithISBN(let isbn):
            .init(.notFound, "not_found", field: "isbn") { $0.format(.errNoTitleWithISBN, isbn) }
        case .sayWhichBook:
            .init(.invalid, "invalid", field: "titleId") { $0(.errSayWhichBook) }
        case .copyNotAvailable(let title):
            .init(.conflict, "copy_not_available", details: ["title": title]) { $0.format(.errCopyNotAvailable, title) }
        case .noBookMatches(let typed):
            .init(.notFound, "not_found", field: "book", details: ["typed": typed]) { $0.format(.errBookNotFound, typed) }
        case .suspended(let until):
            .init(.conflict, "member_suspended", details: ["until": until.formatted(.iso8601)]) { $0.format(.errMemberSuspended, $0.date(until)) }
        case .memberLeft(let name, let on):
            .init(.conflict, "member_archived", details: ["archivedAt": on.formatted(.iso8601)]) { $0.format(.errMemberLeft, name, $0.date(on)) }
        case .owesFines(let owed, let limit, let currency):
            .init(.conflict, "fines_owed", details: ["owed": String(owed), "limit": String(limit), "currency": currency]) {
                $0.format(.errOwesFines, $0.money(owed, currency), $0.money(limit, currency))
            }
        }
    }
}

extension CirculationError: DomainError {
    var described: Described {
        switch self {
        case .noCopyAvailable(let title):
            .init(.conflict, "no_copy_available") { $0.format(.errNoCopyAvailable, title) }
        case .memberNotFound(let card):
            .init(.notFound, "member_not_found", field: "cardId") { $0.format(.errMemberNotFound, card) }
        case .titleIsWishlistItem:
            .init(.conflict, "wishlist_item") { $0(.errWishlistItem) }
        case .loanAlreadyReturned:
            .init(.conflict, "already_returned") { $0(.errAlreadyReturned) }
        case .dueDateInPast:
            .init(.invalid, "invalid", field: "dueDate") { $0(.errDueDatePast) }
        case .loanPeriodOutOfRange(let days):
            .init(.invalid, "invalid", field: "days") { $0.format(.errLoanPeriod, $0.number(days)) }
        case .copiesBelowOnLoan(let requested, let onLoan):
            .init(.conflict, "copies_on_loan", field: "totalCopies") { $0.format(.errCopiesBelowOnLoan, $0.number(requested), $0(.copiesOnLoan, onLoan)) }
        case .titleHasCopiesOnLoan(let n):
            .init(.conflict, "copies_on_loan") { $0.format(.errTitleHasLoans, $0(.copiesOnLoan, n)) }
        case .copyOnLoan:
            .init(.conflict, "copy_on_loan") { $0(.errCopyOnLoan) }
        case .renewalLimitReached(let max):
            .init(.conflict, "renewal_limit") { $0.format(.errRenewalLimit, $0.number(max)) }
        case .renewalTooEarly(let opensOn):
            .init(.conflict, "renewal_too_early", details: ["opensOn": ISO8601DateFormatter().string(from: opensOn)]) { $0.format(.errRenewalTooEarly, $0.date(opensOn)) }
        case .renewalWaitedFor(let waiting):
            .init(.conflict, "renewal_waited_for", details: ["waiting": String(waiting)]) { $0.format(.errRenewalWaitedFor, $0.number(waiting)) }
        }
    }
}
