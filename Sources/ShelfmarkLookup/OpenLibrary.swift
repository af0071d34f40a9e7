import Foundation
import ShelfmarkCore

/// Open Library: `GET /api/books?bibkeys=ISBN:…&jscmd=data&format=json`, `GET /search.json`, and
/// cover images from covers.openlibrary.org. No API key.
public struct OpenLibraryProvider: MetadataProvider {
    public let id = ProviderID.openLibrary
    public var baseURL: String
    public var coversURL: String
    public var http: HTTPFetcher

    public init(baseURL: String, coversURL: String, http: HTTPFetcher) {
        self.baseURL = baseURL
        self.coversURL = coversURL
        self.http = http
    }

    public func lookup(isbn: ISBN) async throws -> BookRecord? {
        let key = "ISBN:\(isbn.isbn13)"
        let url = "\(baseURL)/api/books?bibkeys=\(key)&jscmd=data&format=json"
        guard let answer = try await http.getJSON([String: Edition].self, url), let edition = answer[key] else { return nil }
        return record(edition, isbn: isbn)
    }

    public func search(_ query: SearchQuery) async throws -> [BookRecord] {
        var params: [String] = []
        if let title = query.title, !title.isEmpty { params.append("title=\(URLQuery.encode(title))") }
        if let author = query.author, !author.isEmpty { params.append("author=\(URLQuery.encode(author))") }
        if params.isEmpty || (!query.text.isEmpty && query.title == nil) { params.insert("q=\(URLQuery.encode(query.text))", at: 0) }
        params.append("limit=\(max(1, min(query.limit, 50)))")
        params.append("fields=key,title,subtitle,author_name,first_publish_year,publish_date,isbn,cover_i,publisher,language,number_of_pages_median,subject")
        let url = "\(baseURL)/search.json?" + params.joined(separator: "&")
        guard let result = try await http.getJSON(SearchResult.self, url) else { return [] }
        return (result.docs ?? []).map(record).filter(\.isUsable)
    }

    func record(_ e: Edition, isbn: ISBN) -> BookRecord {
        let isbn10 = isbn.isbn10 ?? e.identifiers?.isbn_10?.first
        var link = e.url
        if link == nil, let key = e.key { link = "https://openlibrary.org\(key)" }
        return BookRecord(
            isbn13: isbn.isbn13,
            isbn10: isbn10,
            title: e.title,
            subtitle: e.subtitle,
            authors: e.authors?.map(\.name),
            publisher: e.publishers?.first?.name,
            publishedDate: e.publish_date,
            pageCount: e.number_of_pages,
            language: nil,
            description: e.notes?.text.map(HTMLText.plain),
            coverURL: e.cover?.large ?? e.cover?.medium ?? e.cover?.small,
            categories: e.subjects.map { Array($0.map(\.name).prefix(5)) },
            links: link.map { [ProviderID.openLibrary.rawValue: $0] }
        ).cleaned()
    }

    func record(_ d: SearchDoc) -> BookRecord {
        let isbn = (d.isbn ?? []).lazy.compactMap { try? ISBN($0) }.first { $0.isbn13.hasPrefix("978") || $0.isbn13.hasPrefix("979") }
        return BookRecord(
            isbn13: isbn?.isbn13,
            isbn10: isbn?.isbn10,
            title: d.title,
            subtitle: d.subtitle,
            authors: d.author_name,
            publisher: d.publisher?.first,
            publishedDate: d.first_publish_year.map(String.init) ?? d.publish_date?.first,
            pageCount: d.number_of_pages_median,
            language: LanguageCode.normalise(d.language?.first),
            description: nil,
            coverURL: d.cover_i.map { "\(coversURL)/b/id/\($0)-L.jpg" },
            categories: d.subject.map { Array($0.prefix(5)) },
            links: d.key.map { [ProviderID.openLibrary.rawValue: "https://openlibrary.org\($0)"] }
        ).cleaned()
    }

    struct Named: Decodable { var name: String }

    /// `notes` is a plain string in some records and `{"type": "/type/text", "value": …}` in others.
    struct TextValue: Decodable {
        var text: String?
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) {
                text = s
            } else {
                struct Typed: Decodable { var value: String? }
                text = try c.decode(Typed.self).value
            }
        }
    }

    struct Edition: Decodable {
        var key: String?
        var url: String?
        var title: String?
        var subtitle: String?
        var authors: [Named]?
        var publishers: [Named]?
        var publish_date: String?
        var number_of_pages: Int?
        var notes: TextValue?
        var subjects: [Named]?
        var cover: Cover?
        var identifiers: Identifiers?
    }

    struct Cover: Decodable {
        var small: String?
        var medium: String?
        var large: String?
    }

    struct Identifiers: Decodable {
        var isbn_10: [String]?
        var isbn_13: [String]?
    }

    struct SearchResult: Decodable {
        var numFound: Int?
        var docs: [SearchDoc]?
    }

    struct SearchDoc: Decodable {
        var key: String?
        var title: String?
        var subtitle: String?
        var author_name: [String]?
        var first_publish_year: Int?
        var publish_date: [String]?
        var isbn: [String]?
        var cover_i: Int?
        var publisher: [String]?
        var language: [String]?
        var number_of_pages_median: Int?
        var subject: [String]?
    }
}
