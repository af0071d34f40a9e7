import Foundation
import Vapor

/// Every web route, listed: its feature, how it is used (a page a person opens, a form's action),
/// and a sample value. The list is checked by the compiler: a new `WebRoute` case needs a `Name`
/// (the `name` switch is exhaustive), and a new `Name` needs its entry (so is `entry(_:_:)`'s).
/// The tests are generated from it — every route registered with its methods and its links filled,
/// every page walked in every language for English leaks, at 360 px and by axe-core — so a new
/// page is covered by all of them by adding its case here. `shelfmark pages` prints the list.
extension WebRoute {
    /// The feature folders of the web app (`Controllers/Web`, `Views/<Feature>`).
    enum Feature: String, Sendable, CaseIterable, Codable {
        case session, catalog, add, circulation, members, wishlist, reading, photos, overview, settings, exchange, printing, shelves, reports
        /// The public catalog and its members' pages.
        case publicCatalog = "public"
    }

    /// How a route is used.
    struct Use: OptionSet, Sendable, Hashable {
        let rawValue: Int
        /// A page: GET answers HTML in the reader's language (walked by every generated test).
        static let page = Use(rawValue: 1)
        /// A GET that sends the reader on (`/` to the catalog, `/setup` once set up).
        static let entry = Use(rawValue: 2)
        /// A form's action: POST.
        static let action = Use(rawValue: 4)

        var methods: [HTTPMethod] { (contains(.page) || contains(.entry) ? [.GET] : []) + (contains(.action) ? [.POST] : []) }
    }

    /// A value for each kind of path parameter, to fill every route in with.
    struct Samples: Sendable {
        var library, title, member, copy, category, job, loan, user, read, photo, quote: UUID
        var token: String
        var hold = UUID()
        var message = UUID()
        var collection = UUID()
        var shelf = UUID()
        var stocktake = UUID()
        var savedReport = UUID()
        var rosterRun = UUID()
        var rollover = UUID()

        /// Fresh random ids (for checks that only need the shape of a path).
        static func random() -> Samples {
            Samples(library: UUID(), title: UUID(), member: UUID(), copy: UUID(), category: UUID(), job: UUID(), loan: UUID(),
                    user: UUID(), read: UUID(), photo: UUID(), quote: UUID(), token: "sample-token")
        }
    }

    /// One route of the list.
    struct Entry: Sendable {
        let name: Name
        let route: WebRoute
        let feature: Feature
        let use: Use
    }

    /// Every route, in the order of `Name`, filled in with `samples`.
    static func all(_ samples: Samples) -> [Entry] {
        Name.allCases.map { entry($0, samples) }
    }

    /// The case's name (one per case of `WebRoute`).
    enum Name: String, Sendable, CaseIterable, Codable {
        case home, setup, login, schoolSignIn, schoolSignInReturn, logout, language, offline, sharedYear
        case catalog, title, editTitle, titleCopies, titleFavorite, titleNotes, titleDelete, catalogChange, catalogUndo, copyStatus, copyRemove
        case categories, categoryRename, categoryMerge, categoryDelete, categoryCallNumbers
        case add, addPhoto
        case checkout, checkoutConfirm, returnBook, offlineLending, loans, loanReturn, loanRenew, memberReturnAll, memberRenewAll
        case holds, titleHolds, holdUpdate, holdCancel, memberCalendar, staffCalendar, memberFinePay, memberFineWaive
        case reminders, mailServer, mailServerRemove, installationMailServer, mailTest, mailTemplate, mailLog, mailRetry, memberRemind
        case members, membersImport, member, editMember, deleteMember
        case wishlist, wishlistAcquire, wishlistDelete
        case reading, readingStats, readingClass, readingShare, readingGoal, titleProgress, titleReadStatus, titleMemberRead
        case readDelete, readRating
        case titlePhotos, photo, photoCorners, photoMarkup, photoDelete, photoQuote, quotes, quoteDelete
        case more, dashboard, activity, background
        case settings, staff, staffRole, staffRemove, staffPassword, staffEmail, createLibrary, server, backups, backupsRun, backupsDrill, schoolSignInSettings, bookSources
        case exchange, job, restore, erase
        case memberCards, labels, levelsImport, series, collections, collectionDelete
        case shelves, shelf, shelfBooks, shelfDelete, shelfStocktake, shelfSigns, stocktake, stocktakeScan, stocktakeMove, stocktakeFinish, unseen, printedCatalog
        case reports, report, savedReports, savedReport, savedReportDelete, savedReportSend
        case roster, rosterRun, rosterApply, memberArchive, audit, rollover, rolloverUndo, memberErase
        case publicCatalog, publicTitle, publicWishlist, publicHold, publicSignIn, publicEmailLink, publicSchoolSignIn, publicLink, publicAccount, publicRenew, publicHoldCancel
        case publicCalendar, publicSignOut
        case kioskSetup, kiosk, kioskMember, kioskEnd
    }

    var name: Name {
        switch self {
        case .home: .home
        case .setup: .setup
        case .login: .login
        case .schoolSignIn: .schoolSignIn
        case .schoolSignInReturn: .schoolSignInReturn
        case .logout: .logout
        case .language: .language
        case .offline: .offline
        case .sharedYear: .sharedYear
        case .catalog: .catalog
        case .title: .title
        case .editTitle: .editTitle
        case .titleCopies: .titleCopies
        case .titleFavorite: .titleFavorite
        case .titleNotes: .titleNotes
        case .titleDelete: .titleDelete
        case .catalogChange: .catalogChange
        case .catalogUndo: .catalogUndo
        case .copyStatus: .copyStatus
        case .copyRemove: .copyRemove
        case .categories: .categories
        case .categoryRename: .categoryRename
        case .categoryMerge: .categoryMerge
        case .categoryDelete: .categoryDelete
        case .categoryCallNumbers: .categoryCallNumbers
        case .add: .add
        case .addPhoto: .addPhoto
        case .checkout: .checkout
        case .checkoutConfirm: .checkoutConfirm
        case .returnBook: .returnBook
        case .offlineLending: .offlineLending
        case .loans: .loans
        case .loanReturn: .loanReturn
        case .loanRenew: .loanRenew
        case .memberReturnAll: .memberReturnAll
        case .memberRenewAll: .memberRenewAll
        case .holds: .holds
        case .titleHolds: .titleHolds
        case .holdUpdate: .holdUpdate
        case .holdCancel: .holdCancel
        case .memberCalendar: .memberCalendar
        case .staffCalendar: .staffCalendar
        case .memberFinePay: .memberFinePay
        case .memberFineWaive: .memberFineWaive
        case .reminders: .reminders
        case .mailServer: .mailServer
        case .mailServerRemove: .mailServerRemove
        case .installationMailServer: .installationMailServer
        case .mailTest: .mailTest
        case .mailTemplate: .mailTemplate
        case .mailLog: .mailLog
        case .mailRetry: .mailRetry
        case .memberRemind: .memberRemind
        case .members: .members
        case .membersImport: .membersImport
        case .member: .member
        case .editMember: .editMember
        case .deleteMember: .deleteMember
        case .wishlist: .wishlist
        case .wishlistAcquire: .wishlistAcquire
        case .wishlistDelete: .wishlistDelete
        case .reading: .reading
        case .readingStats: .readingStats
        case .readingClass: .readingClass
        case .readingShare: .readingShare
        case .readingGoal: .readingGoal
        case .titleProgress: .titleProgress
        case .titleReadStatus: .titleReadStatus
        case .titleMemberRead: .titleMemberRead
        case .readDelete: .readDelete
        case .readRating: .readRating
        case .titlePhotos: .titlePhotos
        case .photo: .photo
        case .photoCorners: .photoCorners
        case .photoMarkup: .photoMarkup
        case .photoDelete: .photoDelete
        case .photoQuote: .photoQuote
        case .quotes: .quotes
        case .quoteDelete: .quoteDelete
        case .publicCatalog: .publicCatalog
        case .publicTitle: .publicTitle
        case .publicWishlist: .publicWishlist
        case .publicHold: .publicHold
        case .publicSignIn: .publicSignIn
        case .publicEmailLink: .publicEmailLink
        case .publicSchoolSignIn: .publicSchoolSignIn
        case .publicLink: .publicLink
        case .publicAccount: .publicAccount
        case .publicRenew: .publicRenew
        case .publicHoldCancel: .publicHoldCancel
        case .publicCalendar: .publicCalendar
        case .publicSignOut: .publicSignOut
        case .kioskSetup: .kioskSetup
        case .kiosk: .kiosk
        case .kioskMember: .kioskMember
        case .kioskEnd: .kioskEnd
        case .more: .more
        case .dashboard: .dashboard
        case .activity: .activity
        case .background: .background
        case .settings: .settings
        case .staff: .staff
        case .staffRole: .staffRole
        case .staffRemove: .staffRemove
        case .staffPassword: .staffPassword
        case .staffEmail: .staffEmail
        case .createLibrary: .createLibrary
        case .server: .server
        case .backups: .backups
        case .backupsRun: .backupsRun
        case .backupsDrill: .backupsDrill
        case .schoolSignInSettings: .schoolSignInSettings
        case .bookSources: .bookSources
        case .exchange: .exchange
        case .job: .job
        case .restore: .restore
        case .erase: .erase
        case .memberCards: .memberCards
        case .labels: .labels
        case .collections: .collections
        case .collectionDelete: .collectionDelete
        case .series: .series
        case .levelsImport: .levelsImport
        case .shelves: .shelves
        case .shelf: .shelf
        case .shelfBooks: .shelfBooks
        case .shelfDelete: .shelfDelete
        case .shelfStocktake: .shelfStocktake
        case .shelfSigns: .shelfSigns
        case .stocktake: .stocktake
        case .stocktakeScan: .stocktakeScan
        case .stocktakeMove: .stocktakeMove
        case .stocktakeFinish: .stocktakeFinish
        case .unseen: .unseen
        case .printedCatalog: .printedCatalog
        case .reports: .reports
        case .report: .report
        case .savedReports: .savedReports
        case .savedReport: .savedReport
        case .savedReportDelete: .savedReportDelete
        case .savedReportSend: .savedReportSend
        case .roster: .roster
        case .rosterRun: .rosterRun
        case .rosterApply: .rosterApply
        case .memberArchive: .memberArchive
        case .audit: .audit
        case .rollover: .rollover
        case .rolloverUndo: .rolloverUndo
        case .memberErase: .memberErase
        }
    }

    /// The one table: each name's route (filled with `s`), feature and use.
    static func entry(_ name: Name, _ s: Samples) -> Entry {
        let (l, page, action, both): (UUID, Use, Use, Use) = (s.library, .page, .action, [.page, .action])
        func e(_ route: WebRoute, _ feature: Feature, _ use: Use) -> Entry { Entry(name: name, route: route, feature: feature, use: use) }
        switch name {
        case .home: return e(.home, .session, .entry)
        case .setup: return e(.setup, .session, [.entry, .action])
        case .login: return e(.login, .session, both)
        case .schoolSignIn: return e(.schoolSignIn, .session, .entry)
        case .schoolSignInReturn: return e(.schoolSignInReturn, .session, .entry)
        case .logout: return e(.logout, .session, action)
        case .language: return e(.language, .session, action)
        case .offline: return e(.offline, .session, page)
        case .sharedYear: return e(.sharedYear(token: s.token), .reading, page)
        case .catalog: return e(.catalog(library: l), .catalog, page)
        case .title: return e(.title(library: l, title: s.title), .catalog, page)
        case .editTitle: return e(.editTitle(library: l, title: s.title), .catalog, both)
        case .titleCopies: return e(.titleCopies(library: l, title: s.title), .catalog, action)
        case .titleFavorite: return e(.titleFavorite(library: l, title: s.title), .catalog, action)
        case .titleNotes: return e(.titleNotes(library: l, title: s.title), .catalog, action)
        case .titleDelete: return e(.titleDelete(library: l, title: s.title), .catalog, action)
        case .catalogChange: return e(.catalogChange(library: l), .catalog, action)
        case .catalogUndo: return e(.catalogUndo(library: l), .catalog, action)
        case .copyStatus: return e(.copyStatus(library: l, copy: s.copy), .catalog, action)
        case .copyRemove: return e(.copyRemove(library: l, copy: s.copy), .catalog, action)
        case .categories: return e(.categories(library: l), .catalog, both)
        case .categoryRename: return e(.categoryRename(library: l, category: s.category), .catalog, action)
        case .categoryMerge: return e(.categoryMerge(library: l, category: s.category), .catalog, action)
        case .categoryDelete: return e(.categoryDelete(library: l, category: s.category), .catalog, action)
        case .categoryCallNumbers: return e(.categoryCallNumbers(library: l, category: s.category), .catalog, action)
        case .add: return e(.add(library: l), .add, both)
        case .addPhoto: return e(.addPhoto(library: l), .add, action)
        case .checkout: return e(.checkout(library: l), .circulation, both)
        case .checkoutConfirm: return e(.checkoutConfirm(library: l), .circulation, action)
        case .returnBook: return e(.returnBook(library: l), .circulation, both)
        case .offlineLending: return e(.offlineLending(library: l), .circulation, page)
        case .loans: return e(.loans(library: l), .circulation, page)
        case .loanReturn: return e(.loanReturn(library: l, loan: s.loan), .circulation, action)
        case .loanRenew: return e(.loanRenew(library: l, loan: s.loan), .circulation, action)
        case .memberReturnAll: return e(.memberReturnAll(library: l, member: s.member), .circulation, action)
        case .memberRenewAll: return e(.memberRenewAll(library: l, member: s.member), .circulation, action)
        case .holds: return e(.holds(library: l), .circulation, page)
        case .titleHolds: return e(.titleHolds(library: l, title: s.title), .circulation, action)
        case .holdUpdate: return e(.holdUpdate(library: l, hold: s.hold), .circulation, action)
        case .holdCancel: return e(.holdCancel(library: l, hold: s.hold), .circulation, action)
        case .memberCalendar: return e(.memberCalendar(library: l, member: s.member), .circulation, action)
        case .staffCalendar: return e(.staffCalendar(library: l), .circulation, action)
        case .memberFinePay: return e(.memberFinePay(library: l, member: s.member), .circulation, action)
        case .memberFineWaive: return e(.memberFineWaive(library: l, member: s.member), .circulation, action)
        case .reminders: return e(.reminders(library: l), .settings, both)
        case .mailServer: return e(.mailServer(library: l), .settings, action)
        case .mailServerRemove: return e(.mailServerRemove(library: l), .settings, action)
        case .installationMailServer: return e(.installationMailServer(library: l), .settings, action)
        case .mailTest: return e(.mailTest(library: l), .settings, action)
        case .mailTemplate: return e(.mailTemplate(library: l), .settings, both)
        case .mailLog: return e(.mailLog(library: l), .circulation, page)
        case .mailRetry: return e(.mailRetry(library: l, message: s.message), .circulation, action)
        case .memberRemind: return e(.memberRemind(library: l, member: s.member), .circulation, action)
        case .members: return e(.members(library: l), .members, both)
        case .membersImport: return e(.membersImport(library: l), .members, action)
        case .member: return e(.member(library: l, member: s.member), .members, page)
        case .editMember: return e(.editMember(library: l, member: s.member), .members, both)
        case .deleteMember: return e(.deleteMember(library: l, member: s.member), .members, action)
        case .wishlist: return e(.wishlist(library: l), .wishlist, both)
        case .wishlistAcquire: return e(.wishlistAcquire(library: l, title: s.title), .wishlist, action)
        case .wishlistDelete: return e(.wishlistDelete(library: l, title: s.title), .wishlist, action)
        case .reading: return e(.reading(library: l), .reading, page)
        case .readingStats: return e(.readingStats(library: l), .reading, page)
        case .readingClass: return e(.readingClass(library: l), .reading, page)
        case .readingShare: return e(.readingShare(library: l), .reading, action)
        case .readingGoal: return e(.readingGoal(library: l), .reading, action)
        case .titleProgress: return e(.titleProgress(library: l, title: s.title), .reading, action)
        case .titleReadStatus: return e(.titleReadStatus(library: l, title: s.title), .reading, action)
        case .titleMemberRead: return e(.titleMemberRead(library: l, title: s.title), .reading, action)
        case .readDelete: return e(.readDelete(library: l, read: s.read), .reading, action)
        case .readRating: return e(.readRating(library: l, read: s.read), .reading, action)
        case .titlePhotos: return e(.titlePhotos(library: l, title: s.title), .photos, action)
        case .photo: return e(.photo(library: l, photo: s.photo), .photos, page)
        case .photoCorners: return e(.photoCorners(library: l, photo: s.photo), .photos, action)
        case .photoMarkup: return e(.photoMarkup(library: l, photo: s.photo), .photos, action)
        case .photoDelete: return e(.photoDelete(library: l, photo: s.photo), .photos, action)
        case .photoQuote: return e(.photoQuote(library: l, photo: s.photo), .photos, action)
        case .quotes: return e(.quotes(library: l), .photos, both)
        case .quoteDelete: return e(.quoteDelete(library: l, quote: s.quote), .photos, action)
        case .more: return e(.more(library: l), .overview, page)
        case .dashboard: return e(.dashboard(library: l), .overview, page)
        case .activity: return e(.activity(library: l), .overview, page)
        case .background: return e(.background(library: l), .overview, page)
        case .settings: return e(.settings(library: l), .settings, both)
        case .staff: return e(.staff(library: l), .settings, action)
        case .staffRole: return e(.staffRole(library: l, user: s.user), .settings, action)
        case .staffRemove: return e(.staffRemove(library: l, user: s.user), .settings, action)
        case .staffPassword: return e(.staffPassword(library: l, user: s.user), .settings, action)
        case .staffEmail: return e(.staffEmail(library: l, user: s.user), .settings, action)
        case .createLibrary: return e(.createLibrary(library: l), .settings, action)
        case .server: return e(.server(library: l), .settings, action)
        case .backups: return e(.backups(library: l), .settings, both)
        case .backupsRun: return e(.backupsRun(library: l), .settings, action)
        case .backupsDrill: return e(.backupsDrill(library: l), .settings, action)
        case .schoolSignInSettings: return e(.schoolSignInSettings(library: l), .settings, both)
        case .bookSources: return e(.bookSources(library: l), .settings, both)
        case .exchange: return e(.exchange(library: l), .exchange, both)
        case .job: return e(.job(library: l, job: s.job), .exchange, page)
        case .restore: return e(.restore(library: l), .exchange, action)
        case .erase: return e(.erase(library: l), .exchange, action)
        case .memberCards: return e(.memberCards(library: l), .printing, page)
        case .labels: return e(.labels(library: l), .printing, page)
        case .collections: return e(.collections(library: l), .catalog, both)
        case .collectionDelete: return e(.collectionDelete(library: l, collection: s.collection), .catalog, action)
        case .series: return e(.series(library: l), .catalog, page)
        case .levelsImport: return e(.levelsImport(library: l), .exchange, action)
        case .shelves: return e(.shelves(library: l), .shelves, both)
        case .shelf: return e(.shelf(library: l, shelf: s.shelf), .shelves, both)
        case .shelfBooks: return e(.shelfBooks(library: l, shelf: s.shelf), .shelves, action)
        case .shelfDelete: return e(.shelfDelete(library: l, shelf: s.shelf), .shelves, action)
        case .shelfStocktake: return e(.shelfStocktake(library: l, shelf: s.shelf), .shelves, action)
        case .shelfSigns: return e(.shelfSigns(library: l), .printing, page)
        case .stocktake: return e(.stocktake(library: l, stocktake: s.stocktake), .shelves, page)
        case .stocktakeScan: return e(.stocktakeScan(library: l, stocktake: s.stocktake), .shelves, action)
        case .stocktakeMove: return e(.stocktakeMove(library: l, stocktake: s.stocktake), .shelves, action)
        case .stocktakeFinish: return e(.stocktakeFinish(library: l, stocktake: s.stocktake), .shelves, action)
        case .unseen: return e(.unseen(library: l), .shelves, page)
        case .printedCatalog: return e(.printedCatalog(library: l), .printing, page)
        case .reports: return e(.reports(library: l), .reports, page)
        case .report: return e(.report(library: l, kind: .circulation), .reports, page)
        case .savedReports: return e(.savedReports(library: l), .reports, action)
        case .savedReport: return e(.savedReport(library: l, saved: s.savedReport), .reports, action)
        case .savedReportDelete: return e(.savedReportDelete(library: l, saved: s.savedReport), .reports, action)
        case .savedReportSend: return e(.savedReportSend(library: l, saved: s.savedReport), .reports, action)
        case .roster: return e(.roster(library: l), .members, both)
        case .rosterRun: return e(.rosterRun(library: l, run: s.rosterRun), .members, page)
        case .rosterApply: return e(.rosterApply(library: l, run: s.rosterRun), .members, action)
        case .memberArchive: return e(.memberArchive(library: l, member: s.member), .members, action)
        case .audit: return e(.audit(library: l), .settings, page)
        case .rollover: return e(.rollover(library: l), .members, both)
        case .rolloverUndo: return e(.rolloverUndo(library: l, rollover: s.rollover), .members, action)
        case .memberErase: return e(.memberErase(library: l, member: s.member), .members, action)
        case .publicCatalog: return e(.publicCatalog(library: l), .publicCatalog, page)
        case .publicTitle: return e(.publicTitle(library: l, title: s.title), .publicCatalog, page)
        case .publicWishlist: return e(.publicWishlist(library: l), .publicCatalog, page)
        case .publicHold: return e(.publicHold(library: l, title: s.title), .publicCatalog, action)
        case .publicSignIn: return e(.publicSignIn(library: l), .publicCatalog, both)
        case .publicEmailLink: return e(.publicEmailLink(library: l), .publicCatalog, action)
        case .publicSchoolSignIn: return e(.publicSchoolSignIn(library: l), .publicCatalog, .entry)
        case .publicLink: return e(.publicLink(library: l, token: s.token), .publicCatalog, both)
        case .publicAccount: return e(.publicAccount(library: l), .publicCatalog, page)
        case .publicRenew: return e(.publicRenew(library: l, loan: s.loan), .publicCatalog, action)
        case .publicHoldCancel: return e(.publicHoldCancel(library: l, hold: s.hold), .publicCatalog, action)
        case .publicCalendar: return e(.publicCalendar(library: l), .publicCatalog, action)
        case .publicSignOut: return e(.publicSignOut(library: l), .publicCatalog, action)
        case .kioskSetup: return e(.kioskSetup(library: l), .circulation, both)
        case .kiosk: return e(.kiosk(library: l), .circulation, both)
        case .kioskMember: return e(.kioskMember(library: l), .circulation, both)
        case .kioskEnd: return e(.kioskEnd(library: l), .circulation, both)
        }
    }

    /// The path with each parameter written `{name}` (`/libraries/{libraryID}/titles/{titleID}`): what
    /// `shelfmark pages` prints for walkers outside Swift, which fill the names in.
    var template: String {
        "/" + segments.map { segment in
            switch segment {
            case .fixed(let text): text
            case .parameter(let name, _): "{\(name)}"
            }
        }.joined(separator: "/")
    }
}

/// `shelfmark pages`: every web route as JSON lines (name, feature, methods, path template, whether it
/// is a page), for walkers outside Swift (the browser walks of `make test`). Needs no database.
public enum PagesListing {
    struct Line: Encodable {
        let name: String
        let feature: String
        let methods: [String]
        let path: String
        let page: Bool
    }

    public static func lines() -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return WebRoute.all(.random()).map { entry in
            let line = Line(name: entry.name.rawValue, feature: entry.feature.rawValue, methods: entry.use.methods.map(\.rawValue),
                            path: entry.route.template, page: entry.use.contains(.page))
            return String(decoding: try! encoder.encode(line), as: UTF8.self)
        }
    }
}
