import Foundation
import Plot
import ShelfmarkCore

/// A year in books as its reader shared it: the figures and charts, nothing private.
struct SharedYearPage: Sendable {
    var name: String
    var stats: ReadingStatsDTO

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let s = stats
        let heading = t.format(.memberYearInBooks, name, String(s.year))
        return Layout.page(page, title: heading) {
            H.el(.h1, [:]) { EscapedText(heading) }
            H.el(.dl, [.class: "figures"]) {
                YearFigures.figure(t(.goalBooks), t.number(s.books))
                YearFigures.figure(t(.goalPages), t.number(s.pages))
                YearFigures.figure(t(.longestStreak), t(.daysInARow, s.longestStreak))
            }
            YearFigures.monthCharts(s, t: t)
            H.el(.section, [.class: "columns"]) { YearFigures.topLists(s, t: t) }
            YearFigures.longestAndShortest(s, t: t)
        }
    }
}
