import ShelfmarkCore
import Testing

@Suite struct TitleMatchTests {
    let found: [TitleMatch.Candidate] = [
        .init(title: "Children of Time", authors: ["Adrian Tchaikovsky"], isbn13: "9780316452502"),
        .init(title: "Children of Ruin", authors: ["Adrian Tchaikovsky"], isbn13: "9780316452526"),
        .init(title: "The Hobbit", subtitle: "or There and Back Again", authors: ["J. R. R. Tolkien"], isbn13: "9780261102217"),
        .init(title: "Momo: oder die seltsame Geschichte von den Zeit-Dieben", authors: ["Michael Ende"], isbn13: "9783522202600"),
        .init(title: "Untitled", authors: ["Nobody"], isbn13: nil),
    ]

    @Test func theSameTitleByTheSameAuthorIsTheBook() {
        #expect(TitleMatch.best(title: "Children of Ruin", authors: ["Tchaikovsky, Adrian"], in: found) == 1)
        #expect(TitleMatch.best(title: "children of time", authors: [], in: found) == 0)
        #expect(TitleMatch.best(title: "Hobbit", authors: ["Tolkien"], in: found) == 2)
        #expect(TitleMatch.best(title: "Momo", authors: ["Michael Ende"], in: found) == 3)
    }

    @Test func anotherTitleOrAuthorOrNoISBNIsNotTheBook() {
        #expect(TitleMatch.best(title: "Children", authors: [], in: found) == nil)
        #expect(TitleMatch.best(title: "Children of Ruin", authors: ["Someone Else"], in: found) == nil)
        #expect(TitleMatch.best(title: "Untitled", authors: ["Nobody"], in: found) == nil)
        #expect(TitleMatch.best(title: "   ", authors: [], in: found) == nil)
    }
}
