import Foundation
@testable import ShelfmarkCore
import Testing

private func sample() -> MARCExportTitle {
    var t = MARCExportTitle(controlNumber: "b1", title: "Momo")
    t.isbn13 = "9783522202602"
    t.subtitle = "oder Die seltsame Geschichte von den Zeit-Dieben"
    t.authors = ["Michael Ende", "Ursula K. Le Guin", "Homer"]
    t.publisher = "Thienemann"
    t.publishedDate = "1973"
    t.pageCount = 304
    t.language = "de"
    t.description = "Ein Mädchen <gegen> die grauen Herren & ihre \"Zeitsparkasse\"."
    t.notes = "Shelf B\nsecond line"
    t.categories = ["Fantasy", "Kinderbuch"]
    t.series = "Ende classics"
    t.seriesNumber = "1"
    t.coverURL = "https://covers.example/momo.jpg"
    t.copies = [.init(barcode: "C000001", location: "Room 12"), .init(barcode: "C000002", location: nil)]
    return t
}

@Suite struct MARCTests {
    @Test func whatWeWriteAsBinaryWeReadBackFieldForField() throws {
        let record = MARCMapping.record(sample())
        let data = MARC21Writer.data(record) + MARC21Writer.data(record)
        #expect(MARC21Reader.looksLikeMARC(data))
        // The leader's length and base address are right: the reader uses them.
        #expect(Int(String(decoding: data.prefix(5), as: UTF8.self)) == data.count / 2)
        let items = Array(MARC21Reader(data))
        #expect(items.count == 2)
        let read = try items[0].result.get()
        #expect(read.fields == record.fields)
        #expect(read.leader.dropFirst(5).prefix(4) == "nam ".prefix(4) || read.leader.contains("nam"))
        #expect(Array(read.leader)[9] == "a")
    }

    @Test func lengthsAreZeroPaddedDigitsAndYearsAreFoundInDates() {
        #expect(MARC21Writer.digits(0, 5) == Array("00000".utf8))
        #expect(MARC21Writer.digits(42, 4) == Array("0042".utf8))
        #expect(MARC21Writer.digits(99_999, 5) == Array("99999".utf8))
        for (date, year) in [("2019-05-01", "2019"), ("c1998.", "1998"), ("May 2003", "2003"), ("20231", "2023"), ("12 May 98", nil), ("", nil)] {
            #expect(MARCMapping.firstYear(date) == year, "\(date)")
        }
        // 008 carries the year of the date, or "n" and blanks without one.
        var t = sample()
        t.publishedDate = "Spring 1999"
        let f008 = MARCMapping.record(t).fields.first { $0.tag == "008" }.flatMap(\.value) ?? ""
        #expect(Array(f008)[6] == "s" && f008.dropFirst(7).hasPrefix("1999"), "\(f008)")
    }

    @Test func whatWeWriteAsMARCXMLWeReadBack() throws {
        let record = MARCMapping.record(sample())
        let xml = MARCXML.header() + MARCXML.record(record) + MARCXML.record(record) + MARCXML.footer
        #expect(MARCXML.looksLikeMARCXML(Substring(xml)))
        let (items, failure) = MARCXMLReader.read(Data(xml.utf8))
        #expect(failure == nil)
        #expect(items.count == 2)
        #expect(items.map(\.line) == [3, 3 + xml.components(separatedBy: "</record>")[0].split(separator: "\n").count - 1])
        #expect(try items[1].result.get().fields == record.fields)
    }

    @Test func exportThenImportGivesTheSameBook() throws {
        let t = sample()
        let r = try MARCMapping.importRecord(MARCMapping.record(t), line: 1)
        #expect(r.title == t.title)
        #expect(r.subtitle == t.subtitle)
        #expect(r.authors == t.authors)
        #expect(r.isbn == t.isbn13)
        #expect(r.publisher == t.publisher)
        #expect(r.publishedDate == t.publishedDate)
        #expect(r.pageCount == t.pageCount)
        #expect(r.language == t.language)
        #expect(r.description == t.description)
        #expect(r.notes == t.notes)
        #expect(r.categories == t.categories)
        #expect(r.series == t.series)
        #expect(r.seriesNumber == t.seriesNumber)
        #expect(r.coverURL == t.coverURL)
        #expect(r.totalCopies == 2)
        // A language Shelfmark has only as text goes to 546 and comes back.
        var other = sample()
        other.language = "Klingon"
        #expect(try MARCMapping.importRecord(MARCMapping.record(other), line: 1).language == "Klingon")
    }

    @Test func libraryRecordsWithISBDPunctuationAndQualifiedISBNs() throws {
        let record = MARCRecord(leader: "00000cam a2200000 a 4500", fields: [
            .control("008", "850103s1985    nyu           000 1 eng  "),
            .data("020", " ", " ", [.init("a", "0x394 (pbk.)")]),  // not an ISBN: skipped
            .data("020", " ", " ", [.init("a", "0471383147 (paper/cd-rom : alk. paper)")]),
            .data("100", "1", " ", [.init("a", "Tolkien, J. R. R."), .init("d", "1892-1973.")]),
            .data("245", "1", "4", [.init("a", "The hobbit :"), .init("b", "or, There and back again /"), .init("c", "J.R.R. Tolkien.")]),
            .data("260", " ", " ", [.init("a", "Boston :"), .init("b", "Houghton Mifflin,"), .init("c", "c1985.")]),
            .data("300", " ", " ", [.init("a", "xii, 287 p. :"), .init("b", "ill. ;")]),
            .data("650", " ", "0", [.init("a", "Fantasy fiction."), .init("x", "History")]),
            .data("650", " ", "0", [.init("a", "Fantasy fiction.")]),
        ])
        let r = try MARCMapping.importRecord(record, line: 7)
        #expect(r.line == 7)
        #expect(r.title == "The hobbit")
        #expect(r.subtitle == "or, There and back again")
        #expect(r.authors == ["J. R. R. Tolkien"])
        #expect(r.isbn == "9780471383147")
        #expect(r.publisher == "Houghton Mifflin")
        #expect(r.publishedDate == "1985")
        #expect(r.pageCount == 287)
        #expect(r.language == "en")
        #expect(r.categories == ["Fantasy fiction"])
        #expect(r.totalCopies == nil)
        // No title: a clear refusal.
        let untitled = MARCRecord(leader: "00000cam a2200000 a 4500", fields: [.data("245", "0", "0", [.init("c", "by nobody")])])
        #expect(throws: MARCError.notMARC21("it has no title (245 $a)")) { try MARCMapping.importRecord(untitled, line: 1) }
    }

    @Test func marc8DiacriticsBecomeUnicode() throws {
        // "Grüne Straße, Łódź" in MARC-8: combining marks come before their letter.
        let bytes: [UInt8] = Array("Gr".utf8) + [0xE8] + Array("une Stra".utf8) + [0xC7] + Array("e, ".utf8) + [0xA1, 0xE2] + Array("od".utf8) + [0xE2] + Array("z".utf8)
        #expect(try MARC8.decode(bytes) == "Grüne Straße, Łódź")
        // An escape to another script is refused, not mangled.
        #expect(throws: MARCError.unsupportedCharacterSet("CJK (EACC)")) { try MARC8.decode([0x1B, 0x24, 0x31, 0x21, 0x30, 0x21]) }
        // A record that says MARC-8 is decoded as MARC-8.
        var record = Array(MARC21Writer.data(MARCRecord(fields: [.data("245", "0", "0", [.init("a", "Gr")])])))
        record[9] = 0x20
        let base = Int(String(decoding: record[12..<17], as: UTF8.self))!
        record.insert(contentsOf: [0xE8, 0x75], at: base + 6)  // after "00\u{1F}aGr"
        // fix the lengths: directory entry and leader
        record.replaceSubrange(27..<31, with: Array(String(format: "%04d", 8).utf8))
        record.replaceSubrange(0..<5, with: Array(String(format: "%05d", record.count).utf8))
        let read = try #require(Array(MARC21Reader(Data(record))).first).result.get()
        #expect(read.first("245", "a") == "Grü")
    }

    @Test func aBrokenRecordIsReportedAndTheNextOneIsRead() throws {
        let good = MARC21Writer.data(MARCMapping.record(sample()))
        var broken = Array(good)
        broken.replaceSubrange(12..<17, with: Array("99999".utf8))  // base address past the end
        let garbage: [UInt8] = Array("not a record at all".utf8) + [0x1D]
        let items = Array(MARC21Reader(Data(broken) + Data(garbage) + good))
        #expect(items.map(\.number) == [1, 2, 3])
        guard case .failure(.badLeader) = items[0].result else { Issue.record("record 1 should fail: \(items.map(\.result))"); return }
        guard case .failure = items[1].result else { Issue.record("record 2 should fail"); return }
        #expect(try items[2].result.get().first("245", "a") == "Momo")
        // Bad XML: the records before the error, and the line of the error.
        let xml = MARCXML.header() + MARCXML.record(MARCMapping.record(sample())) + "<record><leader>oops</record>"
        let (records, failure) = MARCXMLReader.read(Data(xml.utf8))
        #expect(records.count == 1)
        guard case .xml(let line, _) = failure else { Issue.record("expected an XML error, got \(String(describing: failure))"); return }
        #expect(line >= 20)
    }
}

@Suite struct LibraryThingJSONTests {
    @Test func isbnsInEveryShapeAndTheOtherFields() throws {
        let json = """
        {"101": {"books_id": "101", "title": "Momo", "primaryauthor": "Ende, Michael",
                 "authors": [{"lf": "Ende, Michael", "fl": "Michael Ende", "role": "Author"}],
                 "isbn": {"0": "3522128001", "2": "9783522128001"}, "publication": "Stuttgart : Thienemann, 1973",
                 "date": "1973", "pages": "304 ", "rating": 4.5, "language": ["German"], "tags": ["fantasy", "kids"],
                 "collections": ["Your library", "Classroom"], "copies": "2", "series": ["Momo (1)"], "privatecomment": "Shelf B"},
         "102": {"books_id": "102", "title": "Dune", "primaryauthor": "Herbert, Frank", "isbn": ["0441013597"], "collections": ["Wishlist"]},
         "103": {"books_id": "103", "title": "Plain", "ISBN": "9780306406157", "rating": "0"},
         "104": {"books_id": "104", "title": "Bad", "isbn": "12345"},
         "105": {"books_id": "105", "primaryauthor": "Nobody"}}
        """
        #expect(LibraryThingJSON.looksLikeLibraryThing(Substring(json)))
        let items = try LibraryThingJSON.read(Data(json.utf8))
        #expect(items.map(\.number) == [1, 2, 3, 4, 5])
        let momo = try items[0].result.get()
        #expect(momo.title == "Momo")
        #expect(momo.authors == ["Michael Ende"])
        #expect(momo.isbn == "9783522128001")
        #expect(momo.publisher == "Thienemann")
        #expect(momo.pageCount == 304)
        #expect(momo.rating == 4.5)
        #expect(momo.language == "German")
        #expect(momo.categories == ["fantasy", "kids", "Classroom"])
        #expect(momo.totalCopies == 2)
        #expect(momo.series == "Momo" && momo.seriesNumber == "1")
        #expect(momo.notes == "Shelf B")
        let dune = try items[1].result.get()
        #expect(dune.isbn == "9780441013593")
        #expect(dune.authors == ["Frank Herbert"])
        #expect(dune.wishlist)
        #expect(try items[2].result.get().isbn == "9780306406157")
        #expect(try items[2].result.get().rating == nil)
        guard case .failure(.invalid(let column, let value, _)) = items[3].result else { Issue.record("104 should fail"); return }
        #expect(column == "isbn" && value == "12345")
        #expect(throws: ImportMapper.RowError.missing(column: "title")) { try items[4].result.get() }
        #expect(throws: LibraryThingJSON.Failure.self) { try LibraryThingJSON.read(Data("{\"101\": ".utf8)) }
    }
}

/// The MARC files of ../shared/corpora/marc (pymarc's test records): read every file, report records
/// read and failed, and check what is known about them. Skipped when SHELFMARK_CORPUS is not set.
@Suite struct MARCCorpusTests {
    static let root = ProcessInfo.processInfo.environment["SHELFMARK_CORPUS"].flatMap { $0.isEmpty ? nil : $0 }

    @Test(.enabled(if: root != nil, "SHELFMARK_CORPUS is not set: the MARC corpus check is skipped"))
    func everyFileIsReadOrRefusedCleanly() throws {
        let folder = URL(fileURLWithPath: Self.root!).appendingPathComponent("marc/pymarc-5.4.0")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var totalRead = 0, totalFailed = 0
        var byFile: [String: (read: Int, failed: Int, titles: [String])] = [:]
        for name in files where name.hasSuffix(".dat") || name.hasSuffix(".mrc") || name.hasSuffix(".xml") {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            var read = 0, failed = 0
            var titles: [String] = []
            func take(_ result: Result<MARCRecord, MARCError>, _ line: Int) {
                if case .success(let m) = result, let r = try? MARCMapping.importRecord(m, line: line) {
                    read += 1
                    titles.append(r.title ?? "")
                } else {
                    failed += 1
                }
            }
            if name.hasSuffix(".xml") {
                let (items, _) = MARCXMLReader.read(data)
                for item in items { take(item.result, item.line) }
            } else {
                for item in MARC21Reader(data) { take(item.result, item.number) }
            }
            byFile[name] = (read, failed, titles)
            totalRead += read
            totalFailed += failed
            print("MARC corpus \(name): \(read) read, \(failed) failed")
        }
        print("MARC corpus total: \(totalRead) records read, \(totalFailed) failed")
        #expect(byFile["test.dat"]?.read == 10)
        #expect(byFile["marc.dat"]?.read == 20)
        #expect(byFile["batch.xml"]?.read == 2)
        #expect(byFile["utf8_with_leader_flag.dat"]?.titles == byFile["utf8_without_leader_flag.dat"]?.titles)
        #expect(byFile["marc8.dat"]?.titles == byFile["utf8_with_leader_flag.dat"]?.titles)
        // The LC records' ISBNs carry qualifiers: "0471383147 (paper/cd-rom : alk. paper)".
        let first = try #require(Array(MARC21Reader(try Data(contentsOf: folder.appendingPathComponent("test.dat")))).first).result.get()
        #expect(try MARCMapping.importRecord(first, line: 1).isbn != nil)
    }

    /// pymarc's MARC-8 → Unicode pairs, for the lines in the Latin sets (the others are refused).
    @Test(.enabled(if: root != nil, "SHELFMARK_CORPUS is not set: the MARC-8 check is skipped"))
    func marc8LatinLinesConvertAsPymarcSays() throws {
        let folder = URL(fileURLWithPath: Self.root!).appendingPathComponent("marc/pymarc-5.4.0")
        let marc8 = try Data(contentsOf: folder.appendingPathComponent("test_marc8.txt")).split(separator: 0x0A)
        let utf8 = try String(contentsOf: folder.appendingPathComponent("test_utf8.txt"), encoding: .utf8).components(separatedBy: "\n")
        var checked = 0, refused = 0, wrong: [String] = []
        for (i, line) in marc8.enumerated() where i < utf8.count {
            do {
                let converted = try MARC8.decode(Array(line))
                checked += 1
                if converted != utf8[i].precomposedStringWithCanonicalMapping { wrong.append("line \(i + 1): \(converted) ≠ \(utf8[i])") }
            } catch {
                refused += 1
            }
        }
        print("MARC-8 pairs: \(checked) converted, \(refused) refused (non-Latin scripts), \(wrong.count) different")
        #expect(checked > 0)
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }
}
