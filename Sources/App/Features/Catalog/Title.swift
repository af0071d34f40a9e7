import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore

/// A work in the catalog (or on the wishlist): the bibliographic record shared by its copies.
final class Title: Model, @unchecked Sendable {
    static let schema = "titles"

    @ID(key: .id) var id: UUID?
    /// Its library's number (`libraries.no`, `TitlesByLibraryNumber`).
    @Field(key: "library_no") var libraryNo: Int
    @OptionalField(key: "isbn13") var isbn13: String?
    @Field(key: "title") var title: String
    @OptionalField(key: "subtitle") var subtitle: String?
    @Field(key: "authors") var authors: [String]
    @OptionalField(key: "publisher") var publisher: String?
    @OptionalField(key: "published_date") var publishedDate: String?
    @OptionalField(key: "page_count") var pageCount: Int?
    @OptionalField(key: "language") var language: String?
    @OptionalField(key: "description") var summary: String?
    @OptionalField(key: "cover_url") var coverURL: String?
    @OptionalField(key: "notes") var notes: String?
    @Field(key: "favorite") var favorite: Bool
    @OptionalField(key: "rating") var rating: Double?
    @Field(key: "wishlist") var wishlist: Bool
    @OptionalField(key: "series") var series: String?
    @OptionalField(key: "series_number") var seriesNumber: String?
    @OptionalField(key: "reading_level") var readingLevel: String?
    /// The reading level read into its scheme, number and AR points (`ReadingLevel`), kept by `refreshDerived`.
    @OptionalField(key: "level_scheme") var levelScheme: String?
    @OptionalField(key: "level_value") var levelValue: Double?
    @OptionalField(key: "level_points") var levelPoints: Double?
    @OptionalField(key: "requested_by") var requestedBy: String?
    @OptionalField(key: "priority") var priority: Int?
    @OptionalField(key: "asin") var asin: String?
    /// As the library writes it; `callNumberSort` keeps its shelf order (`setCallNumber`).
    @OptionalField(key: "call_number") var callNumber: String?
    @Field(key: "call_number_sort") var callNumberSort: String
    /// A national library's MARC record of the book, as MARCXML.
    @OptionalField(key: "marc_record") var marcRecord: String?
    @Field(key: "sort_key") var sortKey: String
    @Field(key: "section") var section: String
    @Field(key: "search_text") var searchText: String
    /// The folded author line the "by author" order reads (`authorKey(_:)`).
    @Field(key: "author_key") var authorKey: String
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?
    @Timestamp(key: "updated_at", on: .update) var updatedAt: Date?

    @Siblings(through: TitleCategory.self, from: \.$title, to: \.$category) var categories: [Category]
    @Children(for: \.$title) var copies: [Copy]

    init() { callNumberSort = Self.noCallNumber }

    /// The shelf-order key of a title without a call number: after every other.
    static let noCallNumber = "~"

    static func callNumberSortKey(_ callNumber: String?) -> String {
        callNumber.map(CallNumber.sortKey).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) } ?? noCallNumber
    }

    func setCallNumber(_ raw: String?) {
        callNumber = CallNumber.normalised(raw)
        callNumberSort = Self.callNumberSortKey(callNumber)
    }

    /// Recomputes the derived columns: sort key, A–Z section and the folded text the search index reads.
    func refreshDerived() {
        (sortKey, section, searchText) = Self.derived(title: title, subtitle: subtitle, authors: authors, series: series, isbn13: isbn13)
        authorKey = Self.authorKey(authors)
        let level = readingLevel.flatMap(ReadingLevel.parse)
        (levelScheme, levelValue, levelPoints) = (level?.scheme.rawValue, level?.value, level?.points)
    }

    /// Authors as the "by author" order compares them: folded ("Éamonn" with "eamonn"), as written,
    /// first author first; a title without authors after every name.
    static func authorKey(_ authors: [String]) -> String {
        let key = SearchText.tokens(authors.joined(separator: " ")).joined(separator: " ")
        return key.isEmpty ? "~" : String(key.prefix(200))
    }

    static func derived(title: String, subtitle: String?, authors: [String], series: String?, isbn13: String?)
        -> (sortKey: String, section: String, searchText: String) {
        let sortKey = SearchText.sortKey(title)
        var isbnForms: [String?] = [isbn13]
        if let isbn13, let isbn = try? ISBN(isbn13) { isbnForms.append(isbn.isbn10) }
        return (sortKey, SearchText.section(forSortKey: sortKey),
                SearchText.document([title, subtitle, authors.joined(separator: " "), series] + isbnForms))
    }

    var authorLine: String { authors.joined(separator: ", ") }
}

extension QueryBuilder {
    /// The rows of library `id` (titles, copies, loans: a table of `LibraryNumber.tables`).
    func inLibrary(_ id: UUID) -> Self { filter(.sql(embed: LibraryNumber.rows(of: Model.schema, id, alias: Model.schema))) }
}

final class Category: Model, @unchecked Sendable {
    static let schema = "categories"

    @ID(key: .id) var id: UUID?
    @Parent(key: "library_id") var library: Library
    @Field(key: "name") var name: String
    /// The school's call-number scheme for the category's books (`CategoryCallNumbers`).
    @OptionalField(key: "call_number_prefix") var callNumberPrefix: String?
    @OptionalField(key: "call_number_dewey") var callNumberDewey: Bool?
    @Timestamp(key: "created_at", on: .create) var createdAt: Date?

    init() {}

    init(libraryID: UUID, name: String) {
        self.$library.id = libraryID
        self.name = name
    }
}

final class TitleCategory: Model, @unchecked Sendable {
    static let schema = "title_categories"

    @ID(key: .id) var id: UUID?
    @Parent(key: "title_id") var title: Title
    @Parent(key: "category_id") var category: Category

    init() {}
}
