import Foundation
import Plot
import ShelfmarkCore

/// A year in books as its reader shared it (E3): the figures and charts, nothing private.
struct SharedYearPage: Sendable {
    var name: String
    var stats: ReadingStatsDTO

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let s = stats
        var calendar = Calendar(identifier: .gregorian)
        calendar.locale = t.lang.locale
        let months = calendar.shortStandaloneMonthSymbols
        let heading = t.format(.memberYearInBooks, name, String(s.year))
        return Layout.page(page, title: heading) {
            H.el(.h1, [:]) { Text(heading) }
            H.el(.dl, [.class: "figures"]) {
                H.el(.div, [:]) { H.el(.dt, [:]) { Text(t(.goalBooks)) }; H.el(.dd, [:]) { Text(t.number(s.books)) } }
                H.el(.div, [:]) { H.el(.dt, [:]) { Text(t(.goalPages)) }; H.el(.dd, [:]) { Text(t.number(s.pages)) } }
                H.el(.div, [:]) { H.el(.dt, [:]) { Text(t(.longestStreak)) }; H.el(.dd, [:]) { Text(t(.daysInARow, s.longestStreak)) } }
            }
            Charts.bars(id: "books-month", title: t.format(.booksPerMonthTitle, String(s.year)), labels: months, values: s.months.map(\.books),
                        t: t, columnTitle: t(.monthCol), valueTitle: t(.goalBooks))
            Charts.bars(id: "pages-month", title: t.format(.pagesPerMonthTitle, String(s.year)), labels: months, values: s.months.map(\.pages),
                        t: t, columnTitle: t(.monthCol), valueTitle: t(.goalPages))
            H.el(.section, [.class: "columns"]) {
                if !s.topAuthors.isEmpty {
                    H.el(.div, [:]) {
                        H.el(.h2, [:]) { Text(t(.topAuthors)) }
                        H.el(.ol, [:]) { for a in s.topAuthors { H.el(.li, [:]) { Text(a.name + " · " + t.number(a.books)) } } }
                    }
                }
                if !s.topCategories.isEmpty {
                    H.el(.div, [:]) {
                        H.el(.h2, [:]) { Text(t(.topCategories)) }
                        H.el(.ol, [:]) { for c in s.topCategories { H.el(.li, [:]) { Text(c.name + " · " + t.number(c.books)) } } }
                    }
                }
            }
            if let longest = s.longest, let shortest = s.shortest {
                H.el(.dl, [.class: "facts"]) {
                    Components.fact(t(.longestBook), longest.title + " · " + t.format(.pageCountText, t.number(longest.pages)))
                    Components.fact(t(.shortestBook), shortest.title + " · " + t.format(.pageCountText, t.number(shortest.pages)))
                }
            }
        }
    }
}
