import ShelfmarkCore
import Vapor

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
