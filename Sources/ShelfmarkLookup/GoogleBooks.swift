import Foundation
import ShelfmarkCore

/// Google Books: `GET /books/v1/volumes?q=isbn:…` and `q=intitle:…+inauthor:…`. No API key.
public struct GoogleBooksProvider: MetadataProvider {
    public let id = ProviderID.googleBooks
    public var baseURL: String
    public var http: HTTPFetcher

    public init(baseURL: String, http: HTTPFetcher) {
        self.baseURL = baseURL
        self.http = http
    }

    public func lookup(isbn: ISBN) async throws -> BookRecord? {
        guard let list = try await http.getJSON(Volumes.self, "\(baseURL)/books/v1/volumes?q=isbn:\(isbn.isbn13)") else { return nil }
        return Self.pick(list.items ?? [], for: isbn).map { Self.record($0, isbn: isbn) }
    }

    public func search(_ query: SearchQuery) async throws -> [BookRecord] {
        var q: [String] = []
        if let title = query.title, !title.isEmpty { q.append("intitle:\(title)") }
        if let author = query.author, !author.isEmpty { q.append("inauthor:\(author)") }
        if q.isEmpty || !query.text.isEmpty && query.title == nil { q.insert(query.text, at: 0) }
        let limit = max(1, min(query.limit, 40))
        let url = "\(baseURL)/books/v1/volumes?q=\(URLQuery.encode(q.joined(separator: " ")))&maxResults=\(limit)&printType=books"
        guard let list = try await http.getJSON(Volumes.self, url) else { return [] }
        return (list.items ?? []).map { Self.record($0, isbn: nil) }.map { $0.cleaned() }.filter(\.isUsable)
    }

    /// The volume that is this ISBN: one listing it among its identifiers. Google sometimes
    /// answers an ISBN query with volumes that carry no ISBN at all (only `OTHER` ids); such a
    /// volume is taken only when it is the sole answer. One whose ISBNs are all different is never
    /// taken: a wrong book is worse than none.
    static func pick(_ items: [Volume], for isbn: ISBN) -> Volume? {
        if let exact = items.first(where: { $0.isbns.contains(isbn.isbn13) }) { return exact }
        if items.count == 1, let only = items.first, only.isbns.isEmpty { return only }
        return nil
    }

    static func record(_ volume: Volume, isbn: ISBN?) -> BookRecord {
        let info = volume.volumeInfo
        let ids = info.industryIdentifiers ?? []
        let isbn13 = isbn?.isbn13 ?? ids.first(where: { $0.type == "ISBN_13" }).flatMap { try? ISBN($0.identifier).isbn13 }
        let isbn10 = isbn?.isbn10 ?? ids.first(where: { $0.type == "ISBN_10" })?.identifier
        var link = info.infoLink ?? info.canonicalVolumeLink
        if link == nil, let vid = volume.id { link = "https://books.google.com/books?id=\(vid)" }
        return BookRecord(
            isbn13: isbn13,
            isbn10: isbn10,
            title: info.title,
            subtitle: info.subtitle,
            authors: info.authors,
            publisher: info.publisher,
            publishedDate: info.publishedDate,
            pageCount: info.pageCount ?? info.printedPageCount,
            language: LanguageCode.normalise(info.language),
            description: info.description.map(HTMLText.plain),
            coverURL: cover(info.imageLinks),
            categories: info.categories,
            links: link.map { [ProviderID.googleBooks.rawValue: $0] }
        ).cleaned()
    }

    /// The largest image Google offers, over HTTPS and without the page-curl effect.
    static func cover(_ links: [String: String]?) -> String? {
        guard let links else { return nil }
        for size in ["extraLarge", "large", "medium", "small", "thumbnail", "smallThumbnail"] {
            guard var url = links[size], !url.isEmpty else { continue }
            if url.hasPrefix("http://books.google.") || url.hasPrefix("http://books.googleusercontent.") {
                url = "https://" + url.dropFirst("http://".count)
            }
            url = url.replacingOccurrences(of: "&edge=curl", with: "")
            return url
        }
        return nil
    }

    struct Volumes: Decodable {
        var totalItems: Int?
        var items: [Volume]?
    }

    struct Volume: Decodable {
        var id: String?
        var volumeInfo: Info

        var isbns: [String] {
            (volumeInfo.industryIdentifiers ?? []).compactMap { id in
                guard id.type == "ISBN_13" || id.type == "ISBN_10" else { return nil }
                return try? ISBN(id.identifier).isbn13
            }
        }
    }

    struct Info: Decodable {
        var title: String?
        var subtitle: String?
        var authors: [String]?
        var publisher: String?
        var publishedDate: String?
        var description: String?
        var industryIdentifiers: [Identifier]?
        var pageCount: Int?
        var printedPageCount: Int?
        var categories: [String]?
        var imageLinks: [String: String]?
        var language: String?
        var infoLink: String?
        var canonicalVolumeLink: String?
    }

    struct Identifier: Decodable {
        var type: String
        var identifier: String
    }
}
