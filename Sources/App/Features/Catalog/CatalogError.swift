import ShelfmarkCore
import Vapor

enum CatalogError: DomainError, Equatable {
    case titleNotFound
    /// The title keeps no national library's MARC record.
    case noMARCRecord
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
    case tooManySeries(max: Int)
    case tooManyAuthors(max: Int)
    case tooManyCopiesAtOnce(max: Int, from: Int, to: Int)
    case noISBNToDraw(title: String)
    case cover(CoverProblem)
    case publishedDateWithoutYear(String)
    case callNumberPrefix

    var described: Described {
        switch self {
        case .titleNotFound: .init(.notFound, "not_found") { $0(.errTitleNotFound) }
        case .noMARCRecord: .init(.notFound, "no_marc_record") { $0(.errNoMARCRecord) }
        case .copyNotFound: .init(.notFound, "not_found") { $0(.errCopyNotFound) }
        case .categoryNotFound: .init(.notFound, "not_found") { $0(.errCategoryNotFound) }
        case .coverNotFound: .init(.notFound, "not_found") { $0(.errCoverNotFound) }
        case .noISBNToDraw(let title): .init(.notFound, "no_isbn", field: "isbn") { $0.format(.errNoISBNToDraw, title) }
        case .ratingOutOfRange(let got):
            .init(.invalid, "invalid", field: "rating") { $0.format(.errRating, got.formatted(.number.locale($0.lang.locale))) }
        case .mergeIntoItself: .init(.conflict, "merge_into_itself", field: "into") { $0(.errMergeIntoItself) }
        case .wishlistHasNoCopies: .init(.invalid, "invalid", field: "copies") { $0(.errWishlistNoCopies) }
        case .wishlistItem(let title): .init(.conflict, "wishlist_item") { $0.format(.errWishlistItemNamed, title) }
        case .notWishlist(let title): .init(.conflict, "not_wishlist") { $0.format(.errNotWishlist, title) }
        case .duplicateBarcode(let barcode):
            .init(.conflict, "duplicate_barcode", field: "barcode", details: ["barcode": barcode]) { $0.format(.errDuplicateBarcode, barcode) }
        case .loanedByEditing: .init(.invalid, "invalid", field: "status") { $0(.errLoanedByEditing) }
        case .duplicateCategory(let name):
            .init(.conflict, "duplicate_category", field: "name", details: ["name": name]) { $0.format(.errDuplicateCategory, name) }
        case .duplicateISBN(let title, let id, let library):
            .init(.conflict, "duplicate_isbn", field: "isbn",
                  details: ["existingTitleId": id.uuidString, "title": title, "addCopies": APILink.titleCopies(library: library, title: id).path]) {
                $0.format(.errDuplicateISBN, title)
            }
        case .tooManyCategories(let max): .init(.invalid, "invalid", field: "categories") { $0.format(.errTooManyCategories, $0.number(max)) }
        case .tooManySeries(let max): .init(.invalid, "invalid", field: "moreSeries") { $0.format(.errTooManySeries, $0.number(max)) }
        case .tooManyAuthors(let max): .init(.invalid, "invalid", field: "authors") { $0.format(.errTooManyAuthors, $0.number(max)) }
        case .tooManyCopiesAtOnce(let max, let from, let to):
            .init(.conflict, "too_many_copies_at_once", field: "totalCopies", details: ["max": String(max), "from": String(from), "to": String(to)]) {
                $0.format(.errTooManyCopiesAtOnce, $0.number(max))
            }
        case .cover(let problem): .init(.invalid, "invalid", field: "cover") { problem.message($0, number: nil) }
        case .callNumberPrefix: .init(.invalid, "invalid", field: "prefix") { $0(.errCategoryPrefix) }
        case .publishedDateWithoutYear(let got):
            .init(.invalid, "invalid", field: "publishedDate") { $0.format(.errPublishedNoYear, String(got.prefix(40))) }
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
