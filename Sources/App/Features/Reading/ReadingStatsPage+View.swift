import Foundation
import Plot
import ShelfmarkCore

extension ReadingStatsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, s, year, member) = (libraryID, stats, year, memberID?.uuidString)
        let here = WebRoute.readingStats(library: lib)
        let heading = memberName.map { t.format(.memberYearInBooks, $0, String(year)) } ?? t.format(.yearInBooks, String(year))
        return Layout.page(page, title: heading) {
            H.el(.div, [.class: "page-head"]) {
                H.el(.h1, [:]) { EscapedText(heading) }
                if let memberID {
                    H.link(memberName ?? "", WebRoute.member(library: lib, member: memberID).path + "#reading", cls: "button quiet")
                } else {
                    H.link(t(.navReading), WebRoute.reading(library: lib).path, cls: "button quiet")
                }
            }
            H.el(.nav, [.class: "chips", .ariaLabel: t(.yearCol)]) {
                Components.chipLink("‹ " + String(year - 1), here.path(query: [("year", String(year - 1)), ("member", member)]), current: false)
                if year != thisYear { Components.chipLink(String(thisYear), here.path(query: [("member", member)]), current: false) }
                if year < thisYear { Components.chipLink(String(year + 1) + " ›", here.path(query: [("year", String(year + 1)), ("member", member)]), current: false) }
            }
            if memberID == nil, s.statuses.allSatisfy({ $0.reads == 0 }) {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noReadingYet) + " " + t(.noReadingYetHint)) }
            }
            H.el(.section, [.class: "goal"]) {
                H.el(.h2, [:]) { EscapedText(t.format(.goalFor, String(year))) }
                if let goal = s.goal, let books = goal.books {
                    Charts.ring(id: "goal-ring", title: t.format(.goalRingTitle, t.number(goal.booksDone), t.number(books)),
                                fraction: books > 0 ? Double(goal.booksDone) / Double(books) : 0,
                                center: t.number(goal.booksDone) + "/" + t.number(books), sub: t(.goalBooks))
                    if let ahead = goal.booksAhead {
                        H.el(.p, [.class: ahead >= 0 ? "pace ahead" : "pace behind"]) {
                            EscapedText(ahead > 0 ? t(.booksAhead, ahead) : ahead < 0 ? t(.booksBehind, -ahead) : t(.onPace))
                        }
                    }
                }
                if let goal = s.goal, let pages = goal.pages {
                    H.el(.p, [:]) {
                        H.el(.progress, [.max: String(pages), .value: String(min(goal.pagesDone, pages)),
                                         .ariaLabel: t.format(.pagesGoalText, t.number(goal.pagesDone), t.number(pages))]) { EmptyComponent() }
                        EscapedText(" " + t.format(.pagesGoalText, t.number(goal.pagesDone), t.number(pages)))
                        if let ahead = goal.pagesAhead { EscapedText(" · " + (ahead >= 0 ? t(.pagesAhead, ahead) : t(.pagesBehind, -ahead))) }
                    }
                }
                H.form(WebRoute.readingGoal(library: lib).path, csrf: page.csrf, attrs: [.class: "goal-form"]) {
                    H.void(.input, [.type: "hidden", .name: "year", .value: String(year)])
                    if let member { H.void(.input, [.type: "hidden", .name: "member", .value: member]) }
                    H.field(t(.goalBooks), name: "books", type: "number", value: s.goal?.books.map(String.init),
                            extra: [.min: "1", .max: "10000", .inputmode: "numeric"])
                    H.field(t(.goalPages), name: "pages", type: "number", value: s.goal?.pages.map(String.init),
                            extra: [.min: "1", .max: "10000000", .inputmode: "numeric"])
                    H.button(t(.setGoal))
                }
            }
            H.el(.dl, [.class: "figures"]) {
                YearFigures.figure(t(.goalBooks), t.number(s.books))
                YearFigures.figure(t(.goalPages), t.number(s.pages))
                YearFigures.figure(t(.currentStreak), t(.daysInARow, s.currentStreak))
                YearFigures.figure(t(.longestStreak), t(.daysInARow, s.longestStreak))
            }
            H.el(.section, [:]) {
                H.el(.h2, [:]) { EscapedText(t(.perMonth)) }
                YearFigures.monthCharts(s, t: t)
            }
            if !s.current.isEmpty {
                H.el(.section, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.readingNow)) }
                    H.el(.ul, [.class: "reads"]) {
                        for c in s.current {
                            H.el(.li, [.class: "read"]) {
                                if let titleID = c.titleId {
                                    H.el(.a, [.href: WebRoute.title(library: lib, title: titleID).path, .class: "title"]) { EscapedText(c.title) }
                                } else {
                                    H.el(.span, [.class: "title"]) { EscapedText(c.title) }
                                }
                                if let percent = c.percent {
                                    H.el(.progress, [.max: "100", .value: String(percent)]) { EscapedText(t.format(.percentOnly, t.number(percent))) }
                                }
                                H.el(.p, [.class: "meta"]) {
                                    EscapedText([c.pagesPerDay.map { t.format(.pagesPerDay, $0.formatted(.number.precision(.fractionLength(0...1)).locale(t.lang.locale))) },
                                          c.projectedFinish.map { t.format(.projectedFinish, t.date($0)) }].compactMap { $0 }.joined(separator: " · "))
                                }
                            }
                        }
                    }
                }
            }
            if s.years.count > 1 {
                H.el(.section, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.perYear)) }
                    Charts.table(columns: [t(.yearCol), t(.goalBooks), t(.goalPages)],
                                 rows: s.years.reversed().map { [String($0.year), t.number($0.books), t.number($0.pages)] })
                }
            }
            H.el(.section, [.class: "columns"]) {
                H.el(.div, [:]) {
                    H.el(.h2, [:]) { EscapedText(t(.byStatus)) }
                    Charts.table(columns: [t(.status), t(.goalBooks)],
                                 rows: s.statuses.compactMap { c in ReadStatus(rawValue: c.status).map { [ReadingCard.statusName($0, t: t), t.number(c.reads)] } })
                }
                if s.ratings.contains(where: { $0 > 0 }) {
                    H.el(.div, [:]) {
                        H.el(.h2, [:]) { EscapedText(t(.rating)) }
                        Charts.bars(id: "ratings", title: t.format(.ratingsTitle, String(year)), labels: ["1★", "2★", "3★", "4★", "5★"],
                                    values: s.ratings, t: t, columnTitle: t(.rating), valueTitle: t(.goalBooks))
                    }
                }
                YearFigures.topLists(s, t: t)
            }
            if memberID == nil {
                H.el(.section, [.id: "share"]) {
                    H.el(.h2, [:]) { EscapedText(t(.shareYear)) }
                    H.form(WebRoute.readingShare(library: lib).path, csrf: page.csrf, attrs: [.class: "inline-form"]) {
                        H.void(.input, [.type: "hidden", .name: "year", .value: String(year)])
                        if let since = sharedSince {
                            if let token = newShareToken {
                                H.field(t(.shareLink), name: "link", value: origin + WebRoute.sharedYear(token: token).path,
                                        hint: t(.shareLinkHint), extra: [.readonly: ""])
                                H.el(.button, [.type: "button", .class: "button quiet", .dataShare: t.format(.yearInBooks, String(year)),
                                               .dataShareUrl: WebRoute.sharedYear(token: token).path, .hidden: ""]) { EscapedText(t(.share)) }
                            } else {
                                H.el(.p, [.class: "hint"]) { EscapedText(t.format(.sharedSinceText, t.date(since))) }
                                H.button(t(.newShareLink), kind: "quiet")
                            }
                            H.button(t(.stopSharing), kind: "quiet", attrs: [.name: "stop", .value: "1"])
                        } else {
                            H.el(.p, [.class: "hint"]) { EscapedText(t(.shareYearHint)) }
                            H.button(t(.shareYear), kind: "quiet")
                        }
                    }
                }
            }
            YearFigures.longestAndShortest(s, t: t)
        }
    }
}
