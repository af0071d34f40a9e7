import Foundation
import ShelfmarkCore
import Testing

@Suite struct SpokenProgressTests {
    typealias L = SpokenProgress.Language

    static let vectors: [(String, L, SpokenProgress)] = [
        // English
        ("page 157", .en, .page(157)),
        ("157", .en, .page(157)),
        ("one hundred and fifty-seven", .en, .page(157)),
        ("one hundred fifty seven", .en, .page(157)),
        ("I'm on page two hundred", .en, .page(200)),
        ("one hundred and five", .en, .page(105)),
        ("one hundred five", .en, .page(105)),
        ("a hundred", .en, .page(100)),
        ("nineteen hundred", .en, .page(1900)),
        ("two thousand and twenty", .en, .page(2020)),
        ("nine thousand nine hundred ninety-nine", .en, .page(9999)),
        ("Page 1,234", .en, .page(1234)),
        ("the hundred and fifty-seventh page", .en, .page(157)),
        ("I'm on the 157th page", .en, .page(157)),
        ("page 157 of 320", .en, .page(157)),
        ("chapter three page twelve", .en, .page(12)),
        ("fifty percent", .en, .percent(50)),
        ("I'm 42% through", .en, .percent(42)),
        ("seventy five per cent", .en, .percent(75)),
        ("twenty more pages", .en, .pagesRead(20)),
        ("+12", .en, .pagesRead(12)),
        ("plus thirty", .en, .pagesRead(30)),
        ("page one", .en, .page(1)),
        // German
        ("Seite hundertsiebenundfünfzig", .de, .page(157)),
        ("hundertsiebenundfünfzig", .de, .page(157)),
        ("einhundertsiebenundfünfzig", .de, .page(157)),
        ("Ich bin auf Seite zweihundert", .de, .page(200)),
        ("zwei\u{00AD}hundert", .de, .page(200)),
        ("zwei-hundert", .de, .page(200)),
        ("hundert sieben und fünfzig", .de, .page(157)),
        ("hundertfünf", .de, .page(105)),
        ("hundertundfünf", .de, .page(105)),
        ("dreitausendvierhundertzweiundzwanzig", .de, .page(3422)),
        ("neuntausendneunhundertneunundneunzig", .de, .page(9999)),
        ("die hundertste Seite", .de, .page(100)),
        ("die siebte Seite", .de, .page(7)),
        ("dreißig", .de, .page(30)),
        ("zwölf", .de, .page(12)),
        ("Seite 1.234", .de, .page(1234)),
        ("fünfzig Prozent", .de, .percent(50)),
        ("12,5 Prozent", .de, .percent(13)),
        ("zwanzig Seiten mehr", .de, .pagesRead(20)),
        ("noch 15 Seiten", .de, .pagesRead(15)),
        // Irish
        ("leathanach céad caoga a seacht", .ga, .page(157)),
        ("céad caoga a seacht", .ga, .page(157)),
        ("leathanach dhá chéad", .ga, .page(200)),
        ("seacht gcéad", .ga, .page(700)),
        ("a haon déag", .ga, .page(11)),
        ("fiche a haon", .ga, .page(21)),
        ("míle naoi gcéad nócha a naoi", .ga, .page(1999)),
        ("dhá mhíle", .ga, .page(2000)),
        ("tá sé ar leathanach a dó", .ga, .page(2)),
        ("leathanach 157", .ga, .page(157)),
        ("caoga faoin gcéad", .ga, .percent(50)),
        ("fiche leathanach eile", .ga, .pagesRead(20)),
        // Chinese
        ("第一百五十七页", .zh, .page(157)),
        ("157页", .zh, .page(157)),
        ("一百五十七", .zh, .page(157)),
        ("我读到第二百页了", .zh, .page(200)),
        ("两百页", .zh, .page(200)),
        ("一千零五", .zh, .page(1005)),
        ("一百零五", .zh, .page(105)),
        ("一百五", .zh, .page(150)),
        ("十五", .zh, .page(15)),
        ("一五七", .zh, .page(157)),
        ("九千九百九十九", .zh, .page(9999)),
        ("第１５７頁", .zh, .page(157)),
        ("百分之五十", .zh, .percent(50)),
        ("百分之百", .zh, .percent(100)),
        ("又读了20页", .zh, .pagesRead(20)),
        ("50%", .zh, .percent(50)),
    ]

    @Test(arguments: 0..<vectors.count)
    func readsThePhrase(_ i: Int) throws {
        let (phrase, language, expected) = Self.vectors[i]
        #expect(try SpokenProgress.parse(phrase, language: language) == expected, "\(phrase)")
    }

    /// A recogniser set to one language may hear a reader speaking another: other languages'
    /// number words are tried when the first has none.
    @Test func fallsBackToTheOtherLanguages() throws {
        #expect(try SpokenProgress.parse("page one hundred and five", language: .de) == .page(105))
        #expect(try SpokenProgress.parse("Seite zweihundert", language: .en) == .page(200))
        #expect(try SpokenProgress.parse("第十页", language: .ga) == .page(10))
    }

    @Test func saysWhenThereIsNoNumberOrItIsOutOfRange() throws {
        for phrase in ["", "I'm on page", "Seite", "leathanach", "页", "hello there", "und", "déag"] {
            #expect(throws: SpokenProgress.Problem.noNumber, "\(phrase)") { try SpokenProgress.parse(phrase) }
        }
        #expect(throws: SpokenProgress.Problem.outOfRange(0)) { try SpokenProgress.parse("page 0") }
        #expect(throws: SpokenProgress.Problem.outOfRange(10_000)) { try SpokenProgress.parse("ten thousand") }
        #expect(throws: SpokenProgress.Problem.outOfRange(150)) { try SpokenProgress.parse("150 percent") }
        #expect(throws: SpokenProgress.Problem.outOfRange(123_456_789)) { try SpokenProgress.parse("page 123456789") }
        // Hostile length: read only the first 200 characters, without trouble.
        let long = String(repeating: "nine ", count: 10_000)
        #expect(try SpokenProgress.parse(long) == .page(9))
    }
}

@Suite struct ReadingRulesTests {
    let day: TimeInterval = 86_400
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)

    func entry(_ d: Double, _ kind: ProgressUnit, _ v: Int?, _ label: String? = nil) -> ProgressEntry {
        ProgressEntry(at: t0.addingTimeInterval(d * day), kind: kind, value: v, label: label)
    }

    @Test func positionFromPagesPercentsAndIncrements() {
        let events = [entry(0, .page, 20), entry(1, .pagesRead, 30), entry(2, .percent, 50)]
        let p = ReadingRules.position(of: events, pageCount: 320, status: .reading)
        #expect(p.page == 160 && p.percent == 50)
        let q = ReadingRules.position(of: [entry(0, .page, 157)], pageCount: 320, status: .reading)
        #expect(q.page == 157 && q.percent == 49)
        // No page count: pages are known, the percentage is not.
        let r = ReadingRules.position(of: [entry(0, .page, 40), entry(1, .pagesRead, 10)], pageCount: nil, status: .reading)
        #expect(r.page == 50 && r.fraction == nil)
        // A finished read with no events is 100 %.
        #expect(ReadingRules.position(of: [], pageCount: 200, status: .finished) == ReadPosition(page: 200, fraction: 1))
        // A label is shown; it does not move the page.
        let l = ReadingRules.position(of: [entry(0, .page, 3), entry(1, .page, nil, "ix")], pageCount: 100, status: .reading)
        #expect(l.page == 3 && l.label == "ix")
    }

    @Test func statusFollowsProgress() {
        let started = ReadPosition(page: 1, fraction: 0.01)
        #expect(ReadingRules.status(after: started, was: .wantToRead) == .reading)
        #expect(ReadingRules.status(after: started, was: .didNotFinish) == .reading)
        #expect(ReadingRules.status(after: ReadPosition(page: 320, fraction: 1), was: .reading) == .finished)
        #expect(ReadingRules.status(after: ReadPosition(), was: .wantToRead) == .wantToRead)
        #expect(ReadingRules.status(after: started, was: .finished) == .finished)
        // The last page finishes the read.
        let last = ReadingRules.position(of: [entry(0, .page, 10), entry(1, .page, 320)], pageCount: 320, status: .reading)
        #expect(ReadingRules.status(after: last, was: .reading) == .finished)
        // 99.7 % is not finished.
        let almost = ReadingRules.position(of: [entry(0, .page, 319)], pageCount: 320, status: .reading)
        #expect(almost.percent == 99 && ReadingRules.status(after: almost, was: .reading) == .reading)
    }

    @Test func pagesReadSpeedAndProjection() {
        let events = [entry(0, .page, 10), entry(1, .page, 40), entry(1.5, .page, 30), entry(4, .page, 100)]
        let gains = ReadingRules.pagesRead(by: events, pageCount: 300, finishedAt: nil)
        #expect(gains.map(\.pages) == [10, 30, 60])   // going back a page adds nothing
        // A finished read's remaining pages count on its finish day.
        let finished = ReadingRules.pagesRead(by: events, pageCount: 300, finishedAt: t0.addingTimeInterval(9 * day))
        #expect(finished.map(\.pages).reduce(0, +) == 300)
        // Speed from the first to the last position: 90 pages over 4 days.
        let speed = ReadingRules.pagesPerDay(events, pageCount: 300)
        #expect(speed == 22.5)
        let now = t0.addingTimeInterval(4 * day)
        let position = ReadingRules.position(of: events, pageCount: 300, status: .reading)
        let done = ReadingRules.projectedFinish(position: position, pageCount: 300, pagesPerDay: speed, now: now)
        #expect(done == now.addingTimeInterval(9 * day))   // 200 pages at 22.5 a day: 8.9 → 9 days
        #expect(ReadingRules.pagesPerDay([entry(0, .page, 10)], pageCount: 300) == nil)
        // From stored gains, the same figure.
        let g = ReadingRules.gains(of: events, pageCount: 300)
        #expect(g == [10, 30, 0, 60])
        #expect(ReadingRules.pagesPerDay(events: 3, pages: 100, firstGain: 10, first: t0, last: t0.addingTimeInterval(4 * day)) == speed)
    }

    @Test func goalPaceAndStreaks() {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let midYear = utc.date(from: DateComponents(year: 2026, month: 7, day: 2, hour: 12))! // day 183 of 365
        let pace = GoalPace(target: 24, done: 15, year: 2026, now: midYear, calendar: utc)
        #expect(pace.expected == 12 && pace.ahead == 3)
        #expect(GoalPace(target: 24, done: 0, year: 2027, now: midYear, calendar: utc).expected == 0)
        #expect(GoalPace(target: 24, done: 20, year: 2025, now: midYear, calendar: utc).ahead == -4)
        #expect(ReadingStreak.current(days: [10, 9, 8, 6], today: 10) == 3)
        #expect(ReadingStreak.current(days: [9, 8, 6], today: 10) == 2)   // today not yet read
        #expect(ReadingStreak.current(days: [8, 7], today: 10) == 0)
        #expect(ReadingStreak.longest(days: [1, 2, 3, 5, 6, 7, 8, 20]) == 4)
    }
}
