import Foundation
import Plot

extension LoansPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.loansTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.loansTitle)) }
            H.el(.nav, [.class: "chips"]) {
                Components.chipLink(t(.filterAll), WebRoute.loans(library: lib).path, current: !overdueOnly)
                Components.chipLink(t(.filterOverdue), WebRoute.loans(library: lib).path(query: [("show", "overdue")]), current: overdueOnly)
            }
            if !overdueGroups.isEmpty {
                OverdueGlanceView.render(overdueGroups, lib: lib, t: t, csrf: mayRemind ? page.csrf : nil, back: url(page: paging.number),
                                        withoutEmail: withoutEmail)
                H.el(.h2, [:]) { EscapedText(t(.loansTitle)) }
            }
            Components.loanList(loans, lib: lib, t: t, showMember: true,
                                actions: .init(back: url(page: paging.number), csrf: page.csrf, maxRenewals: maxRenewals))
            Components.pager(paging, total: total, t: t) { self.url(page: $0) }
            calendar.render(page)
        }
    }
}
