import Foundation
@testable import ShelfmarkCore
import Testing

/// Hyphenation by the ISBN Agency's ranges. Expected forms are worked out by hand from
/// RangeMessage.xml (the rule that covers the next seven digits gives each element's length).
@Suite struct ISBNHyphenationTests {
    @Test(arguments: [
        ("9780306406157", "978-0-306-40615-7"),     // group 0 (1 digit); 0-306…: 2290000-3689999 → 3
        ("9783522202602", "978-3-522-20260-2"),     // group 3; 5222026 in 2000000-6999999 → 3
        ("9781861972712", "978-1-86197-271-2"),     // group 1; 8619727 in 8385000-8671999 → 5
        ("9781937885489", "978-1-937885-48-9"),     // group 1; 9378854 in 9196550-9729999 → 6
        ("9789995312343", "978-99953-1-234-3"),     // 5-digit group (9990000-9999999); Paraguay 1234… → 1
        ("9791034304561", "979-10-343-0456-1"),     // 979 prefix, group 10 (France); 3430456 → 3
    ])
    func hyphenates(isbn: String, expected: String) throws {
        #expect(try ISBN(isbn).hyphenated == expected)
    }

    @Test func isbn10FormsAndUnassignedRanges() throws {
        #expect(try ISBN("0306406152").hyphenatedISBN10 == "0-306-40615-2")
        #expect(try ISBN("9791034304561").hyphenatedISBN10 == nil)
        // 978-6 6600000-6999999 has length 0 (not assigned): no hyphenation is invented.
        let unassigned = try ISBN("9786600000008")
        #expect(unassigned.parts == nil)
        #expect(unassigned.hyphenated == "9786600000008")
    }

    @Test func everyGeneratedRuleParses() {
        #expect(RangeTable.prefixes["978"]?.isEmpty == false)
        #expect(RangeTable.groups.count == ISBNRanges.groups.count)
        for (key, text) in ISBNRanges.groups {
            let rules = RangeTable.parse(text)
            #expect(rules.count == text.split(separator: ",").count, "\(key)")
            #expect(rules.allSatisfy { $0.low <= $0.high && (1...7).contains($0.length) }, "\(key)")
        }
    }

    /// An EAN-13 with its 2- or 5-digit add-on (issue number or price) is the ISBN alone.
    @Test func eanAddOnsAreDropped() throws {
        #expect(try ISBN("9780306406157 51299").isbn13 == "9780306406157")
        #expect(try ISBN("978030640615712").isbn13 == "9780306406157")
        #expect(throws: ISBN.Invalid.badChecksum) { try ISBN("9780306406158 51299") }
        #expect(throws: ISBN.Invalid.wrongLength(16)) { try ISBN("9780306406157123") }
        #expect(throws: ISBN.Invalid.wrongLength(18)) { try ISBN("400638133393151299") }
    }

    /// A 9-digit SBN (books before 1974) is an ISBN-10 without its leading 0.
    @Test func nineDigitSBNsAreISBN10sWithALeadingZero() throws {
        #expect(try ISBN("340 01381 8").isbn13 == "9780340013816")
        #expect(try ISBN("340013818").isbn10 == "0340013818")
        #expect(throws: ISBN.Invalid.badChecksum) { try ISBN("340013819") }
        #expect(throws: ISBN.Invalid.wrongLength(8)) { try ISBN("34001381") }
    }
}

@Suite struct ISBNTextTests {
    @Test func findsISBNsInOCRText() {
        let text = """
            First published 2003. Printed in Ireland.
            ISBN 0-306-40615-2 (paperback)
            ISBN-13: 978-3-522-20260-2 — also 9781861972712.
            Price €12.99 · Tel. 01 234 5678 · Call 0306406152 now
            """
        #expect(ISBN.find(in: text).map(\.isbn13) == ["9780306406157", "9783522202602", "9781861972712"])
    }

    @Test func tenDigitsNeedALabelOrTheRightHyphens() {
        // Valid ISBN-10 checksums, but nothing says they are ISBNs: a phone number could be one.
        #expect(ISBN.find(in: "call 0306406152 today").isEmpty)
        #expect(ISBN.find(in: "ref 03-0640-615-2").isEmpty)
        #expect(ISBN.find(in: "0-306-40615-2").map(\.isbn13) == ["9780306406157"])
        #expect(ISBN.find(in: "isbn:0306406152").map(\.isbn13) == ["9780306406157"])
    }

    @Test func noFalsePositivesFromNumbersAround() {
        #expect(ISBN.find(in: "Order 19780306406157 shipped").isEmpty)          // part of a longer number
        #expect(ISBN.find(in: "9780306406158 is mistyped").isEmpty)             // checksum
        #expect(ISBN.find(in: "+353 97 830 640 6157").isEmpty)                   // touches a digit group before
        #expect(ISBN.find(in: "EAN 4006381333931").isEmpty)                      // not a book EAN
        #expect(ISBN.find(in: "9780306406157 9780306406157").count == 1)         // repeats once
        #expect(ISBN.find(in: "").isEmpty)
    }
}
