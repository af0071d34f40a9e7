import Foundation
import ShelfmarkCore
import Testing

/// Search is case- and diacritic-insensitive; A–Z sections put non-letters under "#".
@Suite struct SearchTextTests {
    @Test(arguments: [
        ("Éamonn Ó Súilleabháin", "eamonn o suilleabhain"),
        ("Jürgen Groß", "jurgen gross"),
        ("ÆSOP", "aesop"),
        ("Łódź", "lodz"),
        ("ＦＵＬＬ", "full"),
    ])
    func foldsCaseAndDiacritics(input: String, expected: String) {
        #expect(SearchText.fold(input) == expected)
    }

    @Test func tokensAreRunsOfLettersAndDigits() {
        #expect(SearchText.tokens("Harry Potter & the Philosopher's Stone (1997)") ==
                ["harry", "potter", "the", "philosopher", "s", "stone", "1997"])
        #expect(SearchText.tokens("  ") == [])
        #expect(SearchText.tokens("\"*) OR 1=1 --") == ["or", "1", "1"])
    }

    /// Chinese and Japanese characters are words of their own to search; other scripts keep their words,
    /// and the list orders (`tokens`, `sortKey`) keep the runs whole.
    @Test func searchWordsCutChineseAndJapaneseIntoCharacters() {
        #expect(SearchText.searchWords("哈利波特与魔法石") == ["哈", "利", "波", "特", "与", "魔", "法", "石"])
        #expect(SearchText.searchWords("となりのトトロ 2") == ["と", "な", "り", "の", "ト", "ト", "ロ", "2"])
        #expect(SearchText.searchWords("第3章abc") == ["第", "3", "章", "abc"])
        #expect(SearchText.searchWords("\u{20000}x") == ["\u{20000}", "x"])
        #expect(SearchText.searchWords("한국어 책") == ["한국어", "책"])
        #expect(SearchText.searchWords("Harry Potter") == ["harry", "potter"])
        #expect(SearchText.document(["魔法石", nil, "Tolkien"]) == "魔 法 石 tolkien")
        #expect(SearchText.tokens("哈利波特") == ["哈利波特"])
        #expect(SearchText.sortKey("哈利波特") == "哈利波特")
        // A query asks for at most so many words, however long it is.
        #expect(SearchText.queryWords(String(repeating: "a ", count: 10_000)).count == SearchText.maxQueryWords)
        #expect(SearchText.queryWords(String(repeating: "书", count: 10_000)).count == SearchText.maxQueryWords)
        #expect(SearchText.queryWords("魔法 石") == ["魔", "法", "石"])
    }

    @Test func sortKeyDropsLeadingArticles() {
        #expect(SearchText.sortKey("The Hobbit") == "hobbit")
        #expect(SearchText.sortKey("Die Unendliche Geschichte") == "unendliche geschichte")
        #expect(SearchText.sortKey("A") == "a")
        #expect(SearchText.sortKey("Über Alles") == "uber alles")
    }

    @Test(arguments: [("hobbit", "H"), ("uber", "U"), ("1984", "#"), ("", "#"), ("日本", "#")])
    func sections(key: String, letter: String) {
        #expect(SearchText.section(forSortKey: key) == letter)
    }
}

@Suite struct ISBNTests {
    @Test func isbn10ConvertsToIsbn13() throws {
        let isbn = try ISBN("0-306-40615-2")
        #expect(isbn.isbn13 == "9780306406157")
        #expect(isbn.isbn10 == "0306406152")
    }

    @Test func checkDigitXAndPrefixes() throws {
        #expect(try ISBN("ISBN 0-8044-2957-x").isbn13 == "9780804429573")
        #expect(try ISBN("ISBN-13: 978-0-8044-2957-3").isbn10 == "080442957X")
        #expect(try ISBN("9791034304561").isbn10 == nil)
    }

    @Test func completingTwelveDigitsAddsTheCheckDigit() throws {
        #expect(try ISBN(completingFirst12: "978030640615").isbn13 == "9780306406157")
        #expect(try ISBN(completingFirst12: "979103430456").isbn13 == "9791034304561")
        #expect(throws: ISBN.Invalid.notABookEAN) { try ISBN(completingFirst12: "400638133393") }
        #expect(throws: ISBN.Invalid.wrongLength(12)) { try ISBN(completingFirst12: "97803064061") }
    }

    @Test func invalidInputSaysWhy() {
        #expect(throws: ISBN.Invalid.badChecksum) { try ISBN("9780306406158") }
        #expect(throws: ISBN.Invalid.badChecksum) { try ISBN("0306406153") }
        #expect(throws: ISBN.Invalid.wrongLength(12)) { try ISBN("978030640615") }
        #expect(throws: ISBN.Invalid.notABookEAN) { try ISBN("4006381333931") }
        #expect(throws: ISBN.Invalid.badCharacters) { try ISBN("97803064O6157") }
        #expect(throws: ISBN.Invalid.badCharacters) { try ISBN("X306406152") }
        #expect(throws: ISBN.Invalid.empty) { try ISBN(" - ") }
    }

    /// Text to store: control characters other than tab and line breaks go, NFC, trimmed.
    @Test(arguments: [
        ("  Momo ", "Momo"), ("Mo\u{0}mo", "Momo"), ("\u{5}N\u{7}", "N"), ("\u{7F}", ""),
        ("line one\nline two\tend", "line one\nline two\tend"), ("Cafe\u{301}", "Caf\u{E9}"), ("\u{0085}x\u{0085}", "x"),
    ])
    func cleanedInputDropsControlsAndComposes(input: String, expected: String) {
        #expect(input.cleanedInput == expected)
        #expect(Array(input.cleanedInput.utf8) == Array(expected.utf8))
    }
}
