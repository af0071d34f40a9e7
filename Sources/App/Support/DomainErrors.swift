import Vapor
import ShelfmarkCore

/// How a refusal is answered. The HTTP status of every domain error is decided here and only here.
enum Refusal: Sendable {
    case notFound, invalid, conflict, forbidden, unauthenticated, tooManyRequests, badRequest

    var status: HTTPResponseStatus {
        switch self {
        case .notFound: .notFound
        case .invalid: .unprocessableEntity
        case .conflict: .conflict
        case .forbidden: .forbidden
        case .unauthenticated: .unauthorized
        case .tooManyRequests: .tooManyRequests
        case .badRequest: .badRequest
        }
    }
}

/// An expected refusal from a service, as a case with its values. Its sentence in every language
/// (English included: the API's message is the English row) comes from the strings table, so no
/// service spells a message. The API's JSON error keeps `code`, `field` and `details` stable.
protocol DomainError: Error, Sendable {
    var refusal: Refusal { get }
    /// The API's stable error code.
    var code: String { get }
    /// The input field the refusal is about, if any (the API's `field`, the form field on a page).
    var field: String? { get }
    /// Values a client can act on (the API's `details`).
    var details: [String: String]? { get }
    func message(_ t: Strings) -> String
}

extension DomainError {
    var field: String? { nil }
    var details: [String: String]? { nil }
}

// MARK: - Catalog

enum CatalogError: DomainError, Equatable {
    case titleNotFound
    case copyNotFound
    case categoryNotFound
    case coverNotFound
    case ratingOutOfRange(Double)
    case mergeIntoItself
    case wishlistHasNoCopies
    case wishlistItem(title: String)
    case notWishlist(title: String)
    case duplicateBarcode(String)
    case loanedByEditing
    case duplicateCategory(String)
    case duplicateISBN(title: String, titleID: UUID, library: UUID)
    case tooManyCategories(max: Int)
    case tooManyAuthors(max: Int)
    case tooManyCopiesAtOnce(max: Int, from: Int, to: Int)
    case noISBNToDraw(title: String)
    case cover(CoverProblem)
    case publishedDateWithoutYear(String)

    var refusal: Refusal {
        switch self {
        case .titleNotFound, .copyNotFound, .categoryNotFound, .coverNotFound, .noISBNToDraw: .notFound
        case .wishlistHasNoCopies, .loanedByEditing, .tooManyCategories, .tooManyAuthors, .cover, .ratingOutOfRange,
             .publishedDateWithoutYear: .invalid
        case .mergeIntoItself: .conflict
        case .wishlistItem, .notWishlist, .duplicateBarcode, .duplicateCategory, .duplicateISBN, .tooManyCopiesAtOnce: .conflict
        }
    }

    var code: String {
        switch self {
        case .titleNotFound, .copyNotFound, .categoryNotFound, .coverNotFound: "not_found"
        case .noISBNToDraw: "no_isbn"
        case .wishlistHasNoCopies, .loanedByEditing, .tooManyCategories, .tooManyAuthors, .cover, .ratingOutOfRange,
             .publishedDateWithoutYear: "invalid"
        case .mergeIntoItself: "merge_into_itself"
        case .wishlistItem: "wishlist_item"
        case .notWishlist: "not_wishlist"
        case .duplicateBarcode: "duplicate_barcode"
        case .duplicateCategory: "duplicate_category"
        case .duplicateISBN: "duplicate_isbn"
        case .tooManyCopiesAtOnce: "too_many_copies_at_once"
        }
    }

    var field: String? {
        switch self {
        case .wishlistHasNoCopies: "copies"
        case .duplicateBarcode: "barcode"
        case .loanedByEditing: "status"
        case .duplicateCategory: "name"
        case .duplicateISBN, .noISBNToDraw: "isbn"
        case .tooManyCategories: "categories"
        case .tooManyAuthors: "authors"
        case .tooManyCopiesAtOnce: "totalCopies"
        case .cover: "cover"
        case .ratingOutOfRange: "rating"
        case .mergeIntoItself: "into"
        case .publishedDateWithoutYear: "publishedDate"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .duplicateBarcode(let barcode): ["barcode": barcode]
        case .duplicateCategory(let name): ["name": name]
        case .duplicateISBN(let title, let id, let library):
            ["existingTitleId": id.uuidString, "title": title,
             "addCopies": APILink.titleCopies(library: library, title: id).path]
        case .tooManyCopiesAtOnce(let max, let from, let to): ["max": String(max), "from": String(from), "to": String(to)]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .titleNotFound: t(.errTitleNotFound)
        case .copyNotFound: t(.errCopyNotFound)
        case .categoryNotFound: t(.errCategoryNotFound)
        case .coverNotFound: t(.errCoverNotFound)
        case .ratingOutOfRange(let got): t.format(.errRating, got.formatted(.number.locale(t.lang.locale)))
        case .mergeIntoItself: t(.errMergeIntoItself)
        case .wishlistHasNoCopies: t(.errWishlistNoCopies)
        case .wishlistItem(let title): t.format(.errWishlistItemNamed, title)
        case .notWishlist(let title): t.format(.errNotWishlist, title)
        case .duplicateBarcode(let barcode): t.format(.errDuplicateBarcode, barcode)
        case .loanedByEditing: t(.errLoanedByEditing)
        case .duplicateCategory(let name): t.format(.errDuplicateCategory, name)
        case .duplicateISBN(let title, _, _): t.format(.errDuplicateISBN, title)
        case .tooManyCategories(let max): t.format(.errTooManyCategories, t.number(max))
        case .tooManyAuthors(let max): t.format(.errTooManyAuthors, t.number(max))
        case .tooManyCopiesAtOnce(let max, _, _): t.format(.errTooManyCopiesAtOnce, t.number(max))
        case .noISBNToDraw(let title): t.format(.errNoISBNToDraw, title)
        case .cover(let problem): problem.message(t, number: nil)
        case .publishedDateWithoutYear(let got): t.format(.errPublishedNoYear, String(got.prefix(40)))
        }
    }
}

/// Why an image was not taken as a cover.
enum CoverProblem: Sendable, Equatable {
    case tooLarge(maxMB: Int)
    case notAnImage

    /// The sentence, about "the cover" or, with `number`, about that cover of a backup.
    func message(_ t: Strings, number: Int?) -> String {
        let what = number.map { t.format(.errBackupCoverN, t.number($0)) } ?? t(.errTheCover)
        switch self {
        case .tooLarge(let mb): return t.format(.errCoverTooLarge, what, t.number(mb))
        case .notAnImage: return t.format(.errCoverNotImage, what)
        }
    }
}

// MARK: - Members

enum MemberError: DomainError, Equatable {
    case notFound
    case duplicateCard(card: String, holder: String)
    case cardHasSpaces(String)
    case hasLoans(name: String, count: Int)

    var refusal: Refusal {
        switch self {
        case .notFound: .notFound
        case .cardHasSpaces: .invalid
        case .duplicateCard, .hasLoans: .conflict
        }
    }

    var code: String {
        switch self {
        case .notFound: "not_found"
        case .cardHasSpaces: "invalid"
        case .duplicateCard: "duplicate_card_id"
        case .hasLoans: "member_has_loans"
        }
    }

    var field: String? {
        switch self {
        case .duplicateCard, .cardHasSpaces: "cardId"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .duplicateCard(let card, let holder): ["cardId": card, "name": holder]
        case .hasLoans(_, let count): ["activeLoans": String(count)]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .notFound: t(.errMemberGone)
        case .duplicateCard(let card, let holder): t.format(.errDuplicateCard, card, holder)
        case .cardHasSpaces(let card): t.format(.errCardSpaces, card)
        case .hasLoans(let name, let count): t.format(.errMemberHasLoans, name, t(.loansOut, count))
        }
    }
}

// MARK: - Accounts, staff and access

enum AccountError: DomainError, Equatable {
    case alreadySetUp
    case duplicateUsername(String)
    case tooManyAttempts(waitSeconds: Int)
    case badCredentials
    case tokenNotFound
    case libraryNotFound
    case staffNotFound
    case staffPasswordNeeded(min: Int)
    case cannotAddStaff
    case alreadyStaff(String)
    case lastOwner
    case badUsername(String)
    case passwordTooShort(min: Int)
    case passwordTooLong(max: Int)
    case roleTooLow(Role, needs: Role)
    case creationRestricted(adminOnly: Bool)
    case serverSettingsAdminOnly
    case cannotResetPassword
    case duplicateLibraryName(String)

    var refusal: Refusal {
        switch self {
        case .tokenNotFound, .libraryNotFound, .staffNotFound: .notFound
        case .staffPasswordNeeded, .badUsername, .passwordTooShort, .passwordTooLong: .invalid
        case .alreadySetUp, .duplicateUsername, .cannotAddStaff, .alreadyStaff, .lastOwner, .duplicateLibraryName: .conflict
        case .tooManyAttempts: .tooManyRequests
        case .badCredentials: .unauthenticated
        case .roleTooLow, .creationRestricted, .serverSettingsAdminOnly, .cannotResetPassword: .forbidden
        }
    }

    var code: String {
        switch self {
        case .alreadySetUp: "already_set_up"
        case .duplicateUsername: "duplicate_username"
        case .tooManyAttempts: "too_many_attempts"
        case .badCredentials: "bad_credentials"
        case .tokenNotFound, .libraryNotFound, .staffNotFound: "not_found"
        case .staffPasswordNeeded, .badUsername, .passwordTooShort, .passwordTooLong: "invalid"
        case .cannotAddStaff: "cannot_add_staff"
        case .alreadyStaff: "already_staff"
        case .lastOwner: "last_owner"
        case .duplicateLibraryName: "duplicate_library_name"
        case .roleTooLow, .serverSettingsAdminOnly, .cannotResetPassword: "forbidden"
        case .creationRestricted: "creation_restricted"
        }
    }

    var field: String? {
        switch self {
        case .duplicateUsername, .alreadyStaff, .badUsername: "username"
        case .duplicateLibraryName: "name"
        case .staffPasswordNeeded, .cannotAddStaff, .passwordTooShort, .passwordTooLong: "password"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .duplicateUsername(let name), .alreadyStaff(let name): ["username": name]
        case .tooManyAttempts(let wait): ["retryAfter": String(wait)]
        case .roleTooLow(let role, let needs): ["role": role.rawValue, "needs": needs.rawValue]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .alreadySetUp: t(.errAlreadySetUp)
        case .duplicateUsername(let name): t.format(.errDuplicateUsername, name)
        case .tooManyAttempts(let wait): t.format(.errWaitSeconds, t.number(wait))
        case .badCredentials: t(.errBadCredentials)
        case .tokenNotFound: t(.errTokenNotFound)
        case .libraryNotFound: t(.errLibraryNotFound)
        case .staffNotFound: t(.errStaffNotFound)
        case .staffPasswordNeeded(let min): t.format(.errStaffPassword, t.number(min))
        case .cannotAddStaff: t(.errCannotAddStaff)
        case .alreadyStaff(let name): t.format(.errAlreadyStaff, name)
        case .lastOwner: t(.errLastOwner)
        case .badUsername(let raw): t.format(.errBadUsername, raw)
        case .passwordTooShort(let min): t.format(.errPasswordShort, t.number(min))
        case .passwordTooLong(let max): t.format(.errPasswordLong, t.number(max))
        case .roleTooLow(let role, let needs): t.format(.errRoleTooLow, t.role(role), t.role(needs))
        case .creationRestricted(let adminOnly): t(adminOnly ? .errCreationAdminOnly : .errCreationRestricted)
        case .serverSettingsAdminOnly: t(.errServerAdminOnly)
        case .cannotResetPassword: t(.errCannotResetPassword)
        case .duplicateLibraryName(let name): t.format(.errDuplicateLibraryName, name)
        }
    }
}

// MARK: - Reading (E1–E3)

enum ReadingError: DomainError, Equatable {
    case readNotFound
    case quoteNotFound
    case shareNotFound
    case photoNotFound
    case photo(ImageProblem)
    case cornersInvalid
    case pageBeyondEnd(page: Int, pages: Int)
    case noPageHeard(phrase: String)
    case heardOutOfRange(Int)
    case sayOneProgress
    case momentInFuture
    case unknownStatus(String)

    var refusal: Refusal {
        switch self {
        case .readNotFound, .quoteNotFound, .photoNotFound, .shareNotFound: .notFound
        default: .invalid
        }
    }

    var code: String {
        switch self {
        case .readNotFound, .quoteNotFound, .photoNotFound, .shareNotFound: "not_found"
        case .photo: "invalid_image"
        case .cornersInvalid: "invalid"
        case .pageBeyondEnd: "page_beyond_end"
        case .noPageHeard: "no_page_heard"
        case .heardOutOfRange: "out_of_range"
        case .sayOneProgress, .momentInFuture, .unknownStatus: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .pageBeyondEnd: "page"
        case .noPageHeard, .heardOutOfRange: "phrase"
        case .momentInFuture: "at"
        case .unknownStatus: "status"
        case .photo: "file"
        case .cornersInvalid: "corners"
        default: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .pageBeyondEnd(_, let pages): ["pageCount": String(pages)]
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .readNotFound: t(.errReadNotFound)
        case .quoteNotFound: t(.errQuoteNotFound)
        case .shareNotFound: t(.errShareNotFound)
        case .photoNotFound: t(.errPhotoNotFound)
        case .photo(let problem): problem.message(t)
        case .cornersInvalid: t(.errCornersInvalid)
        case .pageBeyondEnd(let page, let pages): t.format(.errPageBeyondEnd, t.number(page), t.number(pages))
        case .noPageHeard(let phrase): t.format(.errNoPageHeard, String(phrase.prefix(80)))
        case .heardOutOfRange(let n): t.format(.errHeardOutOfRange, t.number(n))
        case .sayOneProgress: t(.errSayOneProgress)
        case .momentInFuture: t(.errMomentInFuture)
        case .unknownStatus(let raw): t.format(.errUnknownReadStatus, String(raw.prefix(40)))
        }
    }
}

// MARK: - Lending and returning (the refusals of the domain rules themselves are `CirculationError`)

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

    var refusal: Refusal {
        switch self {
        case .loanNotFound, .noCopyWithBarcode, .memberIDNotFound, .noTitleWithISBN: .notFound
        case .sayWhichLoan, .sayWhoBorrows, .sayWhichBook: .invalid
        case .notOnLoan, .copyNotAvailable: .conflict
        }
    }

    var code: String {
        switch self {
        case .loanNotFound, .noCopyWithBarcode, .noTitleWithISBN: "not_found"
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
        case .loanNotFound, .copyNotAvailable: nil
        }
    }

    var details: [String: String]? {
        switch self {
        case .notOnLoan(let barcode): ["barcode": barcode]
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

extension ISBN.Invalid: DomainError {
    var refusal: Refusal { .invalid }
    var code: String { "invalid" }
    var field: String? { "isbn" }

    func message(_ t: Strings) -> String {
        switch self {
        case .empty: t(.errISBNEmpty)
        case .badCharacters: t(.errISBNCharacters)
        case .wrongLength(let n): t.format(.errISBNLength, t.number(n))
        case .badChecksum: t(.errISBNChecksum)
        case .notABookEAN: t(.errISBNNotBook)
        }
    }
}

extension InputProblem: DomainError {
    var refusal: Refusal { .invalid }
    var code: String { "invalid" }

    var field: String? {
        switch self {
        case .empty(let field), .tooLong(let field, _), .outOfRange(let field, _, _, _), .notEmail(let field, _), .notCoverURL(let field),
             .notANumber(let field): field
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .empty(let field): t.format(.errEmpty, t.label(field))
        case .tooLong(let field, let max): t.format(.errTooLong, t.label(field), t.number(max))
        case .outOfRange(let field, let min, let max, let got): t.format(.errOutOfRange, t.label(field), t.number(min), t.number(max), t.number(got))
        case .notEmail(_, let value): t.format(.errNotEmail, value)
        case .notCoverURL(let field): t.format(.errNotCoverURL, t.label(field))
        case .notANumber(let field): t.format(.errNotANumber, t.label(field))
        }
    }
}

// MARK: - Import, export, backup and restore

enum ExchangeError: DomainError, Equatable {
    case emptyFile
    case noMARCRecords
    case marcXMLUnreadable(detail: String?)
    case notJSON
    case notLibraryThingJSON
    case csv(CSVReader.Failure)
    case unknownFormat
    case missingColumns([String])
    case cannotOpen(path: String)
    case notABackup
    case newerBackup(version: Int)
    case backupTooLarge(rows: Int, max: Int)
    case unreadableBackup(at: String?)
    case backupSettingOutOfRange(field: String, value: Int)
    case backupLibraryName
    case backupCover(number: Int, CoverProblem)
    case backupChosenAsImport
    case memberListTooLarge(maxMB: Int)

    var refusal: Refusal { .invalid }

    var code: String {
        switch self {
        case .unreadableBackup: "bad_backup"
        default: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .unknownFormat: "format"
        default: "file"
        }
    }

    var details: [String: String]? {
        switch self {
        case .marcXMLUnreadable(let detail): detail.map { ["detail": $0] }
        case .unknownFormat: ["formats": ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")]
        case .missingColumns(let columns): ["columns": columns.joined(separator: ", ")]
        case .unreadableBackup(let at): at.map { ["at": $0] }
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        func quoted(_ columns: [String]) -> String {
            columns.map { t.lang == .de ? "„\($0)“" : (t.lang == .zh ? "“\($0)”" : "“\($0)”") }.joined(separator: ", ")
        }
        switch self {
        case .emptyFile: return t(.errFileEmpty)
        case .noMARCRecords: return t(.errNoMARCRecords)
        case .marcXMLUnreadable: return t(.errMARCXMLUnreadable)
        case .notJSON: return t(.errNotJSON)
        case .notLibraryThingJSON: return t(.errNotLibraryThingJSON)
        case .csv(.unterminatedQuote(let line, let column)): return t.format(.errCSVUnterminated, t.number(line), t.number(column))
        case .csv(.strayQuote(let line, let column)): return t.format(.errCSVStrayQuote, t.number(line), t.number(column))
        case .unknownFormat: return t.format(.errUnknownFormat, ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))
        case .missingColumns(let columns): return t.format(.errMissingColumns, quoted(columns))
        case .cannotOpen(let path): return t.format(.errCannotOpen, path)
        case .notABackup: return t(.errNotABackup)
        case .newerBackup(let version): return t.format(.errNewerBackup, t.number(version))
        case .backupTooLarge(let rows, let max): return t.format(.errBackupTooLarge, t.number(rows), t.number(max))
        case .unreadableBackup(let at): return at.map { t.format(.errBadBackupAt, $0) } ?? t(.errBadBackup)
        case .backupSettingOutOfRange(let field, let value): return t.format(.errBackupSetting, t.label(field), t.number(value))
        case .backupLibraryName: return t(.errBackupLibraryName)
        case .backupCover(let number, let problem): return t.format(.errNotRestored, problem.message(t, number: number))
        case .backupChosenAsImport: return t(.errBackupAsImport)
        case .memberListTooLarge(let mb): return t.format(.errMemberListTooLarge, t.number(mb), t.number(MemberExchange.maxRows))
        }
    }
}

// MARK: - Library settings

enum LibraryError: DomainError, Equatable {
    case unknownTimeZone(String)

    var refusal: Refusal { .invalid }
    var code: String { "invalid" }
    var field: String? { "timeZone" }

    func message(_ t: Strings) -> String {
        switch self {
        case .unknownTimeZone(let name): t.format(.errUnknownTimeZone, name)
        }
    }
}

// MARK: - Background jobs

enum JobError: DomainError, Equatable {
    case notFound
    case busy
    case interrupted

    var refusal: Refusal {
        switch self {
        case .notFound: .notFound
        case .busy, .interrupted: .conflict
        }
    }

    var code: String {
        switch self {
        case .notFound: "not_found"
        case .busy: "job_running"
        case .interrupted: "job_interrupted"
        }
    }

    func message(_ t: Strings) -> String {
        switch self {
        case .notFound: t(.errJobNotFound)
        case .busy: t(.errJobRunning)
        case .interrupted: t(.errJobInterrupted)
        }
    }
}

extension Strings {
    /// A role's name in this language.
    func role(_ role: Role) -> String {
        switch role {
        case .owner: self(.roleOwner)
        case .librarian: self(.roleLibrarian)
        case .volunteer: self(.roleVolunteer)
        case .viewer: self(.roleViewer)
        }
    }
}
