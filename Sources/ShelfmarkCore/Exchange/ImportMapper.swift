import Foundation

/// Turns a row of a recognised CSV into an `ImportRecord`, or says what is wrong with it.
public struct ImportMapper: Sendable {
    public let format: ImportFormat
    private let columns: [String: Int]

    public enum RowError: Error, Equatable, Sendable, CustomStringConvertible {
        case missing(column: String)
        case invalid(column: String, value: String, reason: Reason)
        case wrongFieldCount(expected: Int, found: Int)

        /// Why a value was refused: a case per kind, so the report can be said in any language.
        public enum Reason: Equatable, Sendable, CustomStringConvertible {
            case notWholeNumber
            case moreThanTotal(Int)
            case isbn(ISBN.Invalid)
            case ratingOutOfRange

            public var description: String {
                switch self {
                case .notWholeNumber: "not a whole number ≥ 0"
                case .moreThanTotal(let total): "more than the \(total) copies in total"
                case .isbn(let why): why.description
                case .ratingOutOfRange: "ratings are from 0 to 5"
                }
            }
        }

        public var description: String {
            switch self {
            case .missing(let c): "“\(c)” is empty; it is required"
            case .invalid(let c, let v, let r): "“\(c)” is “\(Self.quote(v))”: \(r.description)"
            case .wrongFieldCount(let e, let f): "\(f) fields where the header has \(e)"
            }
        }

        /// A rejected value is quoted in the report up to 200 characters (a hostile file could put
        /// megabytes into one cell), control characters shown as spaces.
        public static func quote(_ value: String) -> String {
            let clean = String(value.prefix(201).map { $0.isNewline || $0.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) ? " " : $0 })
            return clean.count > 200 ? String(clean.prefix(200)) + "…" : clean
        }
    }

    public enum HeaderError: Error, Equatable, Sendable, CustomStringConvertible {
        case missingColumns([String])
        public var description: String {
            switch self {
            case .missingColumns(let c): "The header lacks the column\(c.count == 1 ? "" : "s") \(c.map { "“\($0)”" }.joined(separator: ", "))."
            }
        }
    }

    public let headerCount: Int

    public init(format: ImportFormat, header: [String]) throws(HeaderError) {
        self.format = format
        var map: [String: Int] = [:]
        for (i, name) in header.enumerated() {
            let key = name.trimmingCharacters(in: .whitespaces).lowercased()
            if map[key] == nil { map[key] = i }
        }
        columns = map
        headerCount = header.count
        let missing = format.requiredColumns.filter { map[$0] == nil }
        guard missing.isEmpty else { throw .missingColumns(missing) }
    }

    public func record(_ row: CSVReader.Row) throws(RowError) -> ImportRecord {
        if row.fields.count > headerCount, row.fields[headerCount...].contains(where: { !$0.isEmpty }) {
            throw .wrongFieldCount(expected: headerCount, found: row.fields.count)
        }
        func value(_ column: String) -> String? {
            guard let i = columns[column], i < row.fields.count else { return nil }
            var v = row.fields[i].trimmed
            // A cell our exports (or a spreadsheet) protected from formula evaluation: `'=…` is `=…`.
            if v.hasPrefix("'"), let next = v.dropFirst().first, "=+-@".contains(next) { v.removeFirst() }
            return v.isEmpty ? nil : v
        }
        func integer(_ column: String) throws(RowError) -> Int? {
            guard let raw = value(column) else { return nil }
            guard let n = Int(raw), n >= 0 else { throw .invalid(column: column, value: raw, reason: .notWholeNumber) }
            return n
        }
        func list(_ column: String, separators: Set<Character> = [",", ";"]) -> [String] {
            (value(column) ?? "").split(whereSeparator: { separators.contains($0) }).map { String($0).trimmed }.filter { !$0.isEmpty }
        }
        var r = ImportRecord(line: row.line)
        switch format {
        case .shelfmarkCatalog, .shelfmarkWishlist, .generic:
            r.title = value("title")
            r.authors = list("author", separators: [";"]).isEmpty ? list("authors", separators: [";"]) : list("author", separators: [";"])
            if r.authors.count == 1, let one = r.authors.first, one.contains(","), !Self.looksLikeSurnameFirst(one) {
                r.authors = one.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            }
            r.isbn = value("isbn")
            r.language = value("language")
            r.publisher = value("publisher")
            r.publishedDate = value("published date")
            r.pageCount = try integer("page count")
            r.notes = value("notes")
            r.categories = list("category") + list("genre") + list("categories")
            r.totalCopies = try integer("total copies")
            // A spreadsheet of one's own says "copies" (or "quantity") rather than "total copies".
            if format == .generic, r.totalCopies == nil {
                for column in ["copies", "quantity", "qty", "number of copies"] where r.totalCopies == nil {
                    r.totalCopies = try integer(column)
                }
            }
            r.availableCopies = try integer("available copies")
            r.wishlist = format == .shelfmarkWishlist
            if format == .shelfmarkCatalog {
                guard r.authors.isEmpty == false else { throw .missing(column: "Author") }
                guard r.totalCopies != nil else { throw .missing(column: "Total Copies") }
                guard let available = r.availableCopies else { throw .missing(column: "Available Copies") }
                if available > r.totalCopies! {
                    throw .invalid(column: "Available Copies", value: String(available), reason: .moreThanTotal(r.totalCopies ?? 0))
                }
            }
        case .goodreads:
            r.title = value("title")
            r.authors = [value("author")].compactMap { $0 } + list("additional authors")
            // The ISBN13 column first; when it is malformed and the ISBN (10) column is valid, the valid one.
            let isbns = [Self.unwrapExcel(value("isbn13")), Self.unwrapExcel(value("isbn"))].compactMap { $0 }
            r.isbn = isbns.first { (try? ISBN($0)) != nil } ?? isbns.first
            r.publisher = value("publisher")
            r.publishedDate = value("year published") ?? value("original publication year")
            r.pageCount = try integer("number of pages")
            if let stars = value("my rating"), let n = Double(stars), n > 0 { r.rating = n }
            r.categories = list("bookshelves").filter { !["read", "currently-reading", "to-read"].contains($0) }
            r.notes = value("private notes") ?? value("my review")
            r.totalCopies = try integer("owned copies").flatMap { $0 > 0 ? $0 : nil }
            r.wishlist = value("exclusive shelf") == "to-read" && (r.totalCopies ?? 0) == 0
            r.reads = ImportedRead.goodreads(shelf: value("exclusive shelf"), dateRead: value("date read"), dateAdded: value("date added"),
                                             readCount: try integer("read count"))
        case .libraryThing:
            r.title = value("title")
            r.authors = [value("primary author")].compactMap { $0 }.map(Self.surnameFirstToNatural) + list("secondary author").map(Self.surnameFirstToNatural)
            r.isbn = value("isbn").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[] ")) }
            if r.isbn == nil { r.isbn = list("isbns").first }
            r.publishedDate = value("date")
            r.publisher = value("publication").map { $0.components(separatedBy: " (").first ?? $0 }
            r.pageCount = try integer("page count")
            if let stars = value("rating"), let n = Double(stars), n > 0 { r.rating = n }
            r.description = value("summary")
            r.notes = value("private comment") ?? value("comment")
            r.categories = list("tags") + list("collections").filter { $0 != "Your library" && $0 != "Wishlist" }
            r.language = value("languages")
            r.totalCopies = try integer("copies")
            r.wishlist = (value("collections") ?? "").contains("Wishlist")
            let started = ImportedRead.day(value("date started")), finished = ImportedRead.day(value("date read"))
            if started != nil || finished != nil {
                r.reads = [ImportedRead(status: finished != nil ? .finished : .reading, startedAt: started, finishedAt: finished)]
            }
        case .storyGraph:
            r.title = value("title")
            r.authors = list("authors")
            r.isbn = value("isbn/uid")
            if let stars = value("star rating"), let n = Double(stars), n > 0 { r.rating = n }
            r.notes = value("review")
            r.categories = list("tags")
            r.wishlist = value("read status") == "to-read" && value("owned?") != "Yes"
            r.reads = ImportedRead.storyGraph(status: value("read status"), datesRead: value("dates read") ?? value("last date read"),
                                              readCount: try integer("read count"))
        case .libib:
            r.title = value("title")
            r.authors = list("creators")
            r.isbn = value("ean_isbn13") ?? value("upc_isbn10")
            r.description = value("description")
            r.publisher = value("publisher")
            r.publishedDate = value("publish_date")
            r.pageCount = try integer("length")
            r.notes = value("notes")
            r.categories = list("tags") + list("group")
            if let stars = value("rating"), let n = Double(stars), n > 0 { r.rating = n }
            r.totalCopies = try integer("copies")
        case .calibre:
            r.title = value("title")
            r.authors = (value("authors") ?? "").components(separatedBy: " & ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            r.isbn = value("isbn")
            r.publisher = value("publisher")
            r.publishedDate = value("pubdate").map { String($0.prefix(10)) }
            r.description = value("comments")
            r.language = value("languages")
            // Calibre stores ratings 0–10 (half stars as whole numbers).
            if let raw = value("rating"), let n = Double(raw), n > 0 { r.rating = n > 5 ? n / 2 : n }
            r.categories = list("tags")
        case .isbnList, .marc, .marcXML, .libraryThingJSON:
            break
        }
        if let raw = r.isbn {
            // A bad identifier never drops the book: it is repaired, kept as an ASIN, or left out, and said.
            do {
                switch try ISBN.salvage(raw) {
                case .isbn(let isbn): r.isbn = isbn.isbn13
                case .repaired(let isbn):
                    r.isbn = isbn.isbn13
                    r.warnings.append(.isbnRepaired(value: raw, isbn: isbn.isbn10 ?? isbn.isbn13))
                case .asin(let asin):
                    r.isbn = nil
                    r.asin = asin
                    r.warnings.append(.asinKept(asin))
                }
            } catch {
                r.isbn = nil
                r.warnings.append(.isbnDropped(value: raw, reason: error))
            }
        }
        if let rating = r.rating, !(0...5).contains(rating) {
            throw .invalid(column: "Rating", value: String(rating), reason: .ratingOutOfRange)
        }
        guard r.title != nil || (r.isbn != nil && format != .shelfmarkCatalog) else { throw .missing(column: "Title") }
        return r
    }

    /// Goodreads writes ISBNs as Excel formulas: `="9780439023481"`, and `=""` for none.
    static func unwrapExcel(_ raw: String?) -> String? {
        guard var v = raw else { return nil }
        if v.hasPrefix("=") { v.removeFirst() }
        v = v.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        return v.isEmpty ? nil : v
    }

    /// "Ende, Michael" → "Michael Ende" (LibraryThing's primary author).
    static func surnameFirstToNatural(_ name: String) -> String {
        let parts = name.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        return parts.count == 2 && !parts[1].isEmpty ? parts[1] + " " + parts[0] : name
    }

    /// "Ende, Michael" (one author, surname first) rather than "Michael Ende, Ann Smith" (two).
    static func looksLikeSurnameFirst(_ value: String) -> Bool {
        let parts = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return parts.count == 2 && !parts[0].contains(" ") && !parts[1].contains(" ")
    }
}
