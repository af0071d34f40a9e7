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

    /// A form field's label in this language; the field's own name when it has none.
    func label(_ field: String) -> String {
        let key: L? = switch field {
        case "title", "Title": .title
        case "subtitle", "Subtitle": .subtitle
        case "authors": .authorsField
        case "isbn", "ISBN": .isbn
        case "publisher", "Publisher": .publisher
        case "publishedDate": .publishedDate
        case "pageCount": .pageCount
        case "description", "Description": .description
        case "coverUrl": .coverURL
        case "notes", "Notes": .notes
        case "copies", "count", "totalCopies": .copiesField
        case "location": .location
        case "barcode", "copyBarcode": .barcode
        case "cardId": .cardID
        case "firstName": .firstName
        case "lastName": .lastName
        case "grade": .grade
        case "email": .email
        case "username": .username
        case "password": .password
        case "displayName": .yourName
        case "libraryName": .libraryName
        case "loanPeriodDays": .loanPeriod
        case "maxRenewals": .maxRenewals
        case "dueDate": .dueDate
        case "days": .fieldDays
        case "name": .fieldName
        case "categories": .categories
        case "rating": .rating
        default: nil
        }
        return key.map { self($0) } ?? field
    }

    func message(_ problem: InputProblem) -> String {
        switch problem {
        case .empty(let field): format(.errEmpty, label(field))
        case .tooLong(let field, let max): format(.errTooLong, label(field), number(max))
        case .outOfRange(let field, let min, let max, let got): format(.errOutOfRange, label(field), number(min), number(max), number(got))
        case .notEmail(_, let value): format(.errNotEmail, value)
        case .notCoverURL(let field): format(.errNotCoverURL, label(field))
        case .notANumber(let field): format(.errNotANumber, label(field))
        }
    }

    func message(_ error: any Error) -> String {
        if let circulation = error as? CirculationError { return message(circulation) }
        if let isbn = error as? ISBN.Invalid { return message(isbn) }
        if let problem = (error as? AppError)?.problem { return message(problem) }
        let app = JSONErrorMiddleware.appError(for: error)
        switch app.code {
        case "bad_credentials": return self(.errBadCredentials)
        case "too_many_attempts": return self(.tooManyAttempts)
        case "creation_restricted": return app.message.contains("administrator") ? self(.errCreationAdminOnly) : self(.errCreationRestricted)
        case "disk_full": return self(.diskFull)
        case "too_large": return self(.tooLarge)
        case "csrf": return self(.csrfText)
        case "bad_backup": return self(.errBadBackup)
        case "job_running": return self(.errJobRunning)
        case "duplicate_card_id": return format(.errDuplicateCard, app.details?["cardId"] ?? "", app.details?["name"] ?? "")
        case "duplicate_username": return format(.errDuplicateUsername, app.details?["username"] ?? "")
        case "already_staff": return format(.errAlreadyStaff, app.details?["username"] ?? "")
        case "not_on_loan": return format(.errNotOnLoan, app.details?["barcode"] ?? "")
        case "too_many_copies_at_once": return format(.errTooManyCopiesAtOnce, number(Int(app.details?["max"] ?? "") ?? 500))
        case "duplicate_barcode": return format(.errDuplicateBarcode, app.details?["barcode"] ?? "")
        case "duplicate_category": return format(.errDuplicateCategory, app.details?["name"] ?? "")
        case "duplicate_isbn": return format(.errDuplicateISBN, app.details?["title"] ?? "")
        case "last_owner": return self(.errLastOwner)
        case "cannot_add_staff": return self(.errCannotAddStaff)
        case "not_found": return self(.notFoundText)
        case "forbidden": return self(.forbiddenText)
        case "job_interrupted": return self(.errJobInterrupted)
        case "internal": return self(.errInternal)
        case "copy_not_available": return app.details?["title"].map { format(.errCopyNotAvailable, $0) } ?? app.message
        default: return app.message
        }
    }

    /// A row of an import report in this language, from its code and values; the English reason when
    /// it has no code (a MARC record that cannot be read, a value refused by the catalog's checks).
    func message(_ note: ImportRowNote) -> String {
        let v = note.values ?? [:]
        switch note.code {
        case "missing":
            return format(.impMissing, v["column"] ?? "")
        case "invalid":
            let why: String? = switch v["why"] {
            case "not_whole_number": self(.impNotWholeNumber)
            case "more_than_total": format(.impMoreThanTotal, number(Int(v["total"] ?? "") ?? 0))
            case "isbn": ImportRowNote.isbnInvalid(v["isbn"]).map { message($0) }
            case "rating": self(.impRating)
            default: nil
            }
            guard let why else { return note.reason }
            return format(.impInvalid, v["column"] ?? "", v["value"] ?? "", why)
        case "field_count":
            return format(.impFieldCount, number(Int(v["found"] ?? "") ?? 0), number(Int(v["expected"] ?? "") ?? 0))
        case "not_isbn":
            guard let why = ImportRowNote.isbnInvalid(v["isbn"]) else { return note.reason }
            return format(.impNotISBN, v["value"] ?? "", message(why))
        case "providers_late": return format(.impProvidersLate, v["isbn"] ?? "")
        case "not_found": return format(.impNotFoundAtProviders, v["isbn"] ?? "")
        case "already_in_library": return format(.impAlreadyInLibrary, v["isbn"] ?? "")
        default: return note.reason
        }
    }

    /// An import format's name in this language (the file formats' own names stay as they are).
    func name(_ format: ImportFormat) -> String {
        switch format {
        case .shelfmarkCatalog: self(.fmtShelfmarkCatalog)
        case .shelfmarkWishlist: self(.fmtShelfmarkWishlist)
        case .goodreads: self(.fmtGoodreads)
        case .libraryThing: self(.fmtLibraryThing)
        case .storyGraph: self(.fmtStoryGraph)
        case .libib: self(.fmtLibib)
        case .calibre: self(.fmtCalibre)
        case .generic: self(.fmtGeneric)
        case .isbnList: self(.fmtISBNList)
        case .marc: format.displayName
        case .marcXML: format.displayName
        case .libraryThingJSON: self(.fmtLibraryThingJSON)
        }
    }

    /// A report's format (stored as its English name) in this language.
    func formatName(_ stored: String) -> String {
        ImportFormat.allCases.first { $0.displayName == stored }.map { name($0) } ?? stored
    }
}
