import Foundation
import ShelfmarkCore
import Vapor

/// Body of creating a title or a wishlist item. Only `title` is required, unless an
/// `isbn` is given: then the providers fill in the record and any field given here wins.
struct TitleCreate: Content {
    var title: String?
    var subtitle: String?
    var authors: [String]?
    var isbn: String?
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var language: String?
    var description: String?
    var coverUrl: String?
    var notes: String?
    var favorite: Bool?
    var rating: Double?
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
    var categories: [String]?
    var copies: Int?
    var location: String?
    /// A wish only: who asked for it, and its priority (1 low, 2 normal, 3 high).
    var requestedBy: String? = nil
    var priority: Int? = nil
    /// Where it stands on the shelf ("823.914 ROW"); a national library's record suggests one.
    var callNumber: String? = nil
    /// The other series it belongs to, after `series` (at most five).
    var moreSeries: [SeriesEntry]? = nil
}

/// Body of editing a title: only the fields present change. `totalCopies` adds or removes
/// available copies, never below the number on loan.
struct TitlePatch: Content {
    var title: String?
    var subtitle: String?
    var authors: [String]?
    var isbn: String?
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var language: String?
    var description: String?
    var coverUrl: String?
    var notes: String?
    var favorite: Bool?
    var rating: Double?
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
    var categories: [String]?
    var totalCopies: Int?
    /// An empty text removes it.
    var callNumber: String? = nil
    /// The other series it belongs to, after `series` (at most five); an empty list removes them.
    var moreSeries: [SeriesEntry]? = nil
}

struct CopiesAdd: Content {
    var count: Int?
    var location: String?
}

struct CopyPatch: Content {
    var barcode: String?
    var location: String?
    var condition: String?
    var status: CopyStatus?
    /// Why the copy is lost, damaged or withdrawn (kept with the date it was marked).
    var statusNote: String? = nil
    /// This copy's own call number, where it differs from the title's (a reference copy: "REF 823.914 ROW");
    /// an empty text removes it.
    var callNumber: String? = nil
}

struct CopyDTO: Content {
    var id: UUID
    var titleId: UUID
    var copyNumber: Int
    var barcode: String
    var location: String?
    var condition: String?
    var status: CopyStatus
    /// Why and when it was marked lost, damaged or withdrawn.
    var statusNote: String? = nil
    var statusAt: Date? = nil
    /// Its own call number where it differs from the title's.
    var callNumber: String? = nil
}

/// A title as lists show it: enough for a row with cover, badge and A–Z section.
struct TitleSummary: Content {
    var id: UUID
    var isbn13: String?
    var title: String
    var authors: [String]
    var coverUrl: String?
    var favorite: Bool
    var rating: Double?
    var wishlist: Bool
    var section: String
    var availability: Availability
    var overdue: Bool
    /// The shelves its copies stand on, those with a copy to lend first.
    var shelves: [String] = []
    /// Where it stands in shelf order ("823.914 ROW").
    var callNumber: String? = nil
}

struct CategoryRef: Content {
    var id: UUID
    var name: String
}

struct TitleDetail: Content {
    var id: UUID
    var isbn13: String?
    var isbn10: String?
    /// Hyphenated by the ISBN Agency's ranges, e.g. 978-0-306-40615-7.
    var isbnHyphenated: String?
    var title: String
    var subtitle: String?
    var authors: [String]
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var language: String?
    var description: String?
    var coverUrl: String?
    var notes: String?
    var favorite: Bool
    var rating: Double?
    var wishlist: Bool
    var series: String?
    var seriesNumber: String?
    var readingLevel: String?
    var section: String
    var categories: [CategoryRef]
    var availability: Availability
    var copies: [CopyDTO]
    var loans: [LoanDTO]
    var links: [String: String]
    var createdAt: Date?
    var updatedAt: Date?
    /// The library's rating (`rating`) and its readers' ratings (from their reads) averaged; nil when nobody rated it.
    var ratingAverage: Double? = nil
    /// How many of the library's readers rated it.
    var ratingCount = 0
    /// Where it stands in shelf order ("823.914 ROW"), as the library writes it.
    var callNumber: String? = nil
    /// Whether a national library's MARC record is kept with it (`GET …/titles/{id}/marc`).
    var hasMarcRecord = false
    /// The other series it belongs to, after `series` ("Mort": Discworld #4, then Death #1).
    var moreSeries: [SeriesEntry] = []
}

struct SectionCount: Content {
    var letter: String
    var count: Int
}

/// How a list of titles is ordered.
/// Where the one asking is with a book: a reading status of theirs, or `unread` (not finished by them).
enum ReadingFilter: String, Codable, Sendable, CaseIterable, SchemaEnum {
    case wantToRead = "want_to_read"
    case reading
    case finished
    case didNotFinish = "did_not_finish"
    case unread
}

enum TitleSort: String, Codable, Sendable, CaseIterable, SchemaEnum {
    /// A–Z by title (leading articles ignored), in A–Z sections.
    case title
    /// By the authors' names.
    case author
    /// The most recently added first.
    case newest
    /// The most often lent first.
    case borrowed
    /// Shelf order: by call number as a librarian compares them (titles without one last).
    case shelf
}

struct TitleList: Content {
    enum Order: String, Codable, Sendable, CaseIterable, SchemaEnum {
        /// A–Z by title (leading articles ignored).
        case title
        /// Newest first: a search matching more than 1,000 titles.
        case recent
    }

    var items: [TitleSummary]
    var total: Int
    /// True when a broad search stopped counting: at least `total` titles match.
    var totalIsLowerBound: Bool
    var order: Order
    var limit: Int
    var offset: Int
    var favoritesCount: Int
    /// A–Z index: every section that has titles under the current filters, in order.
    var sections: [SectionCount]?
}

struct CategoryInput: Content {
    var name: String
}

/// Body of merging a category into another: `into` is the category that stays.
struct CategoryMerge: Content {
    var into: UUID
}

struct CategoryDTO: Content {
    var id: UUID
    var name: String
    var titleCount: Int
    /// The call-number scheme of its books: a prefix ("F", "J") and whether the Dewey class follows.
    var callNumberPrefix: String?
    var callNumberDewey: Bool = false
}

struct AcquireInput: Content {
    var copies: Int?
    var location: String?
}
