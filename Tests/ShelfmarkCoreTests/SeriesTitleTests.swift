import Testing
@testable import ShelfmarkCore

/// Series in titles as Goodreads writes them.
struct SeriesTitleTests {
    @Test func goodreadsTitlesGiveTheirSeries() {
        #expect(SeriesTitle.parse("A Desolation Called Peace (Teixcalaan, #2)") == .init(title: "A Desolation Called Peace", series: "Teixcalaan", number: "2"))
        #expect(SeriesTitle.parse("The Colour of Magic (Discworld, #1; Rincewind #1)")
                == .init(title: "The Colour of Magic", series: "Discworld", number: "1", more: [.init(name: "Rincewind", number: "1")]))
        #expect(SeriesTitle.parse("Mort (Discworld, #4; Death, #1)")?.more == [.init(name: "Death", number: "1")])
        #expect(SeriesTitle.parse("Mort (Discworld #4)") == .init(title: "Mort", series: "Discworld", number: "4"))
        #expect(SeriesTitle.parse("Harry Potter Boxed Set (Harry Potter, #1-7)") == .init(title: "Harry Potter Boxed Set", series: "Harry Potter", number: "1-7"))
        #expect(SeriesTitle.parse("The Hedge Knight (The Tales of Dunk and Egg, #1.5)")?.number == "1.5")
        #expect(SeriesTitle.parse("Les Misérables (Tome 1)") == nil)
        #expect(SeriesTitle.parse("Momo") == nil)
        #expect(SeriesTitle.parse("(Discworld, #1)") == nil)
        #expect(SeriesTitle.parse("Catch-22 (#1)") == nil)
    }

    @Test func volumesSortAndGapsAreFound() {
        #expect(["10", "2", "1.5", "1-3", nil].sorted { SeriesTitle.order($0) < SeriesTitle.order($1) } == ["1-3", "1.5", "2", "10", nil])
        #expect(SeriesTitle.missing(["1", "2", "5", "2.5"]) == [3, 4])
        #expect(SeriesTitle.missing(["1-3", "6"]) == [4, 5])
        #expect(SeriesTitle.missing([nil, "x"]).isEmpty)
    }

    @Test func seriesListsAreReadAsPeopleWriteThem() {
        #expect(SeriesEntry.list("Death, #1; Witches #2;; Tiffany Aching") == [.init(name: "Death", number: "1"), .init(name: "Witches", number: "2"), .init(name: "Tiffany Aching")])
        #expect(SeriesEntry.list("Death #1; death #2") == [.init(name: "Death", number: "1")])
        #expect(SeriesEntry.list(" ; ").isEmpty)
        #expect(SeriesEntry.list("C# for Kids") == [.init(name: "C# for Kids")])
        #expect(SeriesEntry.list((1...9).map { "S\($0)" }.joined(separator: ";")).count == SeriesEntry.maxEntries)
        #expect(SeriesEntry.text(SeriesEntry.list("Death, #1; Witches")) == "Death #1; Witches")
    }
}
