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

    var refusal: Refusal {
        switch self {
        case .loanNotFound, .noCopyWithBarcode, .memberIDNotFound, .noTitleWithISBN, .noBookMatches: .notFound
        case .sayWhichLoan, .sayWhoBorrows, .sayWhichBook: .invalid
        case .notOnLoan, .copyNotAvailable: .conflict
        }
    }

    var code: String {
        switch self {
        case .loanNotFound, .noCopyWithBarcode, .noTitleWithISBN, .noBookMatches: "not_found"
        case .memberIDNotFound: "member_not_found"
        case .sayWhichLoan, .sayWhoBorrows, .sayWhichBook: "invalid"
        case .notOnLoan: "not_on_loan"
        case .copyNotAvailable: "copy_not_available"
        }
    }

    var field: String? {
        switch self {
        case .noCopyWithBarcode, .notOnLoan: "copyBarcode"
        case .sayWhichLoan: "loanId"
        case .memberIDNotFound: "memberId"
        case .sayWhoBorrows: "cardId"
        case .noTitleWithISBN: "isbn"
        case .sayWhichBook: "titleId"
        case .noBookMatches: "book"
        case .loanNotFound, .copyNotAvailable: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .notOnLoan(let barcode): ["barcode": barcode]
        case .noBookMatches(let typed): ["typed": typed]
        case .copyNotAvailable(let title): ["title": title]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .loanNotFound: t(.errLoanNotFound)
        case .noCopyWithBarcode(let barcode): t.format(.errNoCopyWithBarcode, barcode)
        case .notOnLoan(let barcode): t.format(.errNotOnLoan, barcode)
        case .sayWhichLoan: t(.errSayWhichLoan)
        case .memberIDNotFound: t(.errMemberIDNotFound)
        case .sayWhoBorrows: t(.errSayWhoBorrows)
        case .noTitleWithISBN(let isbn): t.format(.errNoTitleWithISBN, isbn)
        case .sayWhichBook: t(.errSayWhichBook)
        case .copyNotAvailable(let title): t.format(.errCopyNotAvailable, title)
        case .noBookMatches(let typed): t.format(.errBookNotFound, typed)
        }
    }
}

extension CirculationError: DomainError {
    var refusal: Refusal {
        switch self {
        case .memberNotFound: .notFound
        case .dueDateInPast, .loanPeriodOutOfRange: .invalid
        case .noCopyAvailable, .titleIsWishlistItem, .loanAlreadyReturned, .copiesBelowOnLoan, .titleHasCopiesOnLoan, .copyOnLoan,
             .renewalLimitReached: .conflict
        }
    }

    var code: String {
        switch self {
        case .noCopyAvailable: "no_copy_available"
        case .memberNotFound: "member_not_found"
        case .titleIsWishlistItem: "wishlist_item"
        case .loanAlreadyReturned: "already_returned"
        case .dueDateInPast, .loanPeriodOutOfRange: "invalid"
        case .copiesBelowOnLoan, .titleHasCopiesOnLoan: "copies_on_loan"
        case .copyOnLoan: "copy_on_loan"
        case .renewalLimitReached: "renewal_limit"
        }
    }

    var field: String? {
        switch self {
        case .memberNotFound: "cardId"
        case .dueDateInPast: "dueDate"
        case .loanPeriodOutOfRange: "days"
        case .copiesBelowOnLoan: "totalCopies"
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .noCopyAvailable(let title): t.format(.errNoCopyAvailable, title)
        case .memberNotFound(let card): t.format(.errMemberNotFound, card)
        case .titleIsWishlistItem: t(.errWishlistItem)
        case .loanAlreadyReturned: t(.errAlreadyReturned)
        case .dueDateInPast: t(.errDueDatePast)
        case .loanPeriodOutOfRange(let days): t.format(.errLoanPeriod, t.number(days))
        case .copiesBelowOnLoan(let requested, let onLoan): t.format(.errCopiesBelowOnLoan, t.number(requested), t(.copiesOnLoan, onLoan))
        case .titleHasCopiesOnLoan(let n): t.format(.errTitleHasLoans, t(.copiesOnLoan, n))
        case .copyOnLoan: t(.errCopyOnLoan)
        case .renewalLimitReached(let max): t.format(.errRenewalLimit, t.number(max))
        }
    }
}
