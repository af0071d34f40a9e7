import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import ShelfmarkCore

/// A national library's catalogue over SRU (Search/Retrieve via URL, `operation=searchRetrieve`)
/// answering MARC 21 as MARCXML. One implementation; each library is a dialect: its CQL indexes
/// and the name it gives the MARCXML schema.
public struct SRUProvider: MetadataProvider {
    public struct Dialect: Sendable, Equatable {
        public var version: String
        public var schema: String
        public var isbnIndex: String
        public var titleIndex: String
        public var authorIndex: String
        public var anyIndex: String
    }

    public let id: ProviderID
    public var baseURL: String
    public var http: HTTPFetcher

    public init(id: ProviderID, baseURL: String, http: HTTPFetcher) {
        self.id = id
        self.baseURL = baseURL
        self.http = http
    }

    /// The indexes each catalogue documents: DNB (`num`, `tit`, `per`, `woe`; schema MARC21-xml),
    /// the Library of Congress (Bath and Dublin Core profiles; marcxml), K10plus (PICA indexes; marcxml).
    public static func dialect(_ id: ProviderID) -> Dialect {
        switch id {
        case .dnb: Dialect(version: "1.1", schema: "MARC21-xml", isbnIndex: "num", titleIndex: "tit", authorIndex: "per", anyIndex: "woe")
        case .libraryOfCongress: Dialect(version: "1.1", schema: "marcxml", isbnIndex: "bath.isbn", titleIndex: "dc.title", authorIndex: "dc.creator", anyIndex: "cql.anywhere")
        default: Dialect(version: "1.1", schema: "marcxml", isbnIndex: "pica.isb", titleIndex: "pica.tit", authorIndex: "pica.per", anyIndex: "pica.all")
        }
    }

    var dialect: Dialect { Self.dialect(id) }

    public func lookup(isbn: ISBN) async throws -> BookRecord? {
        let records = try await searchRetrieve("\(dialect.isbnIndex)=\(isbn.isbn13)", maximum: 3)
        // A catalogue may list a record for another edition that mentions the ISBN; prefer the one whose 020 has it.
        let exact = records.first { $0.isbns.contains(isbn.isbn13) } ?? records.first
        guard var record = exact?.book else { return nil }
        record.isbn13 = isbn.isbn13
        record.isbn10 = isbn.isbn10
        return record.cleaned()
    }

    public func search(_ query: SearchQuery) async throws -> [BookRecord] {
        var clauses: [String] = []
        if let title = query.title, !title.isEmpty { clauses.append("\(dialect.titleIndex)=\(Self.cqlTerm(title))") }
        if let author = query.author, !author.isEmpty { clauses.append("\(dialect.authorIndex)=\(Self.cqlTerm(author))") }
        if clauses.isEmpty {
            let words = query.words.prefix(8)
            guard !words.isEmpty else { return [] }
            clauses.append("\(dialect.anyIndex) all \(Self.cqlTerm(words.joined(separator: " ")))")
        }
        let records = try await searchRetrieve(clauses.joined(separator: " and "), maximum: max(1, min(query.limit, 20)))
        return records.compactMap(\.book).map { $0.cleaned() }.filter(\.isUsable)
    }

    /// A CQL term in quotes, its quotes and backslashes escaped.
    static func cqlTerm(_ text: String) -> String {
        let inner = text.prefix(200).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return "\"\(inner)\""
    }

    func searchRetrieve(_ cql: String, maximum: Int) async throws -> [SRURecord] {
        let url = "\(baseURL)?version=\(dialect.version)&operation=searchRetrieve&query=\(URLQuery.encode(cql))"
            + "&recordSchema=\(URLQuery.encode(dialect.schema))&recordPacking=xml&maximumRecords=\(maximum)"
        let response = try await http.get(url, accept: "application/xml, text/xml", maxBytes: 4 << 20)
        switch response.status {
        case 200: break
        case 404: return []
        case 429: throw ProviderFailure.rateLimited
        default: throw ProviderFailure.httpStatus(response.status)
        }
        return try SRUResponse.records(response.body)
    }
}

/// One MARC record of an SRU answer, read into Shelfmark's terms.
struct SRURecord {
    var marc: MARCRecord
    var isbns: [String]
    var book: BookRecord?

    init(_ marc: MARCRecord) {
        self.marc = marc
        isbns = marc.fields("020").flatMap { $0.all("a") }.compactMap { raw in
            (try? ISBN(String(raw.split(separator: " ").first ?? "")))?.isbn13
        }
        book = Self.book(marc)
    }

    static func book(_ m: MARCRecord) -> BookRecord? {
        guard let r = try? MARCMapping.importRecord(m, line: 1) else { return nil }
        var book = BookRecord(isbn13: r.isbn, title: r.title, subtitle: r.subtitle, authors: r.authors, publisher: r.publisher,
                              publishedDate: r.publishedDate, pageCount: r.pageCount, language: r.language,
                              description: r.description, coverURL: nil, categories: Array(r.categories.prefix(5)))
        book.deweyNumber = dewey(m)
        book.lcCallNumber = m.fields("050").first.flatMap { f in
            let parts = (f.all("a").prefix(1) + f.all("b").prefix(1)).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.isEmpty ? nil : parts.joined(separator: " ")
        }
        book.marcXML = MARCXML.record(m)
        return book
    }

    /// The edition's Dewey number: an 082 of the full or abridged edition first; a national
    /// bibliography's subject group (DNB's `sdnb`, "B" or "830") only when nothing else is given.
    static func dewey(_ m: MARCRecord) -> String? {
        let fields = m.fields("082") + m.fields("083")
        let numbered = fields.filter { ($0["2"] ?? "") != "sdnb" }.compactMap { $0["a"] }.first { CallNumber.dewey($0) != nil }
        return numbered ?? fields.compactMap { $0["a"] }.first { CallNumber.dewey($0) != nil }
    }
}

/// An SRU searchRetrieve answer: its MARC records, a diagnostic as a failure, anything else garbage.
enum SRUResponse {
    static func records(_ body: Data) throws -> [SRURecord] {
        let head = String(decoding: body.prefix(4_096), as: UTF8.self)
        guard head.contains("searchRetrieveResponse") else {
            throw ProviderFailure.malformed("not an SRU searchRetrieve answer")
        }
        let scan = Scan()
        let parser = XMLParser(data: body)
        parser.shouldResolveExternalEntities = false
        parser.delegate = scan
        guard parser.parse(), !scan.failed, scan.closed else { throw ProviderFailure.malformed("unreadable XML at line \(parser.lineNumber)") }
        if let diagnostic = scan.diagnostic, scan.recordCount == 0 {
            throw ProviderFailure.malformed("SRU diagnostic: \(diagnostic.prefix(200))")
        }
        guard scan.recordCount > 0 else { return [] }
        let (items, failure) = MARCXMLReader.read(body)
        if items.isEmpty, let failure { throw ProviderFailure.malformed("\(failure)") }
        return items.compactMap { try? $0.result.get() }.map(SRURecord.init)
    }

    /// Counts MARC records and picks up a diagnostic's message, namespaces aside.
    private final class Scan: NSObject, XMLParserDelegate {
        var recordCount = 0
        var diagnostic: String?
        var failed = false
        /// Whether the answer's root element was closed (a cut-off answer is not).
        var closed = false
        var inDiagnostic = false
        var text = ""

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                    attributes: [String: String] = [:]) {
            let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
            if name == "leader" { recordCount += 1 }
            if name == "diagnostic" { inDiagnostic = true }
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { failed = true }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            let name = elementName.split(separator: ":").last.map(String.init) ?? elementName
            if name == "searchRetrieveResponse" { closed = true }
            if inDiagnostic, name == "message" || (name == "details" && diagnostic == nil) {
                diagnostic = text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if name == "diagnostic" { inDiagnostic = false }
        }
    }
}
