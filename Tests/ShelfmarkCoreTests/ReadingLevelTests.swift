import Testing
@testable import ShelfmarkCore

/// Reading levels as catalogues and teachers write them.
struct ReadingLevelTests {
    @Test(arguments: [
        ("AR 3.4", ReadingLevel(scheme: .ar, value: 3.4)),
        ("ATOS 3.4 (2.0 pts)", ReadingLevel(scheme: .ar, value: 3.4, points: 2)),
        ("BL: 4.5 Pts: 6.0", ReadingLevel(scheme: .ar, value: 4.5, points: 6)),
        ("3.0 AR", ReadingLevel(scheme: .ar, value: 3)),
        ("AR 5,2 / 4 Punkte", ReadingLevel(scheme: .ar, value: 5.2, points: 4)),
        ("Lexile 820L", ReadingLevel(scheme: .lexile, value: 820)),
        ("820L", ReadingLevel(scheme: .lexile, value: 820)),
        ("BR150L", ReadingLevel(scheme: .lexile, value: -150)),
        ("HL620L", ReadingLevel(scheme: .lexile, value: 620)),
        ("Lexile: 1010", ReadingLevel(scheme: .lexile, value: 1010)),
        ("GR M", ReadingLevel(scheme: .guided, value: 13)),
        ("Guided reading: A", ReadingLevel(scheme: .guided, value: 1)),
        ("F&P Z", ReadingLevel(scheme: .guided, value: 26)),
        ("Antolin 3", ReadingLevel(scheme: .antolin, value: 3)),
        ("Antolin ab Klasse 4", ReadingLevel(scheme: .antolin, value: 4)),
        ("ab 2. Klasse", ReadingLevel(scheme: .antolin, value: 2)),
        ("Year 3 readers", ReadingLevel(scheme: .other, value: nil)),
        ("Blue band", ReadingLevel(scheme: .other, value: nil)),
    ])
    func levelsAreRead(_ text: String, _ expected: ReadingLevel) {
        #expect(ReadingLevel.parse(text) == expected, "\(text)")
    }

    @Test func levelsAreWrittenTheSchemesWay() {
        #expect(ReadingLevel.parse("atos 3.4 (2 pts)")?.canonical == "AR 3.4 · 2 pts")
        #expect(ReadingLevel.parse("3 AR")?.canonical == "AR 3.0")
        #expect(ReadingLevel.parse("820l")?.canonical == "Lexile 820L")
        #expect(ReadingLevel.parse("BR 150L")?.canonical == "BR150L")
        #expect(ReadingLevel.parse("gr m")?.canonical == "Guided reading M")
        #expect(ReadingLevel.parse("Klasse 3")?.canonical == "Antolin 3")
        #expect(ReadingLevel.parse("Blue band")?.canonical == nil && ReadingLevel.parse("  ") == nil)
        // A book level past the scale is not a level.
        #expect(ReadingLevel.parse("AR 45")?.scheme == .other)
    }
}
