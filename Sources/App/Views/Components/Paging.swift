import Foundation
import Plot

/// Where a list is: page `number` (from 1) of pages of `size` items. The page is part of the URL,
/// so a link to it works without JavaScript and the browser's back button returns to it.
struct Paging: Sendable, Equatable {
    static let defaultSize = 50
    static let maxPage = 100_000

    let number: Int
    let size: Int

    /// From a `page` query value; nonsense and out-of-range values become the nearest page.
    init(_ raw: Int?, size: Int = Paging.defaultSize) {
        number = min(max(raw ?? 1, 1), Self.maxPage)
        self.size = size
    }

    var offset: Int { (number - 1) * size }

    /// The page holding item `position` (from 0).
    static func page(holding position: Int, size: Int = Paging.defaultSize) -> Int { position / size + 1 }

    func pageCount(total: Int) -> Int { max(1, (total + size - 1) / size) }
}

/// A link of the pager, with the page number it leads to.
enum PageStep: Sendable, Equatable {
    case first, previous(Int), next(Int), last(Int)

    var number: Int {
        switch self {
        case .first: 1
        case .previous(let n), .next(let n), .last(let n): n
        }
    }
}

extension Components {
    /// Links to the first, previous, next and last page by number, and where this page is.
    static func pager(_ paging: Paging, total: Int?, hasMore: Bool = false, t: Strings, url: @escaping (Int) -> String) -> any Component {
        pager(paging, total: total, hasMore: hasMore, t: t, step: { url($0.number) })
    }

    /// Links to the first, previous, next and last page, and where this page is. `total` nil: the
    /// count is not known, `hasMore` says whether a next page exists. `step` makes each link (a list
    /// paged by seeking puts its neighbouring titles in them).
    static func pager(_ paging: Paging, total: Int?, hasMore: Bool = false, t: Strings, step url: @escaping (PageStep) -> String) -> any Component {
        let pages = total.map { paging.pageCount(total: $0) }
        let next = pages.map { paging.number < $0 } ?? hasMore
        guard paging.number > 1 || next else { return EmptyComponent() }
        return H.el(.nav, [.class: "pager", .ariaLabel: t(.pagesLabel)]) {
            if paging.number > 1 {
                if paging.number > 2 { H.el(.a, [.href: url(.first), .class: "chip"]) { EscapedText("« " + t(.firstPage)) } }
                H.el(.a, [.href: url(.previous(paging.number - 1)), .rel: "prev", .class: "chip"]) { EscapedText("‹ " + t(.previousPage)) }
            }
            H.el(.span, [.class: "where"]) {
                if let total, let pages {
                    let first = min(paging.offset + 1, total), last = min(paging.offset + paging.size, total)
                    EscapedText(t.format(.showingRange, t.number(first), t.number(last), t.number(total)) + " · "
                         + t.format(.pageOf, t.number(paging.number), t.number(pages)))
                } else {
                    EscapedText(t.format(.pageN, t.number(paging.number)))
                }
            }
            if next {
                H.el(.a, [.href: url(.next(paging.number + 1)), .rel: "next", .class: "chip"]) { EscapedText(t(.nextPage) + " ›") }
                if let pages, pages > paging.number + 1 { H.el(.a, [.href: url(.last(pages)), .class: "chip"]) { EscapedText(t(.lastPage) + " »") } }
            }
        }
    }

    /// "Sort by" and one chip per order; the current one marked.
    static func sortChips<S: RawRepresentable & Equatable>(_ options: [(S, String)], current: S, t: Strings,
                                                          url: @escaping (S) -> String) -> any Component where S.RawValue == String {
        H.el(.nav, [.class: "chips sort", .ariaLabel: t(.sortBy)]) {
            H.el(.span, [.class: "label"]) { EscapedText(t(.sortBy)) }
            for (option, title) in options { chipLink(title, url(option), current: option == current) }
        }
    }
}
