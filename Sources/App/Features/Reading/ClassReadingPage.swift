import Fluent
import FluentSQL
import Foundation
import Plot
import ShelfmarkCore

/// A class's reading this term (for teachers): each member of the class with the books they
/// finished since the term began, the pages, and what they are reading now — from the reading logs
/// staff keep. Classes to choose from are the members' classes.
struct ClassReadingPage: Sendable {
    typealias Row = ClassReading.Row

    var libraryID: UUID
    var grades: [String]
    var grade: String?
    var since: Date
    var rows: [Row]

    static let maxMembers = 500

    /// 1 September of the school year `now` is in (September to August).
    static func termStart(now: Date, calendar: Calendar) -> Date {
        let c = calendar.dateComponents([.year, .month], from: now)
        let year = (c.month ?? 1) >= 9 ? (c.year ?? 2000) : (c.year ?? 2000) - 1
        return calendar.date(from: DateComponents(year: year, month: 9, day: 1)) ?? now
    }

    static func make(grade: String?, since: Date, library: LibraryContext, on db: any Database) async throws -> ClassReadingPage {
        let grades = try await ClassReading.grades(library: library.libraryID, on: db)
        var rows: [Row] = []
        if let grade { rows = try await ClassReading.term(grade: grade, since: since, library: library.libraryID, limit: maxMembers, on: db) }
        return ClassReadingPage(libraryID: library.libraryID, grades: grades, grade: grade, since: since, rows: rows)
    }

    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let here = WebRoute.readingClass(library: lib)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = t.timeZone
        let c = utc.dateComponents([.year, .month, .day], from: since)
        let sinceText = String(format: "%04d-%02d-%02d", c.year ?? 2000, c.month ?? 1, c.day ?? 1)
        let most = max(1, rows.map { $0.finished ?? 0 }.max() ?? 1)
        return Layout.page(page, title: grade.map { t.format(.classReadingOf, $0) } ?? t(.classReading)) {
            H.el(.h1, [:]) { EscapedText(grade.map { t.format(.classReadingOf, $0) } ?? t(.classReading)) }
            if grades.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noClassesYet)) }
            } else {
                H.el(.nav, [.class: "chips", .ariaLabel: t(.grade)]) {
                    for g in grades { Components.chipLink(g, here.path(query: [("grade", g), ("since", sinceText)]), current: g == grade) }
                }
            }
            H.el(.form, [.method: "get", .action: here.path, .class: "inline-form"]) {
                if let grade { H.void(.input, [.type: "hidden", .name: "grade", .value: grade]) }
                H.field(t(.sinceField), name: "since", type: "date", value: sinceText)
                H.button(t(.show), kind: "quiet")
            }
            if grade == nil, !grades.isEmpty {
                H.el(.p, [.class: "hint"]) { EscapedText(t(.chooseAClass)) }
            }
            if grade != nil {
                if rows.isEmpty {
                    H.el(.p, [.class: "empty"]) { EscapedText(t(.noMembers)) }
                } else {
                    H.el(.p, [:]) {
                        EscapedText(t.format(.classTotals, t.date(since), t.number(rows.reduce(0) { $0 + ($1.finished ?? 0) })))
                    }
                    H.el(.div, [.class: "table-scroll"]) {
                    H.el(.table, [.class: "data class-reading"]) {
                        H.el(.thead, [:]) {
                            H.el(.tr, [:]) {
                                H.el(.th, [.scope: "col"]) { EscapedText(t(.member)) }
                                H.el(.th, [.scope: "col"]) { EscapedText(t(.readFinished)) }
                                H.el(.th, [.scope: "col"]) { EscapedText(t(.goalPages)) }
                                H.el(.th, [.scope: "col"]) { EscapedText(t(.readReading)) }
                            }
                        }
                        H.el(.tbody, [:]) {
                            for row in rows {
                                H.el(.tr, [:]) {
                                    H.el(.th, [.scope: "row"]) {
                                        H.el(.a, [.href: WebRoute.readingStats(library: lib).path(query: [("member", row.id.uuidString)])]) {
                                            EscapedText(Member.fullName(first: row.first_name, last: row.last_name))
                                        }
                                    }
                                    H.el(.td, [:]) {
                                        H.el(.meter, [.min: "0", .max: String(most), .value: String(row.finished ?? 0), .ariaHidden: "true"]) { EmptyComponent() }
                                        EscapedText(" " + t.number(row.finished ?? 0))
                                    }
                                    H.el(.td, [:]) { EscapedText(t.number(row.pages ?? 0)) }
                                    H.el(.td, [:]) { EscapedText(t.number(row.reading ?? 0)) }
                                }
                            }
                        }
                    }
                    }
                }
            }
        }
    }
}
