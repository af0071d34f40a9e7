import Foundation
import Plot
import ShelfmarkCore

extension ReadingPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        let here = WebRoute.reading(library: lib)
        return Layout.page(page, title: t(.navReading)) {
            H.el(.div, [.class: "page-head"]) {
                H.el(.h1, [:]) { EscapedText(t(.navReading)) }
                H.link(t(.readingStats), WebRoute.readingStats(library: lib).path, cls: "button quiet")
            }
            H.el(.nav, [.class: "chips", .ariaLabel: t(.status)]) {
                for status in [ReadStatus.reading, .wantToRead, .finished, .didNotFinish] {
                    Components.chipLink(ReadingCard.statusName(status, t: t) + " (" + t.number(counts[status] ?? 0) + ")",
                                        here.path(query: [("show", status == .reading ? nil : status.rawValue)]), current: status == show)
                }
            }
            if reads.isEmpty {
                H.el(.div, [.class: "empty"]) {
                    H.el(.p, [:]) { EscapedText(show == .reading ? t(.noReadingYet) : t(.noReadsHere)) }
                    H.el(.p, [.class: "hint"]) { EscapedText(t(.noReadingYetHint)) }
                    H.link(t(.catalog), WebRoute.catalog(library: lib).path, cls: "button primary")
                }
            } else {
                H.el(.ul, [.class: "reads"]) {
                    for (i, read) in reads.enumerated() {
                        H.el(.li, [.class: "read"]) {
                            H.el(.div, [.class: "read-head"]) {
                                if let titleID = read.titleId {
                                    H.el(.a, [.href: WebRoute.title(library: lib, title: titleID).path, .class: "title"]) { EscapedText(read.title) }
                                } else {
                                    H.el(.span, [.class: "title"]) { EscapedText(read.title) }
                                }
                                if let authors = read.authors { H.el(.span, [.class: "authors"]) { EscapedText(authors) } }
                            }
                            ReadingCard.progressBar(read, t: t)
                            if let finished = read.finishedAt, show == .finished || show == .didNotFinish {
                                H.el(.p, [.class: "meta"]) { EscapedText(t.format(.finishedOn, t.date(finished))) }
                            }
                            if let titleID = read.titleId, show == .reading || show == .wantToRead {
                                ReadingCard.pageForm(titleID: titleID, lib: lib, csrf: page.csrf, t: t, back: "reading", id: "f-page-\(i)", compact: true)
                            }
                        }
                    }
                }
                Components.pager(paging, total: counts[show] ?? 0, t: t) { n in
                    here.path(query: [("show", show == .reading ? nil : show.rawValue), ("page", n > 1 ? String(n) : nil)])
                }
            }
            H.el(.p, [.class: "hint"]) {
                H.link(t(.exportHistory), APILink.readingExport(library: lib).path)
                EscapedText(" · " + t(.importHistoryHint))
            }
        }
    }
}
