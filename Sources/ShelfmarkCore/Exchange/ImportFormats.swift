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
    /// The other series it belongs to ("Mort": Discworld #4, and Death #1).
    public var moreSeries: [SeriesEntry] = []
    /// An Amazon identifier (ASIN) the file gave where an ISBN goes, kept with the book.
    public var asin: String?
    /// Where it stands on the shelf ("823.914 ROW").
    public var callNumber: String?
    /// What was changed or left out to import the book rather than drop it (for the report).
    public var warnings: [ImportWarning] = []
    /// The importing reader's history of this book: Goodreads, StoryGraph and LibraryThing say it.
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

/// The files Shelfmark reads.
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

    /// The catalog CSV's columns, in order.
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

    /// The columns a file of this format must have (a catalog needs these four).
    public var requiredColumns: [String] {
        switch self {
        case .shelfmarkCatalog: ["title", "author", "total copies", "available copies"]
        case .shelfmarkWishlist: ["title"]
        case .goodreads, .libraryThing, .storyGraph, .libib, .calibre, .generic: ["title"]
        case .isbnList, .marc, .marcXML, .libraryThingJSON: []
        }
    }
}
