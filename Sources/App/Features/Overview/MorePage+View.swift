import Foundation
import Plot
import ShelfmarkCore

extension MorePage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.more)) {
            H.el(.h1, [:]) { EscapedText(t(.more)) }
            H.el(.ul, [.class: "menu"]) {
                H.el(.li, [:]) { H.link(t(.navReading), WebRoute.reading(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.readingStats), WebRoute.readingStats(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.allQuotes), WebRoute.quotes(library: lib).path) }
                if role.may(.circulate) { H.el(.li, [:]) { H.link(t(.classReading), WebRoute.readingClass(library: lib).path) } }
                if role.may(.circulate) { H.el(.li, [:]) { H.link(t(.holdsTitle), WebRoute.holds(library: lib).path) } }
                if role.may(.circulate) { H.el(.li, [:]) { H.link(t(.offlineLendingTitle), WebRoute.offlineLending(library: lib).path) } }
                if role.may(.manageMembers) { H.el(.li, [:]) { H.link(t(.kioskTitle), WebRoute.kioskSetup(library: lib).path) } }
                if role.may(.circulate) { H.el(.li, [:]) { H.link(t(.copyLabels), WebRoute.labels(library: lib).path) } }
                if role.may(.circulate) { H.el(.li, [:]) { H.link(t(.memberCards), WebRoute.memberCards(library: lib).path) } }
                H.el(.li, [:]) { H.link(t(.dashboard), WebRoute.dashboard(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.wishlist), WebRoute.wishlist(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.seriesField), WebRoute.series(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.collectionsTitle), WebRoute.collections(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.shelvesTitle), WebRoute.shelves(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.printedCatalog), WebRoute.printedCatalog(library: lib).path) }
                H.el(.li, [:]) { H.link(t(.activity), WebRoute.activity(library: lib).path) }
                if role.may(.manageMembers) { H.el(.li, [:]) { H.link(t(.reportsTitle), WebRoute.reports(library: lib).path) } }
                if teachesClasses { H.el(.li, [:]) { H.link(t(.classTeacherReport), WebRoute.report(library: lib, kind: .readers).path) } }
                if role.may(.manageMembers) { H.el(.li, [:]) { H.link(t(.rosterTitle), WebRoute.roster(library: lib).path) } }
                if role.may(.manageMembers) { H.el(.li, [:]) { H.link(t(.rolloverTitle), WebRoute.rollover(library: lib).path) } }
                if role.may(.catalog) { H.el(.li, [:]) { H.link(t(.importExport), WebRoute.exchange(library: lib).path) } }
                if role.may(.catalog) { H.el(.li, [:]) { H.link(t(.manageCategories), WebRoute.categories(library: lib).path) } }
                if role.may(.catalog) { H.el(.li, [:]) { H.link(t(.backgroundWork), WebRoute.background(library: lib).path) } }
                if role.may(.administer) { H.el(.li, [:]) { H.link(t(.remindersTitle), WebRoute.reminders(library: lib).path) } }
                if role.may(.manageMembers) { H.el(.li, [:]) { H.link(t(.sentMessagesLink), WebRoute.mailLog(library: lib).path) } }
                if role.may(.administer) { H.el(.li, [:]) { H.link(t(.settings), WebRoute.settings(library: lib).path) } }
                if role.may(.administer) { H.el(.li, [:]) { H.link(t(.auditTitle), WebRoute.audit(library: lib).path) } }
                if isAdmin { H.el(.li, [:]) { H.link(t(.nightlyBackups), WebRoute.backups(library: lib).path) } }
                if isAdmin { H.el(.li, [:]) { H.link(t(.schoolSignInTitle), WebRoute.schoolSignInSettings(library: lib).path) } }
                if isAdmin { H.el(.li, [:]) { H.link(t(.bookSourcesTitle), WebRoute.bookSources(library: lib).path) } }
            }
            if page.libraries.count > 1 {
                H.el(.h2, [:]) { EscapedText(t(.switchLibrary)) }
                H.el(.ul, [.class: "menu"]) {
                    for other in page.libraries where other.id != lib {
                        H.el(.li, [:]) { H.link(other.name, WebRoute.catalog(library: other.id).path) }
                    }
                }
            }
            H.form(WebRoute.logout.path, csrf: page.csrf) { H.button(t(.signOut), kind: "quiet") }
        }
    }
}
