import Foundation
import ShelfmarkCore
import ShelfmarkLookup
import Vapor

struct ISBNLookupInput: Content {
    var isbn: String
    /// When given (and the user is a member), the answer says whether this library has the ISBN.
    var libraryId: UUID?
}

/// The forms of a valid ISBN.
struct ISBNForms: Content {
    var isbn13: String
    var isbn10: String?
    var hyphenated: String
    var hyphenatedIsbn10: String?

    init(_ isbn: ISBN) {
        isbn13 = isbn.isbn13
        isbn10 = isbn.isbn10
        hyphenated = isbn.hyphenated
        hyphenatedIsbn10 = isbn.hyphenatedISBN10
    }
}

struct FieldSource: Content {
    var field: String
    var provider: String
}

/// A provider record (or the merge of several) as the API shows it: every A1/A4 field.
struct BookRecordDTO: Content {
    var isbn13: String?
    var isbn10: String?
    var title: String?
    var subtitle: String?
    var authors: [String]
    var publisher: String?
    var publishedDate: String?
    var pageCount: Int?
    var language: String?
    var description: String?
    var coverUrl: String?
    var categories: [String]
    var googleBooksUrl: String?
    var openLibraryUrl: String?
    /// Which provider gave each field (merge by provider priority).
    var fieldSources: [FieldSource]

    init(_ r: BookRecord) {
        isbn13 = r.isbn13
        isbn10 = r.isbn10
        title = r.title
        subtitle = r.subtitle
        authors = r.authors ?? []
        publisher = r.publisher
        publishedDate = r.publishedDate
        pageCount = r.pageCount
        language = r.language
        description = r.description
        coverUrl = r.coverURL
        categories = r.categories ?? []
        googleBooksUrl = r.links?[ProviderID.googleBooks.rawValue]
        openLibraryUrl = r.links?[ProviderID.openLibrary.rawValue]
        fieldSources = BookRecord.mergedFields.compactMap { field in
            r.fieldSources?[field].map { FieldSource(field: field == "coverURL" ? "coverUrl" : field, provider: $0) }
        }
    }
}

struct ProviderOutcomeDTO: Content {
    /// `google_books` or `open_library`.
    var provider: String
    /// `found`, `not_found`, `failed` or `timed_out`.
    var status: String
    var message: String?
    var milliseconds: Int

    init(_ o: ProviderOutcome) {
        provider = o.provider.rawValue
        status = o.status.rawValue
        message = o.message
        milliseconds = o.milliseconds
    }
}

/// The library already has this ISBN: offer "add N more copies".
struct ExistingTitleDTO: Content {
    var id: UUID
    var title: String
    var wishlist: Bool
    var totalCopies: Int
    var availableCopies: Int
    var addCopiesUrl: String
}

struct ISBNLookupResponse: Content {
    var isbn: ISBNForms
    var found: Bool
    var record: BookRecordDTO?
    /// Answered from the cache, and how old that answer is.
    var cached: Bool
    var fetchedAt: Date
    var ageSeconds: Int
    var sources: [ProviderOutcomeDTO]
    var existing: ExistingTitleDTO?
    /// When nothing was found: what happened and what to do.
    var message: String?
}

struct LookupSearchResponse: Content {
    var candidates: [BookRecordDTO]
    var sources: [ProviderOutcomeDTO]
    var message: String?
}
