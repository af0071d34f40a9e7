import Foundation
import Plot
import ShelfmarkCore

/// The parts of a year in books that the reader's statistics page and the shared year page both
/// show, in one place: the headline figures, the two monthly charts, the top authors and
/// categories, and the longest and shortest book.
enum YearFigures {
    /// One headline figure (`<div><dt>…</dt><dd>…</dd></div>` in a `dl.figures`).
    static func figure(_ label: String, _ value: String) -> any Component {
        H.el(.div, [:]) { H.el(.dt, [:]) { EscapedText(label) }; H.el(.dd, [:]) { EscapedText(value) } }
    }

    /// Books and pages per month, as SVG bar charts with their tables.
    static func monthCharts(_ s: ReadingStatsDTO, t: Strings) -> any Component {
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = t.lang.locale
        let months = calendar.shortStandaloneMonthSymbols
        return ComponentGroup {
            Charts.bars(id: "books-month", title: t.format(.booksPerMonthTitle, String(s.year)), labels: months, values: s.months.map(\.books),
                        t: t, columnTitle: t(.monthCol), valueTitle: t(.goalBooks))
            Charts.bars(id: "pages-month", title: t.format(.pagesPerMonthTitle, String(s.year)), labels: months, values: s.months.map(\.pages),
                        t: t, columnTitle: t(.monthCol), valueTitle: t(.goalPages))
        }
    }

    /// The top authors and categories, each a column of a `section.columns`.
    static func topLists(_ s: ReadingStatsDTO, t: Strings) -> any Component {
        ComponentGroup {
            if !s.topAuthors.isEmpty {
                H.el(.div, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.topAuthors)) }
                    H.el(.ol, [:]) { for a in s.topAuthors { H.el(.li, [:]) { EscapedText(a.name + " · " + t.number(a.books)) } } }
                }
            }
            if !s.topCategories.isEmpty {
                H.el(.div, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.topCategories)) }
                    H.el(.ol, [:]) { for c in s.topCategories { H.el(.li, [:]) { EscapedText(c.name + " · " + t.number(c.books)) } } }
                }
            }
        }
    }

    /// The longest and the shortest book finished in the year.
    static func longestAndShortest(_ s: ReadingStatsDTO, t: Strings) -> any Component {
        guard let longest = s.longest, let shortest = s.shortest else { return EmptyComponent() }
        return H.el(.dl, [.class: "facts"]) {
            Components.fact(t(.longestBook), longest.title + " · " + t.format(.pageCountText, t.number(longest.pages)))
            Components.fact(t(.shortestBook), shortest.title + " · " + t.format(.pageCountText, t.number(shortest.pages)))
        }
    }
}
