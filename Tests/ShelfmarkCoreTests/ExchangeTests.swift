import Foundation
@testable import ShelfmarkCore
import Testing

@Suite struct CSVTests {
    @Test func quotesCommasLineBreaksAndCRLF() {
        let text = "\u{FEFF}Title,Notes\r\n\"Momo, a novel\",\"She said \"\"hi\"\"\r\nand left\"\r\nPlain,\r\n"
        var reader = CSVReader(text)
        #expect(reader.next() == .init(line: 1, fields: ["Title", "Notes"]))
        #expect(reader.next() == .init(line: 2, fields: ["Momo, a novel", "She said \"hi\"\r\nand left"]))
        #expect(reader.next() == .init(line: 4, fields: ["Plain", ""]))
        #expect(reader.next() == nil)
        #expect(reader.failure == nil)
        var lf = CSVReader("a,b\nc,d")
        #expect(lf.next()?.fields == ["a", "b"])
        #expect(lf.next()?.fields == ["c", "d"])
        #expect(lf.next() == nil)
    }

    @Test func malformedQuotesNameTheLineAndColumn() {
        var open = CSVReader("Title,Author\n\"Momo,Ende\nNext,Row\n")
        _ = open.next()
        #expect(open.next() == nil)
        #expect(open.failure == .unterminatedQuote(line: 2, column: 1))
        #expect(open.failure?.description.contains("Line 2, column 1") == true)
        var stray = CSVReader("Title,Author\nMo\"mo,Ende\n")
        _ = stray.next()
        #expect(stray.next() == nil)
        #expect(stray.failure == .strayQuote(line: 2, column: 1))
    }

    /// A file read in pieces gives the same records as the whole file, wherever the pieces are cut:
    /// inside quotes, between the two quotes of "", between CR and LF, inside a UTF-8 sequence.
    @Test func readingInPiecesGivesTheSameRowsWhereverTheCutsFall() {
        let text = "\u{FEFF}Title,Notes\r\n\"Momo, a novel\",\"She said \"\"hi\"\"\r\nand left\"\r\nGrüße,ü\r\n\"\"\"q\"\"\",x\nlast,line"
        var whole = CSVReader(text)
        let expected = Array(AnyIterator { whole.next() })
        #expect(expected.count == 5)
        let bytes = Array(text.utf8)
        for size in 1...12 {
            var pieces = stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
            let first = pieces.removeFirst()
            var reader = CSVReader(first: first, next: { pieces.isEmpty ? nil : pieces.removeFirst() })
            #expect(Array(AnyIterator { reader.next() }) == expected, "pieces of \(size) bytes")
            #expect(reader.failure == nil)
        }
        // An unclosed quote is still found, with its line, when read in pieces.
        var pieces = Array("a,b\n\"open,x\ny,z\n".utf8).map { [$0] }
        let first = pieces.removeFirst()
        var open = CSVReader(first: first, next: { pieces.isEmpty ? nil : pieces.removeFirst() })
        #expect(open.next()?.fields == ["a", "b"])
        #expect(open.next() == nil)
        #expect(open.failure == .unterminatedQuote(line: 2, column: 1))
    }

    @Test func aFieldThatIsNotUTF8IsReadAsWindows1252() {
        // "Müller" in Latin-1 next to UTF-8 "Grüße": each field is read as what it is.
        var reader = CSVReader(bytes: Array("a,b\n".utf8) + [0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x2C] + Array("Grüße\n".utf8))
        _ = reader.next()
        #expect(reader.next()?.fields == ["Müller", "Grüße"])
        #expect(reader.sawWindows1252)
    }

    @Test func writerQuotesOnlyWhatNeedsIt() {
        #expect(CSVWriter.line(["Momo", "Ende, Michael", "say \"hi\"", "two\nlines"]) == "Momo,\"Ende, Michael\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n")
        // What we write, we read back.
        let fields = ["a,b", "\"q\"", "x\r\ny", ""]
        var reader = CSVReader(CSVWriter.line(fields))
        #expect(reader.next()?.fields == fields)
        // The byte writer an export uses writes the same, non-ASCII text included.
        var bytes: [UInt8] = []
        CSVWriter.appendLine(["Grüße, 東京", "plain"], to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "\"Grüße, 東京\",plain\r\n")
    }

    @Test func jsonStringArraysAreReadWithoutADecoder() throws {
        #expect(JSONStringArray.parse(#"["Ann Lee","Bo"]"#) == ["Ann Lee", "Bo"])
        #expect(JSONStringArray.parse(" [ ] ") == [])
        #expect(JSONStringArray.parse(#"[ "a" , "b" ]"#) == ["a", "b"])
        // Every escape JSON has, a surrogate pair among them, as JSONDecoder reads it.
        let escaped = #"["say \"hi\"","back\\slash","a\/b","\b\f\n\r\t","\u00fc\u6771","\ud83d\udcda"]"#
        let expected = try JSONDecoder().decode([String].self, from: Data(escaped.utf8))
        #expect(JSONStringArray.parse(escaped) == expected)
        #expect(expected[5] == "📚")
        // What JSONEncoder writes for awkward names, it reads back.
        let names = ["O'Brien, \"Flann\"", "Müller/Ünal", "tab\there", "東京"]
        #expect(JSONStringArray.parse(String(decoding: try JSONEncoder().encode(names), as: UTF8.self)) == names)
        // Not an array of strings: nil, so the caller falls back to a full decoder.
        for bad in ["", "[", #"["a""#, #"["a",]"#, #"["a"] x"#, "[1]", #"{"a":1}"#, #"["\x"]"#, #"["\ud83d"]"#, #"["\u12"]"#, "null"] {
            #expect(JSONStringArray.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func jsonStringArraysAreWrittenWithoutAnEncoder() throws {
        #expect(JSONStringArray.encode([]) == "[]")
        #expect(JSONStringArray.encode(["Ann Lee", "Bo"]) == #"["Ann Lee","Bo"]"#)
        #expect(JSONStringArray.encode(["say \"hi\"", "back\\slash"]) == #"["say \"hi\"","back\\slash"]"#)
        // Awkward names: control characters, slashes, quotes, non-ASCII, an emoji; JSONDecoder and parse read them back.
        let names = ["O'Brien, \"Flann\"", "Müller/Ünal", "tab\there", "line\nbreak\r", "bell\u{7}\u{1F}", "東京", "📚", ""]
        let text = JSONStringArray.encode(names)
        #expect(try JSONDecoder().decode([String].self, from: Data(text.utf8)) == names)
        #expect(JSONStringArray.parse(text) == names)
        #expect(text.contains(#"\u0007"#) && text.contains(#"\n"#) && !text.contains("\u{7}"))
    }

    @Test func separatorsAndEncodingsAreDetected() {
        #expect(CSVReader.guessSeparator("Book Id\tTitle\tPrimary Author\n1\tx\ty") == "\t")
        #expect(CSVReader.guessSeparator("isbn,title,author") == ",")
        // Only the first line counts, also when lines end in CRLF (one Character, "\r\n").
        #expect(CSVReader.guessSeparator("isbn,title,author\r\n1\t2\t3\t4\t5\r\n") == ",")
        let latin1 = Data([0x4D, 0xFC, 0x6C, 0x6C, 0x65, 0x72, 0x20, 0x93, 0x71, 0x94])  // Müller “q” in Windows-1252
        let decoded = TextDecoding.decode(latin1)
        #expect(decoded.text == "Müller \u{201C}q\u{201D}")
        #expect(decoded.encoding == .windows1252)
        #expect(TextDecoding.decode(Data([0xEF, 0xBB, 0xBF, 0x41])).encoding == .utf8BOM)
        #expect(TextDecoding.decode(Data("Éire".utf8)) == ("Éire", .utf8))
    }
}

@Suite struct ImportFormatTests {
    func records(_ text: String, format expected: ImportFormat) throws -> [Result<ImportRecord, ImportMapper.RowError>] {
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(text))
        let first = reader.next()
        let header = try #require(first)
        #expect(ImportFormat.detect(header: header.fields) == expected)
        let mapper = try ImportMapper(format: expected, header: header.fields)
        var out: [Result<ImportRecord, ImportMapper.RowError>] = []
        while let row = reader.next() {
            do { out.append(.success(try mapper.record(row))) } catch { out.append(.failure(error)) }
        }
        return out
    }

    @Test func goodreadsISBNsRatingsAndShelves() throws {
        let csv = #"""
            Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
            2767052,"The Hunger Games (The Hunger Games, #1)",Suzanne Collins,"Collins, Suzanne",,"=""0439023483""","=""9780439023481""",5,4.33,Scholastic Press,Hardcover,374,2008,2008,2021/03/02,2020/12/24,"young-adult, dystopia","young-adult (#3), dystopia (#1)",read,,,,1,2
            1,Wishful Thinking,Ann Author,"Author, Ann",,"=""""","=""""",0,3.9,,Paperback,,,,,2021/01/01,to-read,to-read (#1),to-read,,,,0,0
            """#
        let rows = try records(csv, format: .goodreads)
        let hunger = try rows[0].get()
        #expect(hunger.isbn == "9780439023481")
        #expect(hunger.rating == 5)
        #expect(hunger.categories == ["young-adult", "dystopia"])
        #expect(hunger.totalCopies == 2)
        #expect(hunger.pageCount == 374)
        #expect(hunger.authors == ["Suzanne Collins"])
        let wish = try rows[1].get()
        #expect(wish.isbn == nil)
        #expect(wish.rating == nil)
        #expect(wish.wishlist)
    }

    /// A malformed ISBN13 with a valid ISBN (10) keeps the valid one; a book shelved to-read
    /// with a Date Read keeps that read and the wish to read it again.
    @Test func goodreadsFallsBackToTheValidISBNAndKeepsAReadOfAToReadBook() throws {
        let csv = #"""
            Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
            2767052,The Hunger Games,Suzanne Collins,"Collins, Suzanne",,"=""0439023483""","=""9780439023482""",0,4.33,Scholastic Press,Hardcover,374,2008,2008,2019/05/04,2018/12/24,to-read,to-read (#3),to-read,,,,1,0
            """#
        let rows = try records(csv, format: .goodreads)
        let hunger = try rows[0].get()
        #expect(hunger.isbn == "9780439023481" && hunger.warnings.isEmpty, "\(hunger.warnings)")
        #expect(hunger.reads.map(\.status) == [.finished, .wantToRead])
        let finished = try #require(hunger.reads.first?.finishedAt)
        #expect(finished.formatted(.iso8601.year().month().day()) == "2019-05-04")
    }

    @Test func libraryThingTabSeparatedWithBracketedISBN() throws {
        let tsv = "Book Id\tTitle\tSort Character\tPrimary Author\tPrimary Author Role\tSecondary Author\tSecondary Author Roles\tPublication\tDate\tReview\tRating\tComment\tPrivate Comment\tSummary\tMedia\tPage Count\tTags\tCollections\tLanguages\tISBN\tISBNs\tCopies\n"
            + "1\tMomo\t1\tEnde, Michael\tAuthor\t\t\tThienemann (1973)\t1973\t\t4.5\t\t\t\tBook\t304\tfantasy, german\tYour library\tGerman\t[3522202600]\t3522202600\t1\n"
        let rows = try records(tsv, format: .libraryThing)
        let momo = try rows[0].get()
        #expect(momo.authors == ["Michael Ende"])
        #expect(momo.isbn == "9783522202602")
        #expect(momo.publisher == "Thienemann")
        #expect(momo.rating == 4.5)
        #expect(momo.categories == ["fantasy", "german"])
        #expect(momo.language == "German")
    }

    @Test func theCatalogCSVNeedsItsFourColumnsAndSaneCopies() throws {
        let csv = #"""
            ISBN,Title,Author,Total Copies,Available Copies,Language,Publisher,Published Date,Page Count,Notes
            9780306406157,Signals,Maren Okafor,2,1,en,Plenum,2019,312,"shelf B, top"
            ,No Author,,1,1,,,,,
            ,Too Many,Someone,1,3,,,,,
            978-0-306-40615-8,Bad ISBN,Someone,1,1,,,,,
            ,Bad Count,Someone,two,1,,,,,
            """#
        let rows = try records(csv, format: .shelfmarkCatalog)
        #expect(try rows[0].get().notes == "shelf B, top")
        #expect(try rows[0].get().totalCopies == 2)
        #expect(throws: ImportMapper.RowError.missing(column: "Author")) { try rows[1].get() }
        #expect(throws: ImportMapper.RowError.self) { try rows[2].get() }
        // A bad ISBN never drops the book: it is imported without one, and the report says so.
        #expect(try rows[3].get().isbn == nil)
        #expect(try rows[3].get().warnings == [.isbnDropped(value: "978-0-306-40615-8", reason: .badChecksum)])
        #expect(throws: ImportMapper.RowError.invalid(column: "total copies", value: "two", reason: .notWholeNumber)) { try rows[4].get() }
        #expect(throws: ImportMapper.HeaderError.missingColumns(["total copies", "available copies"])) {
            try ImportMapper(format: .shelfmarkCatalog, header: ["ISBN", "Title", "Author"])
        }
    }

    /// Identifiers as real exports and spreadsheets write them.
    @Test func identifiersAreSalvagedRatherThanDropped() throws {
        #expect(try ISBN.salvage("9780306406157") == .isbn(try ISBN("9780306406157")))
        // An ISBN-10 that a spreadsheet turned into a number: the leading zero back, proven by the check digit.
        #expect(try ISBN.salvage("140143505") == .repaired(try ISBN("0140143505")))
        #expect(try ISBN.salvage("B07MNWKF2M") == .asin("B07MNWKF2M"))
        #expect(try ISBN.salvage(" b07mnwkf2m ") == .asin("B07MNWKF2M"))
        #expect(throws: ISBN.Invalid.self) { try ISBN.salvage("140143506") }  // a wrong check digit is not "repaired"
        #expect(throws: ISBN.Invalid.self) { try ISBN.salvage("hello") }

        let csv = #"""
            Title,Author,ISBN,Copies
            Kindle Book,Ann Author,B07MNWKF2M,1
            Penguin Classic,Old Author,140143505,2
            Typo,Some One,978-0-306-40615-8,
            Plain,Some One,9780306406157,4
            """#
        let rows = try records(csv, format: .generic).map { try $0.get() }
        #expect(rows.map(\.isbn) == [nil, "9780140143508", nil, "9780306406157"])
        #expect(rows[0].asin == "B07MNWKF2M" && rows[0].warnings == [.asinKept("B07MNWKF2M")])
        #expect(rows[1].warnings == [.isbnRepaired(value: "140143505", isbn: "0140143505")])
        #expect(rows[2].warnings == [.isbnDropped(value: "978-0-306-40615-8", reason: .badChecksum)])
        #expect(rows[3].warnings.isEmpty)
        // The generic CSV's copies column is honoured.
        #expect(rows.map(\.totalCopies) == [1, 2, nil, 4])
    }

    @Test func otherAppsAreRecognisedByTheirHeaders() {
        #expect(ImportFormat.detect(header: ["Title", "Authors", "Contributors", "ISBN/UID", "Format", "Read Status", "Star Rating"]) == .storyGraph)
        #expect(ImportFormat.detect(header: ["item_type", "title", "creators", "first_name", "ean_isbn13", "upc_isbn10"]) == .libib)
        #expect(ImportFormat.detect(header: ["author_sort", "authors", "comments", "isbn", "title", "title_sort"]) == .calibre)
        #expect(ImportFormat.detect(header: ["isbn", "title", "author", "category", "genre"]) == .generic)
        #expect(ImportFormat.detect(header: ["Title", "Author", "ISBN"]) == .shelfmarkWishlist)
        // The same names in another order are someone's catalog, not our wishlist export.
        #expect(ImportFormat.detect(header: ["isbn", "title", "author"]) == .generic)
        #expect(ImportFormat.detect(header: ["9780306406157"], firstLines: ["0-316-03057-0"]) == .isbnList)
        #expect(ImportFormat.detect(header: ["name", "price"]) == nil)
    }
}

/// A class list from a spreadsheet, whatever its columns are called.
@Suite struct MemberListTests {
    func records(_ text: String) throws -> [Result<MemberListMapper.Record, MemberListMapper.RowError>] {
        var reader = CSVReader(text, separator: CSVReader.guessSeparator(text))
        let mapper = try MemberListMapper(header: reader.next()!.fields)
        var out: [Result<MemberListMapper.Record, MemberListMapper.RowError>] = []
        while let row = reader.next() {
            do { out.append(.success(try mapper.record(row))) } catch { out.append(.failure(error)) }
        }
        return out
    }

    @Test func columnsAreFoundByTheirUsualNames() throws {
        let rows = try records("""
            Student ID;Surname;First name;Form;E-mail
            S001;Lovelace;Ada;4B;ada@example.org
            S 002;Byron;George;4B;
            S003;Somerville;;4B;
            """)
        #expect(try rows[0].get() == .init(line: 2, cardID: "S001", firstName: "Ada", lastName: "Lovelace", grade: "4B", email: "ada@example.org"))
        #expect(throws: MemberListMapper.RowError.cardHasSpaces("S 002")) { try rows[1].get() }
        #expect(throws: MemberListMapper.RowError.missing(column: "First Name")) { try rows[2].get() }
    }

    @Test func aSingleNameColumnIsSplitAndGermanHeadersWork() throws {
        let rows = try records("""
            Ausweisnummer,Name,Klasse
            A1,"Lovelace, Ada",5a
            A2,Mary Ann Evans,5a
            A3,Cher,5b
            """).map { try $0.get() }
        #expect(rows.map(\.firstName) == ["Ada", "Mary Ann", "Cher"])
        #expect(rows.map(\.lastName) == ["Lovelace", "Evans", ""])
        #expect(rows.map(\.grade) == ["5a", "5a", "5b"])
    }

    @Test func aListWithoutCardOrNameIsRefusedByItsHeader() {
        #expect(throws: MemberListMapper.HeaderError.missingColumns(["Card ID"])) { try MemberListMapper(header: ["Name", "Class"]) }
        #expect(throws: MemberListMapper.HeaderError.missingColumns(["First Name"])) { try MemberListMapper(header: ["Card ID", "Class"]) }
        #expect(MemberListMapper.looksLikeMemberList(MemberListMapper.exportColumns))
    }
}
