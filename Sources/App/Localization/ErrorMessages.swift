import Foundation
import ShelfmarkCore

/// Refusals in the reader's language: the domain errors by their case and values, the API's errors by
/// their stable `code`. The API keeps English messages with stable codes; a page shows these.
extension Strings {
    func message(_ error: CirculationError) -> String {
        switch error {
        case .noCopyAvailable(let title): format(.errNoCopyAvailable, title)
        case .memberNotFound(let card): format(.errMemberNotFound, card)
        case .titleIsWishlistItem: self(.errWishlistItem)
        case .loanAlreadyReturned: self(.errAlreadyReturned)
        case .dueDateInPast: self(.errDueDatePast)
        case .loanPeriodOutOfRange(let days): format(.errLoanPeriod, number(days))
        case .copiesBelowOnLoan(let requested, let onLoan): format(.errCopiesBelowOnLoan, number(requested), number(onLoan))
        case .titleHasCopiesOnLoan(let n): format(.errTitleHasLoans, number(n))
        case .copyOnLoan: self(.errCopyOnLoan)
        case .renewalLimitReached(let max): format(.errRenewalLimit, number(max))
        }
    }

    /// The message for any error a page shows: a domain error or a known code in this language, else
    /// the error's own message.
    func message(_ error: ISBN.Invalid) -> String {
        switch error {
        case .empty: self(.errISBNEmpty)
        case .badCharacters: self(.errISBNCharacters)
        case .wrongLength(let n): format(.errISBNLength, number(n))
        case .badChecksum: self(.errISBNChecksum)
        case .notABookEAN: self(.errISBNNotBook)
        }
    }

    func message(_ error: any Error) -> String {
        if let circulation = error as? CirculationError { return message(circulation) }
        if let isbn = error as? ISBN.Invalid { return message(isbn) }
        let app = JSONErrorMiddleware.appError(for: error)
        switch app.code {
        case "bad_credentials": return self(.errBadCredentials)
        case "too_many_attempts": return self(.tooManyAttempts)
        case "creation_restricted": return app.message.contains("administrator") ? self(.errCreationAdminOnly) : self(.errCreationRestricted)
        case "disk_full": return self(.diskFull)
        case "too_large": return self(.tooLarge)
        case "csrf": return self(.csrfText)
        case "bad_backup": return self(.errBadBackup)
        case "copy_not_available": return app.details?["title"].map { format(.errCopyNotAvailable, $0) } ?? app.message
        default: return app.message
        }
    }
}
