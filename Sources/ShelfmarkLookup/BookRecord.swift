import Foundation
import ShelfmarkCore

/// The metadata providers this build knows, in their default priority (first wins a field).
public enum ProviderID: String, Codable, Sendable, CaseIterable {
    case googleBooks = "google_books"
    case openLibrary = "open_library"
    /// National libraries' catalogues over SRU: off until a library turns them on.
    case dnb
    case libraryOfCongress = "loc"
    case k10plus

    public var displayName: String {
        switch self {
        case .googleBooks: "Google Books"
        case .openLibrary: "Open Library"
        case .dnb: "Deutsche Nationalbibliothek"
        case .libraryOfCongress: "Library of Congress"
        case .k10plus: "K10plus (GBV/SWB)"
        }
    }

    /// A national library's catalogue (its records are MARC, kept with the title).
    public var isNationalLibrary: Bool { self != .googleBooks && self != .openLibrary }

    /// The sources a lookup asks when the installation has not chosen.
    public static let defaultOrder: [ProviderID] = [.googleBooks, .openLibrary]
}

/// A bibliographic record as a provider (or the merge of several) describes a book: every field
/// A1/A4 shows. Empty strings and lists never appear; a field a provider lacks is `nil`.
public struct BookRecord: Codable, Sendable, Equatable {
    public var isbn13: String?
    public var isbn10: String?
    public var title: String?
    public var subtitle: String?
    public var authors: [String]?
    public var publisher: String?
    public var publishedDate: String?
    public var pageCount: Int?
    /// ISO 639-1 where the provider's code maps to one ("en"), else the provider's own code.
    public var language: String?
    /// Plain text: providers' HTML is reduced to paragraphs.
    public var description: String?
    /// The provider's cover image, the largest it offers.
    public var coverURL: String?
    public var categories: [String]?
    /// Where the record came from, for "View on Google Books" and friends: provider id → page.
    public var links: [String: String]?
    /// Which provider (its id) supplied each field of a merged record.
    public var fieldSources: [String: String]?
    /// The Dewey Decimal Classification number a catalogue gave (MARC 082), as it gave it.
    public var deweyNumber: String?
    /// A Library of Congress call number (MARC 050 $a $b).
    public var lcCallNumber: String?
    /// A national library's MARC record, as MARCXML: kept with the title as it came.
    public var marcXML: String?

    public init(isbn13: String? = nil, isbn10: String? = nil, title: String? = nil, subtitle: String? = nil,
                authors: [String]? = nil, publisher: String? = nil, publishedDate: String? = nil,
                pageCount: Int? = nil, language: String? = nil, description: String? = nil,
                coverURL: String? = nil, categories: [String]? = nil, links: [String: String]? = nil) {
        self.isbn13 = isbn13
        self.isbn10 = isbn10
        self.title = title
        self.subtitle = subtitle
        self.authors = authors
        self.publisher = publisher
        self.publishedDate = publishedDate
        self.pageCount = pageCount
        self.language = language
        self.description = description
        self.coverURL = coverURL
        self.categories = categories
        self.links = links
    }

    /// True when the record has something worth showing: at least a title.
    public var isUsable: Bool { title != nil }

    /// Drops empty strings and lists so that "missing" has one spelling.
    public func cleaned() -> BookRecord {
        func s(_ v: String?) -> String? {
            guard let t = v?.trimmingCharacters(in: .whitespacesAndNewlines), !t.isEmpty else { return nil }
            return t
        }
        func list(_ v: [String]?) -> [String]? {
            var seen = Set<String>()
            let items = (v ?? []).compactMap(s).filter { seen.insert($0.lowercased()).inserted }
            return items.isEmpty ? nil : items
        }
        var r = self
        r.isbn13 = s(isbn13); r.isbn10 = s(isbn10); r.title = s(title); r.subtitle = s(subtitle)
        r.authors = list(authors); r.publisher = s(publisher); r.publishedDate = s(publishedDate)
        r.pageCount = pageCount.flatMap { $0 > 0 ? $0 : nil }
        r.language = s(language); r.description = s(description); r.coverURL = s(coverURL)
        r.categories = list(categories)
        r.deweyNumber = s(deweyNumber); r.lcCallNumber = s(lcCallNumber); r.marcXML = s(marcXML)
        if r.links?.isEmpty == true { r.links = nil }
        return r
    }
}

extension BookRecord {
    /// The names `fieldSources` uses, in the order records list them.
    public static let mergedFields = [
        "title", "subtitle", "authors", "publisher", "publishedDate", "pageCount", "language",
        "description", "coverURL", "categories", "isbn10", "deweyNumber", "lcCallNumber", "marcXML",
    ]

    /// Field by field, the first record (in priority order) that has a value gives it.
    public static func merge(_ records: [(ProviderID, BookRecord)]) -> BookRecord? {
        let usable = records.map { ($0.0, $0.1.cleaned()) }.filter { $0.1.isUsable }
        guard !usable.isEmpty else { return nil }
        var merged = BookRecord()
        var sources: [String: String] = [:]
        var links: [String: String] = [:]
        func take<T>(_ name: String, _ path: WritableKeyPath<BookRecord, T?>) {
            for (provider, record) in usable {
                if let value = record[keyPath: path] {
                    merged[keyPath: path] = value
                    sources[name] = provider.rawValue
                    return
                }
            }
        }
        take("title", \.title)
        take("subtitle", \.subtitle)
        take("authors", \.authors)
        take("publisher", \.publisher)
        take("publishedDate", \.publishedDate)
        take("pageCount", \.pageCount)
        take("language", \.language)
        take("description", \.description)
        take("coverURL", \.coverURL)
        take("categories", \.categories)
        take("isbn10", \.isbn10)
        take("deweyNumber", \.deweyNumber)
        take("lcCallNumber", \.lcCallNumber)
        take("marcXML", \.marcXML)
        merged.isbn13 = usable.lazy.compactMap { $0.1.isbn13 }.first
        for (_, record) in usable {
            for (key, value) in record.links ?? [:] where links[key] == nil { links[key] = value }
        }
        merged.links = links.isEmpty ? nil : links
        merged.fieldSources = sources
        return merged
    }
}

/// ISO 639-2 (bibliographic and terminologic) codes Open Library uses, mapped to ISO 639-1.
enum LanguageCode {
    static let twoLetter: [String: String] = [
        "eng": "en", "ger": "de", "deu": "de", "fre": "fr", "fra": "fr", "spa": "es", "ita": "it",
        "gle": "ga", "chi": "zh", "zho": "zh", "jpn": "ja", "por": "pt", "rus": "ru", "dut": "nl",
        "nld": "nl", "swe": "sv", "dan": "da", "nor": "no", "fin": "fi", "pol": "pl", "cze": "cs",
        "ces": "cs", "gre": "el", "ell": "el", "tur": "tr", "ara": "ar", "heb": "he", "hin": "hi",
        "kor": "ko", "lat": "la", "wel": "cy", "cym": "cy", "gla": "gd", "ice": "is", "isl": "is",
        "hun": "hu", "ukr": "uk", "cat": "ca", "rum": "ro", "ron": "ro",
    ]

    static func normalise(_ code: String?) -> String? {
        guard let raw = code?.trimmingCharacters(in: .whitespaces).lowercased(), !raw.isEmpty else { return nil }
        if raw.count == 3, let two = twoLetter[raw] { return two }
        return raw
    }
}

extension BookRecord {
    /// The call number a record suggests: its Dewey class with three letters of the author
    /// ("833.92 HER"), else the Library of Congress call number as given; nil without either.
    public var suggestedCallNumber: String? {
        CallNumber.suggest(prefix: nil, dewey: deweyNumber, authors: authors ?? [], title: title)
            ?? lcCallNumber.flatMap(CallNumber.normalised)
    }
}
