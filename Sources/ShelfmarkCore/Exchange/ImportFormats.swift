import Foundation

/// One book read from an import file, in Shelfmark's terms. Only what the file had is set.
public struct ImportRecord: Sendable, Equatable {
    /// The line of the file the record starts on, for the report.
    public var line: Int
    public var title: String?
    public var subtitle: String?
    public var authors: [String] = []
    public var isbn: String?
    public var publisher: String?
    public var publishedDate: String?
    public var pageCount: Int?
    public var language: String?
    public var description: String?
    public var notes: String?
    public var coverURL: String?
    /// Shelves and tags become categories.
    public var categories: [String] = []
    /// 0–5.
    public var rating: Double?
    public var totalCopies: Int?
    public var availableCopies: Int?
    public var wishlist = false
    public var series: String?
    public var seriesNumber: String?
    /// An Amazon identifier (ASIN) the file gave where an ISBN goes, kept with the book.
    public var asin: String?
    /// What was changed or left out to import the book rather than drop it (for the report).
    public var warnings: [ImportWarning] = []
    /// The importing reader's history of this book (E1): Goodreads, StoryGraph and LibraryThing say it.
    public var reads: [ImportedRead] = []

    public init(line: Int) { self.line = line }
}

/// One read of a book as an export file states it.
public struct ImportedRead: Sendable, Equatable {
    public var status: ReadStatus
    public var startedAt: Date?
    public var finishedAt: Date?

    public init(status: ReadStatus, startedAt: Date? = nil, finishedAt: Date? = nil) {
        self.status = status
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// A day as export files write it ("2021/01/20", "2021-01-20", "2021/1/5"), as noon UTC so that it
    /// is the same day in every time zone; nil for anything else.
    public static func day(_ raw: String?) -> Date? {
        guard let raw = raw?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        let parts = raw.prefix(10).split(whereSeparator: { $0 == "/" || $0 == "-" }).compactMap { Int($0) }
        guard parts.count == 3, (1000...2999).contains(parts[0]), (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = DateComponents(year: parts[0], month: parts[1], day: parts[2], hour: 12)
        guard let date = calendar.date(from: c), calendar.component(.day, from: date) == parts[2] else { return nil }
        return date
    }

    /// A shelf or status name as a status: read, currently-reading, to-read, did-not-finish (and the
    /// usual names of a "did not finish" shelf); another exclusive shelf is a book to read.
    public static func status(shelf raw: String?) -> ReadStatus? {
        guard let shelf = raw?.lowercased().trimmingCharacters(in: .whitespaces), !shelf.isEmpty else { return nil }
        switch shelf {
        case "read", "finished": return .finished
        case "currently-reading", "currently reading", "reading": return .reading
        case "to-read", "to read", "want to read", "want-to-read": return .wantToRead
        default:
            if ["dnf", "did-not-finish", "did not finish", "abandon", "gave-up", "unfinished", "stopped"].contains(where: { shelf.contains($0) }) {
                return .didNotFinish
            }
            return .wantToRead
        }
    }

    /// Goodreads: the exclusive shelf, "Date Read" (the last read) and "Read Count" (earlier reads
    /// undated), "Date Added" as the start of a current read.
    static func goodreads(shelf: String?, dateRead: String?, dateAdded: String?, readCount: Int?) -> [ImportedRead] {
        guard let status = status(shelf: shelf) else { return [] }
        switch status {
        case .finished:
            let n = max(1, min(readCount ?? 1, 50))
            return [ImportedRead(status: .finished, finishedAt: day(dateRead))]
                + Array(repeating: ImportedRead(status: .finished), count: n - 1)
        case .reading:
            return [ImportedRead(status: .reading, startedAt: day(dateAdded))]
        case .wantToRead:
            // Shelved to-read again after reading it (Goodreads keeps the Date Read): the finished read
            // is kept, and so is the wish to read it again.
            guard let finished = day(dateRead) else { return [ImportedRead(status: .wantToRead)] }
            return [ImportedRead(status: .finished, finishedAt: finished), ImportedRead(status: .wantToRead)]
        default:
            return [ImportedRead(status: status, finishedAt: status == .didNotFinish ? day(dateRead) : nil)]
        }
    }

    /// StoryGraph: "Read Status" and "Dates Read" as ranges ("2021/01/05-2021/01/20", several
    /// separated by commas; a single day is the finish), "Read Count" for undated reads beyond them.
    static func storyGraph(status raw: String?, datesRead: String?, readCount: Int?) -> [ImportedRead] {
        guard let status = status(shelf: raw) else { return [] }
        var reads: [ImportedRead] = []
        for range in (datesRead ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !range.isEmpty {
            // "2021/01/05-2021/01/20": split at the dash between two dates (the dates may use dashes too).
            let pieces = range.split(separator: "-").map(String.init)
            let (start, end): (Date?, Date?) = switch pieces.count {
            case 2: (day(pieces[0]), day(pieces[1]))          // 2021/01/05-2021/01/20
            case 6: (day(pieces[0...2].joined(separator: "-")), day(pieces[3...5].joined(separator: "-")))
            default: (nil, day(range))
            }
            reads.append(ImportedRead(status: .finished, startedAt: start, finishedAt: end))
        }
        if status == .finished {
            let n = max(1, min(readCount ?? reads.count, 50))
            if reads.count < n { reads += Array(repeating: ImportedRead(status: .finished), count: n - reads.count) }
            return reads
        }
        // Reading now or stopped: earlier finished reads, then this one.
        return reads + [ImportedRead(status: status)]
    }
}

/// A book that was imported with a change the report should name.
public enum ImportWarning: Equatable, Sendable, CustomStringConvertible {
    /// An ISBN-10 that lost its leading zeros (a spreadsheet took it for a number), proven by its check digit.
    case isbnRepaired(value: String, isbn: String)
    /// An Amazon ASIN in the ISBN column: kept as the book's ASIN.
    case asinKept(String)
    /// Not an ISBN: the book was imported without one.
    case isbnDropped(value: String, reason: ISBN.Invalid)

    public var description: String {
        switch self {
        case .isbnRepaired(let value, let isbn): "ISBN “\(value)” lost its leading zeros; imported as \(isbn)"
        case .asinKept(let asin): "“\(asin)” is an Amazon ASIN, not an ISBN: kept as the book's ASIN"
        case .isbnDropped(let value, let reason): "“\(ImportMapper.RowError.quote(value))” is not an ISBN (\(reason.description)): imported without one"
        }
    }
}

extension ISBN {
    /// An identifier as it comes out of a spreadsheet or another app: an ISBN; an ISBN-10 whose
    /// leading zeros were dropped (`140143505` is 0-14-014350-5), when its check digit proves it;
    /// or an Amazon ASIN (`B07MNWKF2M`).
    public enum Salvaged: Equatable, Sendable {
        case isbn(ISBN)
        case repaired(ISBN)
        case asin(String)
    }

    public static func salvage(_ raw: String) throws(Invalid) -> Salvaged {
        do throws(Invalid) {
            // Seven to nine digits in a file are an ISBN-10 that lost its leading zeros (a spreadsheet's
            // number), or a 9-digit SBN: the same ISBN, imported with a note saying so.
            let short = raw.filter { !$0.isWhitespace && $0 != "-" }
            if (1..<10).contains(short.count), short.dropLast().allSatisfy(\.isNumber) { throw ISBN.Invalid.wrongLength(short.count) }
            return .isbn(try ISBN(raw))
        } catch {
            let compact = raw.filter { !$0.isWhitespace && $0 != "-" }.uppercased()
            // An ASIN is ten letters and digits starting with B (an ISBN-10 never starts with a letter).
            if compact.count == 10, compact.first == "B", compact.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                return .asin(compact)
            }
            let body = compact.last == "X" ? compact.dropLast() : Substring(compact)
            if (7...9).contains(compact.count), body.allSatisfy(\.isNumber) {
                let padded = String(repeating: "0", count: 10 - compact.count) + compact
                if let isbn = try? ISBN(padded) { return .repaired(isbn) }
            }
            throw error
        }
    }
}

/// The files Shelfmark reads (F1–F3).
public enum ImportFormat: String, Sendable, CaseIterable, Codable {
    case shelfmarkCatalog = "csv"
    case shelfmarkWishlist = "wishlist-csv"
    case goodreads
    case libraryThing = "librarything"
    case storyGraph = "storygraph"
    case libib
    case calibre
    case generic
    case isbnList = "isbn-list"
    case marc
    case marcXML = "marcxml"
    case libraryThingJSON = "librarything-json"

    public var displayName: String {
        switch self {
        case .shelfmarkCatalog: "Shelfmark catalog CSV"
        case .shelfmarkWishlist: "Shelfmark wishlist CSV"
        case .goodreads: "Goodreads export"
        case .libraryThing: "LibraryThing export"
        case .storyGraph: "StoryGraph export"
        case .libib: "Libib export"
        case .calibre: "Calibre CSV"
        case .generic: "CSV with isbn, title, author"
        case .isbnList: "list of ISBNs"
        case .marc: "MARC 21"
        case .marcXML: "MARCXML"
        case .libraryThingJSON: "LibraryThing JSON export"
        }
    }

    /// The catalog CSV's columns, in order (F1).
    public static let catalogColumns = ["ISBN", "Title", "Author", "Total Copies", "Available Copies", "Language", "Publisher",
                                        "Published Date", "Page Count", "Notes"]
    public static let wishlistColumns = ["Title", "Author", "ISBN"]

    /// Recognises a file by its header line (or, for a list of ISBNs, its first lines).
    public static func detect(header: [String], firstLines: [String] = []) -> ImportFormat? {
        let names = header.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let h = Set(names)
        if h.isSuperset(of: ["book id", "title", "author", "my rating", "exclusive shelf"]) { return .goodreads }
        if h.isSuperset(of: ["book id", "title", "primary author"]) { return .libraryThing }
        if h.isSuperset(of: ["title", "authors", "isbn/uid", "read status"]) { return .storyGraph }
        if h.isSuperset(of: ["item_type", "title", "creators", "ean_isbn13"]) { return .libib }
        if h.isSuperset(of: ["title", "authors", "author_sort"]) || h.isSuperset(of: ["title", "authors", "title_sort"]) { return .calibre }
        if h.isSuperset(of: ["title", "author", "total copies", "available copies"]) { return .shelfmarkCatalog }
        // Our wishlist export's header exactly, in its order; other three-column files are catalogs.
        if names == ["title", "author", "isbn"] { return .shelfmarkWishlist }
        if h.contains("title") && (h.contains("isbn") || h.contains("author") || h.contains("authors")) { return .generic }
        let candidates = ([header.joined(separator: ",")] + firstLines).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        // A list of ISBNs: the first line is one, and so are most of the next (a bad line is a row to report).
        if let first = candidates.first, (try? ISBN(first)) != nil,
           candidates.filter({ (try? ISBN($0)) != nil }).count * 2 > candidates.count { return .isbnList }
        return nil
    }

    /// The columns a file of this format must have (F1: a catalog needs these four).
    public var requiredColumns: [String] {
        switch self {
        case .shelfmarkCatalog: ["title", "author", "total copies", "available copies"]
        case .shelfmarkWishlist: ["title"]
        case .goodreads, .libraryThing, .storyGraph, .libib, .calibre, .generic: ["title"]
        case .isbnList, .marc, .marcXML, .libraryThingJSON: []
        }
    }
}

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
