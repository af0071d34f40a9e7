import Foundation

/// LibraryThing's JSON export: an object of books keyed by book id (or an array of books). Its fields
/// change shape between exports and even between books: `isbn` is a string, an array, or an object
/// keyed "0"/"2"; numbers come as numbers or as strings with spaces; lists as arrays or comma text.
public enum LibraryThingJSON {
    public struct Item: Sendable {
        /// 1-based position of the book in the file.
        public var number: Int
        public var result: Result<ImportRecord, ImportMapper.RowError>
    }

    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case notJSON(String)
        case unexpectedShape
        public var description: String {
            switch self {
            case .notJSON(let why): "The file is not valid JSON: \(why)"
            case .unexpectedShape: "The JSON is not a LibraryThing export (an object of books keyed by id, or an array of books)."
            }
        }
    }

    public static func looksLikeLibraryThing(_ text: Substring) -> Bool {
        let head = text.prefix(4_000)
        return (head.hasPrefix("{") || head.hasPrefix("[")) && (head.contains("\"books_id\"") || head.contains("\"primaryauthor\""))
    }

    public static func read(_ data: Data) throws(Failure) -> [Item] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            throw .notJSON((error as NSError).userInfo["NSDebugDescription"] as? String ?? error.localizedDescription)
        }
        var books: [[String: Any]]
        if let dict = object as? [String: Any] {
            // Keyed by id: keep the file's order as well as JSON allows (ids ascending).
            books = dict.sorted { (Int($0.key) ?? 0, $0.key) < (Int($1.key) ?? 0, $1.key) }.compactMap { $0.value as? [String: Any] }
            guard books.count == dict.count else { throw .unexpectedShape }
        } else if let array = object as? [[String: Any]] {
            books = array
        } else {
            throw .unexpectedShape
        }
        return books.enumerated().map { i, book in Item(number: i + 1, result: record(book, number: i + 1)) }
    }

    static func string(_ any: Any?) -> String? {
        switch any {
        case let s as String:
            let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
            return t.isEmpty ? nil : t
        case let n as NSNumber: return n.stringValue
        case let a as [Any]: return a.compactMap(string).first
        case let d as [String: Any]: return d.sorted { $0.key < $1.key }.compactMap { string($0.value) }.first
        default: return nil
        }
    }

    static func strings(_ any: Any?) -> [String] {
        switch any {
        case let s as String:
            return s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        case let a as [Any]: return a.compactMap(string)
        case let d as [String: Any]: return d.sorted { $0.key < $1.key }.compactMap { string($0.value) }
        default: return []
        }
    }

    static func record(_ book: [String: Any], number: Int) -> Result<ImportRecord, ImportMapper.RowError> {
        var r = ImportRecord(line: number)
        r.title = string(book["title"])
        if let authors = book["authors"] as? [[String: Any]] {
            r.authors = authors.compactMap { string($0["fl"]) ?? string($0["lf"]).map(ImportMapper.surnameFirstToNatural) }
        }
        if r.authors.isEmpty, let primary = string(book["primaryauthor"]) { r.authors = [ImportMapper.surnameFirstToNatural(primary)] }
        // The ISBN: `isbn` or `ISBN`, any shape; the 13-digit form preferred.
        let isbns = strings(book["isbn"]) + strings(book["ISBN"]) + strings(book["originalisbn"])
        let parsed = isbns.compactMap { try? ISBN($0.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))) }
        r.isbn = parsed.first?.isbn13
        if r.isbn == nil, let bad = isbns.first {
            let why: ISBN.Invalid
            do { _ = try ISBN(bad); why = .badCharacters } catch { why = error }
            return .failure(.invalid(column: "isbn", value: bad, reason: .isbn(why)))
        }
        r.publishedDate = string(book["date"])
        r.publisher = string(book["publication"]).map { pub in
            // "Stuttgart : Thienemann, 1973" or "Thienemann (1973), Edition: 1"
            let noEdition = pub.components(separatedBy: " (").first ?? pub
            let afterPlace = noEdition.components(separatedBy: " : ").last ?? noEdition
            return afterPlace.components(separatedBy: ", ").first ?? afterPlace
        }
        if let pages = string(book["pages"]), let n = Int(pages.trimmingCharacters(in: .whitespaces)) { r.pageCount = n }
        if let rating = string(book["rating"]), let n = Double(rating), n > 0 {
            guard n <= 5 else { return .failure(.invalid(column: "rating", value: rating, reason: .ratingOutOfRange)) }
            r.rating = n
        }
        r.language = strings(book["language"]).first
        r.notes = string(book["privatecomment"]) ?? string(book["comment"]) ?? string(book["review"])
        let collections = strings(book["collections"])
        r.categories = strings(book["tags"]) + strings(book["genre"]) + collections.filter { $0 != "Your library" && $0 != "Wishlist" && $0 != "To read" }
        r.wishlist = collections.contains("Wishlist")
        if let copies = string(book["copies"]), let n = Int(copies.trimmingCharacters(in: .whitespaces)), n > 0 { r.totalCopies = n }
        // Each series a book is in: "Momo (1)" → series Momo, number 1; the first is its own, the others kept with it.
        var seen = Set<String>()
        for series in strings(book["series"]) {
            var (name, number): (String, String?) = (series, nil)
            if let m = series.firstMatch(of: /^(.*?)\s*\(([^()]+)\)$/) { (name, number) = (String(m.output.1), String(m.output.2)) }
            guard !name.isEmpty, seen.insert(name.lowercased()).inserted else { continue }
            if r.series == nil {
                (r.series, r.seriesNumber) = (name, number)
            } else if r.moreSeries.count < SeriesEntry.maxEntries {
                r.moreSeries.append(SeriesEntry(name: String(name.prefix(SeriesEntry.maxName)), number: number.map { String($0.prefix(SeriesEntry.maxNumber)) }))
            }
        }
        guard r.title != nil || r.isbn != nil else { return .failure(.missing(column: "title")) }
        return .success(r)
    }
}

extension Result {
    var failureDescription: String? {
        if case .failure(let e) = self { return String(describing: e) }
        return nil
    }
}
