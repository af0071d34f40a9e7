import Testing
@testable import ShelfmarkCore

/// Call numbers compared and broken as a librarian shelves and labels them.
struct CallNumberTests {
    @Test func deweyNumbersSortAsDecimalsThenByCutter() {
        let shelf = ["823.92 TCH", "590 ANI", "823 ROW", "823.914 ROW", "82 ABC", "823.1 ABC", "823.914 R884", "823.914 R88", "005.133 SWI"]
        #expect(shelf.sorted(by: CallNumber.shelfOrder) == [
            "005.133 SWI", "82 ABC", "590 ANI", "823 ROW", "823.1 ABC", "823.914 R88", "823.914 R884", "823.914 ROW", "823.92 TCH",
        ])
        // Trailing zeros say nothing: 823.90 stands with 823.9.
        #expect(CallNumber.sortKey("823.90 ROW") == CallNumber.sortKey("823.9 ROW"))
        // Case, accents and the segmentation marks catalogues print do not move a book.
        #expect(CallNumber.sortKey("823/.914 row") == CallNumber.sortKey("823.914 ROW"))
        #expect(CallNumber.sortKey("833.92 Hér") == CallNumber.sortKey("833.92 HER"))
    }

    @Test func libraryOfCongressNumbersSortByClassNumberAndCutterDecimals() {
        let shelf = ["QA76.73.S95 A44 2019", "QA9 .B3", "PR6120.C43 C45 2018", "QA76.9 .D3", "QA76.73.J38 H47", "PR6120.C5 A1", "QA76 .Z9"]
        #expect(shelf.sorted(by: CallNumber.shelfOrder) == [
            "PR6120.C43 C45 2018", "PR6120.C5 A1", "QA9 .B3", "QA76 .Z9", "QA76.73.J38 H47", "QA76.73.S95 A44 2019", "QA76.9 .D3",
        ])
    }

    @Test func schoolSchemesSortByPrefixThenClassThenLetters() {
        let shelf = ["J 590 ANI", "F BYR", "J 590.3 BEE", "F ADA", "J 123 ZOO", "REF 030 WOR"]
        #expect(shelf.sorted(by: CallNumber.shelfOrder) == ["F ADA", "F BYR", "J 123 ZOO", "J 590 ANI", "J 590.3 BEE", "REF 030 WOR"])
        // Volumes as numbers.
        #expect(["REF 030 WOR v.10", "REF 030 WOR v.2"].sorted(by: CallNumber.shelfOrder) == ["REF 030 WOR v.2", "REF 030 WOR v.10"])
    }

    @Test func spineLabelsBreakTheCallNumberAsLibrariesDo() {
        #expect(CallNumber.spineLines("823.914 ROW") == ["823.914", "ROW"])
        #expect(CallNumber.spineLines("J 590 ANI") == ["J", "590", "ANI"])
        #expect(CallNumber.spineLines("PR6120.C43 C45 2018") == ["PR", "6120", ".C43", "C45", "2018"])
        #expect(CallNumber.spineLines("QA76.73.S95 A44") == ["QA", "76.73", ".S95", "A44"])
        #expect(CallNumber.spineLines("513.21130942 ADD", width: 8) == ["513.2113", "0942", "ADD"])
        #expect(CallNumber.spineLines("   ").isEmpty)
    }

    @Test func suggestionsComeFromTheDeweyClassAndTheAuthor() {
        #expect(CallNumber.dewey("823/.914") == "823.914")
        #expect(CallNumber.dewey("833.92") == "833.92")
        #expect(CallNumber.dewey("B") == nil)
        #expect(CallNumber.dewey("741.5973092") == "741.597")
        #expect(CallNumber.cutter(authors: ["Joanne K. Rowling"], title: nil) == "ROW")
        #expect(CallNumber.cutter(authors: ["Herrndorf, Wolfgang"], title: nil) == "HER")
        #expect(CallNumber.cutter(authors: [], title: "The Hobbit") == "HOB")
        #expect(CallNumber.cutter(authors: ["Åsa Lärke"], title: nil) == "LAR")
        #expect(CallNumber.suggest(prefix: nil, dewey: "833.92", authors: ["Wolfgang Herrndorf"], title: "Tschick") == "833.92 HER")
        #expect(CallNumber.suggest(prefix: "j", dewey: "590", authors: [], title: "Animals of the World") == "J 590 ANI")
        #expect(CallNumber.suggest(prefix: "F", dewey: nil, authors: ["Lord Byron"], title: nil) == "F BYR")
        #expect(CallNumber.suggest(prefix: nil, dewey: nil, authors: ["A"], title: nil) == nil)
        #expect(CallNumber.normalised("  823.914   ROW ") == "823.914 ROW")
        #expect(CallNumber.normalised(String(repeating: "9", count: 100))?.count == CallNumber.maxLength)
    }

    @Test func aNewPrefixReplacesTheOldOneAndKeepsTheRest() {
        #expect(CallNumber.withPrefix("j", callNumber: "F BYR", authors: [], title: nil) == "J BYR")
        #expect(CallNumber.withPrefix("REF", callNumber: "823.914 ROW", authors: [], title: nil) == "REF 823.914 ROW")
        #expect(CallNumber.withPrefix("F", callNumber: "J 590 ANI", authors: [], title: nil) == "F 590 ANI")
        #expect(CallNumber.withPrefix("F", callNumber: nil, authors: ["Lord Byron"], title: "Poems") == "F BYR")
        #expect(CallNumber.withPrefix("F", callNumber: "PZ7.C6837 Ch 2015", authors: [], title: nil) == "F PZ7.C6837 Ch 2015")
        // A single word is the book's number, not a prefix; an empty prefix takes the old one away.
        #expect(CallNumber.withPrefix("F", callNumber: "BYR", authors: [], title: nil) == "F BYR")
        #expect(CallNumber.withPrefix("", callNumber: "F BYR", authors: [], title: nil) == "BYR")
        #expect(CallNumber.withPrefix(nil, callNumber: nil, authors: ["Byron"], title: nil) == nil)
        #expect(CallNumber.withPrefix("F", callNumber: nil, authors: [], title: nil) == nil)
    }
}
