import Foundation
import Vapor

/// The web app's pages and form actions, typed: the same value registers a route (`pattern`) and
/// builds its links (`path`), so a link cannot drift from its route. New pages add a case here.
enum WebRoute: Sendable, Equatable {
    case home
    case setup
    case login
    /// Sign-in with the school's account: to the provider (GET), and back from it.
    case schoolSignIn
    case schoolSignInReturn
    case logout
    case language
    case offline
    case catalog(library: UUID)
    case title(library: UUID, title: UUID)
    case editTitle(library: UUID, title: UUID)
    case members(library: UUID)
    case membersImport(library: UUID)
    case memberCards(library: UUID)
    case categories(library: UUID)
    case copyStatus(library: UUID, copy: UUID)
    case copyRemove(library: UUID, copy: UUID)
    case categoryRename(library: UUID, category: UUID)
    case categoryMerge(library: UUID, category: UUID)
    case categoryDelete(library: UUID, category: UUID)
    case categoryCallNumbers(library: UUID, category: UUID)
    /// Label sheets for copies: choose, preview, download the PDF.
    case labels(library: UUID)
    /// Smart collections: the list (GET), save one from the catalog (POST), delete one.
    case collections(library: UUID)
    case collectionDelete(library: UUID, collection: UUID)
    /// A series' volumes in order and the missing numbers (`?name=`), or every series.
    case series(library: UUID)
    /// Shelves and stocktakes: the shelves (GET) and add one (POST); a shelf's page
    /// (GET) and its edit (POST); put books on it by scanning; delete it; start its stocktake; the
    /// shelf signs to print; a stocktake's page, its scans, moves and end; copies not seen for a year.
    case shelves(library: UUID)
    case shelf(library: UUID, shelf: UUID)
    case shelfBooks(library: UUID, shelf: UUID)
    case shelfDelete(library: UUID, shelf: UUID)
    case shelfStocktake(library: UUID, shelf: UUID)
    case shelfSigns(library: UUID)
    case stocktake(library: UUID, stocktake: UUID)
    case stocktakeScan(library: UUID, stocktake: UUID)
    case stocktakeMove(library: UUID, stocktake: UUID)
    case stocktakeFinish(library: UUID, stocktake: UUID)
    case unseen(library: UUID)
    /// The printed catalog: its options, page count, first pages and PDF.
    case printedCatalog(library: UUID)
    /// Reports: the list of them, and one with its period and filters (its CSV and PDF are API links).
    case reports(library: UUID)
    case report(library: UUID, kind: ReportKind)
    /// Saved reports: save one (POST), change its name or when it is mailed, delete it, mail it now.
    case savedReports(library: UUID)
    case savedReport(library: UUID, saved: UUID)
    case savedReportDelete(library: UUID, saved: UUID)
    case savedReportSend(library: UUID, saved: UUID)
    case roster(library: UUID)
    case rosterRun(library: UUID, run: UUID)
    case rosterApply(library: UUID, run: UUID)
    case memberArchive(library: UUID, member: UUID)
    case audit(library: UUID)
    case rollover(library: UUID)
    case rolloverUndo(library: UUID, rollover: UUID)
    case memberErase(library: UUID, member: UUID)
    /// Reading levels from a spreadsheet: the Import & Export page's form.
    case levelsImport(library: UUID)
    case member(library: UUID, member: UUID)
    case editMember(library: UUID, member: UUID)
    case deleteMember(library: UUID, member: UUID)
    case exchange(library: UUID)
    case job(library: UUID, job: UUID)
    case restore(library: UUID)
    case erase(library: UUID)
    case more(library: UUID)
    case add(library: UUID)
    case addPhoto(library: UUID)
    case titleCopies(library: UUID, title: UUID)
    case titleFavorite(library: UUID, title: UUID)
    case titleNotes(library: UUID, title: UUID)
    case titleDelete(library: UUID, title: UUID)
    /// Many books at once: the change chosen in the catalog's select mode, asked (POST) and made
    /// (POST with `confirm`); the undo of the library's last one.
    case catalogChange(library: UUID)
    case catalogUndo(library: UUID)
    case checkout(library: UUID)
    case checkoutConfirm(library: UUID)
    case returnBook(library: UUID)
    /// Lending and returning without a network: the library kept on this phone, changes sent later.
    case offlineLending(library: UUID)
    case loans(library: UUID)
    case loanReturn(library: UUID, loan: UUID)
    case loanRenew(library: UUID, loan: UUID)
    case memberReturnAll(library: UUID, member: UUID)
    /// Renew every loan of a member.
    case memberRenewAll(library: UUID, member: UUID)
    /// The hold shelf: holds ready to collect, then waiting.
    case holds(library: UUID)
    /// Place a hold on a title for a member (the title page's form).
    case titleHolds(library: UUID, title: UUID)
    /// Suspend, resume or move a hold; cancel it.
    case holdUpdate(library: UUID, hold: UUID)
    case holdCancel(library: UUID, hold: UUID)
    /// Make or stop a member's calendar link; the staff's.
    case memberCalendar(library: UUID, member: UUID)
    case staffCalendar(library: UUID)
    /// Reminders: the settings, the mail server, a test, the texts, the delivery log.
    case reminders(library: UUID)
    case mailServer(library: UUID)
    case mailServerRemove(library: UUID)
    /// The installation's mail server (the administrator), from a library's reminders page.
    case installationMailServer(library: UUID)
    case mailTest(library: UUID)
    case mailTemplate(library: UUID)
    case mailLog(library: UUID)
    case mailRetry(library: UUID, message: UUID)
    case memberRemind(library: UUID, member: UUID)
    /// Take a payment of a member's fines; waive them with a reason.
    case memberFinePay(library: UUID, member: UUID)
    case memberFineWaive(library: UUID, member: UUID)
    case dashboard(library: UUID)
    case activity(library: UUID)
    case background(library: UUID)
    case settings(library: UUID)
    case staff(library: UUID)
    case staffRole(library: UUID, user: UUID)
    case staffRemove(library: UUID, user: UUID)
    case staffPassword(library: UUID, user: UUID)
    /// A staff account's school e-mail (what a sign-in with the school's account is matched to).
    case staffEmail(library: UUID, user: UUID)
    case createLibrary(library: UUID)
    case server(library: UUID)
    /// The installation's nightly backups (the administrator): settings and status (GET), a change (POST); a backup now.
    case backups(library: UUID)
    case backupsRun(library: UUID)
    case backupsDrill(library: UUID)
    /// The installation's sign-in with the school's accounts (the administrator): settings (GET), a change (POST).
    case schoolSignInSettings(library: UUID)
    /// The catalogues a lookup asks and their order (the administrator): settings (GET), a change (POST).
    case bookSources(library: UUID)
    case wishlist(library: UUID)
    case wishlistAcquire(library: UUID, title: UUID)
    case wishlistDelete(library: UUID, title: UUID)
    case reading(library: UUID)
    case readingStats(library: UUID)
    case readingClass(library: UUID)
    case readingShare(library: UUID)
    case sharedYear(token: String)
    case readingGoal(library: UUID)
    case titleProgress(library: UUID, title: UUID)
    case titleReadStatus(library: UUID, title: UUID)
    case titleMemberRead(library: UUID, title: UUID)
    case readDelete(library: UUID, read: UUID)
    case readRating(library: UUID, read: UUID)
    case titlePhotos(library: UUID, title: UUID)
    case photo(library: UUID, photo: UUID)
    case photoCorners(library: UUID, photo: UUID)
    case photoMarkup(library: UUID, photo: UUID)
    case photoDelete(library: UUID, photo: UUID)
    case photoQuote(library: UUID, photo: UUID)
    case quotes(library: UUID)
    case quoteDelete(library: UUID, quote: UUID)
    /// The library's public catalog, for anyone when the library published it: search and
    /// A–Z, a book's page; a member's sign-in (card and PIN, or an emailed one-time link), their account
    /// (loans with Renew, holds with their place in the queue and Cancel, the calendar link), a hold placed
    /// from a book's page, signing out.
    case publicCatalog(library: UUID)
    case publicTitle(library: UUID, title: UUID)
    /// The library's wishlist, public with its catalog.
    case publicWishlist(library: UUID)
    case publicHold(library: UUID, title: UUID)
    case publicSignIn(library: UUID)
    case publicEmailLink(library: UUID)
    /// A member of the public catalog to the school's sign-in provider.
    case publicSchoolSignIn(library: UUID)
    case publicLink(library: UUID, token: String)
    case publicAccount(library: UUID)
    case publicRenew(library: UUID, loan: UUID)
    case publicHoldCancel(library: UUID, hold: UUID)
    case publicCalendar(library: UUID)
    case publicSignOut(library: UUID)
    /// The self-service kiosk: a librarian starts it on a tablet (`kioskSetup`); the start
    /// screen takes a member's card, the member's screen their books; a librarian's password ends it.
    case kioskSetup(library: UUID)
    case kiosk(library: UUID)
    case kioskMember(library: UUID)
    case kioskEnd(library: UUID)

    /// One piece of a path: fixed text, or a parameter (its name when registering, its value in a link).
    enum Segment: Sendable, Equatable {
        case fixed(String)
        case parameter(name: String, value: String)
    }

    var segments: [Segment] {
        switch self {
        case .home: []
        case .setup: [.fixed("setup")]
        case .login: [.fixed("login")]
        case .schoolSignIn: [.fixed("login"), .fixed("school")]
        case .schoolSignInReturn: [.fixed("login"), .fixed("school"), .fixed("return")]
        case .logout: [.fixed("logout")]
        case .language: [.fixed("language")]
        case .offline: [.fixed("offline")]
        case .catalog(let library): Self.library(library) + [.fixed("catalog")]
        case .title(let library, let title): Self.library(library) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString)]
        case .editTitle(let library, let title): Self.title(library: library, title: title).segments + [.fixed("edit")]
        case .members(let library): Self.library(library) + [.fixed("members")]
        case .membersImport(let library): Self.library(library) + [.fixed("members"), .fixed("import")]
        case .memberCards(let library): Self.library(library) + [.fixed("members"), .fixed("cards")]
        case .categories(let library): Self.library(library) + [.fixed("categories")]
        case .copyStatus(let library, let copy): Self.library(library) + [.fixed("copies"), .parameter(name: "copyID", value: copy.uuidString), .fixed("status")]
        case .copyRemove(let library, let copy): Self.library(library) + [.fixed("copies"), .parameter(name: "copyID", value: copy.uuidString), .fixed("remove")]
        case .categoryRename(let library, let category): Self.library(library) + [.fixed("categories"), .parameter(name: "categoryID", value: category.uuidString), .fixed("rename")]
        case .categoryMerge(let library, let category): Self.library(library) + [.fixed("categories"), .parameter(name: "categoryID", value: category.uuidString), .fixed("merge")]
        case .categoryDelete(let library, let category): Self.library(library) + [.fixed("categories"), .parameter(name: "categoryID", value: category.uuidString), .fixed("delete")]
        case .categoryCallNumbers(let library, let category):
            Self.library(library) + [.fixed("categories"), .parameter(name: "categoryID", value: category.uuidString), .fixed("call-numbers")]
        case .labels(let library): Self.library(library) + [.fixed("labels")]
        case .collections(let library): Self.library(library) + [.fixed("collections")]
        case .collectionDelete(let library, let collection):
            Self.library(library) + [.fixed("collections"), .parameter(name: "collectionID", value: collection.uuidString), .fixed("delete")]
        case .series(let library): Self.library(library) + [.fixed("series")]
        case .shelves(let library): Self.library(library) + [.fixed("shelves")]
        case .shelf(let library, let shelf): Self.library(library) + [.fixed("shelves"), .parameter(name: "shelfID", value: shelf.uuidString)]
        case .shelfBooks(let library, let shelf): Self.shelf(library: library, shelf: shelf).segments + [.fixed("books")]
        case .shelfDelete(let library, let shelf): Self.shelf(library: library, shelf: shelf).segments + [.fixed("delete")]
        case .shelfStocktake(let library, let shelf): Self.shelf(library: library, shelf: shelf).segments + [.fixed("stocktake")]
        case .shelfSigns(let library): Self.library(library) + [.fixed("shelf-signs")]
        case .stocktake(let library, let stocktake): Self.library(library) + [.fixed("stocktakes"), .parameter(name: "stocktakeID", value: stocktake.uuidString)]
        case .stocktakeScan(let library, let stocktake): Self.stocktake(library: library, stocktake: stocktake).segments + [.fixed("scan")]
        case .stocktakeMove(let library, let stocktake): Self.stocktake(library: library, stocktake: stocktake).segments + [.fixed("move")]
        case .stocktakeFinish(let library, let stocktake): Self.stocktake(library: library, stocktake: stocktake).segments + [.fixed("finish")]
        case .unseen(let library): Self.library(library) + [.fixed("stocktakes"), .fixed("unseen")]
        case .printedCatalog(let library): Self.library(library) + [.fixed("print-catalog")]
        case .reports(let library): Self.library(library) + [.fixed("reports")]
        case .report(let library, let kind): Self.library(library) + [.fixed("reports"), .parameter(name: "kind", value: kind.rawValue)]
        case .savedReports(let library): Self.library(library) + [.fixed("reports"), .fixed("saved")]
        case .savedReport(let library, let saved):
            Self.library(library) + [.fixed("reports"), .fixed("saved"), .parameter(name: "savedID", value: saved.uuidString)]
        case .savedReportDelete(let library, let saved): Self.savedReport(library: library, saved: saved).segments + [.fixed("delete")]
        case .savedReportSend(let library, let saved): Self.savedReport(library: library, saved: saved).segments + [.fixed("send")]
        case .roster(let library): Self.library(library) + [.fixed("roster")]
        case .rosterRun(let library, let run): Self.library(library) + [.fixed("roster"), .parameter(name: "runID", value: run.uuidString)]
        case .rosterApply(let library, let run): Self.rosterRun(library: library, run: run).segments + [.fixed("apply")]
        case .memberArchive(let library, let member): Self.member(library: library, member: member).segments + [.fixed("archive")]
        case .audit(let library): Self.library(library) + [.fixed("audit")]
        case .memberErase(let library, let member): Self.member(library: library, member: member).segments + [.fixed("erase")]
        case .rollover(let library): Self.library(library) + [.fixed("rollover")]
        case .rolloverUndo(let library, let rollover):
            Self.library(library) + [.fixed("rollover"), .parameter(name: "rolloverID", value: rollover.uuidString), .fixed("undo")]
        case .levelsImport(let library): Self.library(library) + [.fixed("exchange"), .fixed("levels")]
        case .member(let library, let member): Self.library(library) + [.fixed("members"), .parameter(name: "memberID", value: member.uuidString)]
        case .editMember(let library, let member): Self.member(library: library, member: member).segments + [.fixed("edit")]
        case .deleteMember(let library, let member): Self.member(library: library, member: member).segments + [.fixed("delete")]
        case .exchange(let library): Self.library(library) + [.fixed("exchange")]
        case .job(let library, let job): Self.library(library) + [.fixed("exchange"), .fixed("jobs"), .parameter(name: "jobID", value: job.uuidString)]
        case .restore(let library): Self.library(library) + [.fixed("exchange"), .fixed("restore")]
        case .erase(let library): Self.library(library) + [.fixed("exchange"), .fixed("erase")]
        case .more(let library): Self.library(library) + [.fixed("more")]
        case .add(let library): Self.library(library) + [.fixed("add")]
        case .addPhoto(let library): Self.library(library) + [.fixed("add"), .fixed("photo")]
        case .titleCopies(let library, let title): Self.library(library) + Self.title(library: library, title: title).segments.dropFirst(2) + [.fixed("copies")]
        case .titleFavorite(let library, let title): Self.library(library) + Self.title(library: library, title: title).segments.dropFirst(2) + [.fixed("favorite")]
        case .titleNotes(let library, let title): Self.library(library) + Self.title(library: library, title: title).segments.dropFirst(2) + [.fixed("notes")]
        case .titleDelete(let library, let title): Self.library(library) + Self.title(library: library, title: title).segments.dropFirst(2) + [.fixed("delete")]
        case .checkout(let library): Self.library(library) + [.fixed("checkout")]
        case .checkoutConfirm(let library): Self.library(library) + [.fixed("checkout"), .fixed("confirm")]
        case .catalogChange(let library): Self.library(library) + [.fixed("catalog"), .fixed("change")]
        case .catalogUndo(let library): Self.library(library) + [.fixed("catalog"), .fixed("undo")]
        case .returnBook(let library): Self.library(library) + [.fixed("return")]
        case .offlineLending(let library): Self.library(library) + [.fixed("offline-lending")]
        case .loans(let library): Self.library(library) + [.fixed("loans")]
        case .loanReturn(let library, let loan): Self.library(library) + [.fixed("loans"), .parameter(name: "loanID", value: loan.uuidString), .fixed("return")]
        case .loanRenew(let library, let loan): Self.library(library) + [.fixed("loans"), .parameter(name: "loanID", value: loan.uuidString), .fixed("renew")]
        case .memberReturnAll(let library, let member): Self.member(library: library, member: member).segments + [.fixed("return-all")]
        case .memberRenewAll(let library, let member): Self.member(library: library, member: member).segments + [.fixed("renew-all")]
        case .holds(let library): Self.library(library) + [.fixed("holds")]
        case .titleHolds(let library, let title): Self.title(library: library, title: title).segments + [.fixed("holds")]
        case .holdUpdate(let library, let hold): Self.library(library) + [.fixed("holds"), .parameter(name: "holdID", value: hold.uuidString)]
        case .memberCalendar(let library, let member): Self.member(library: library, member: member).segments + [.fixed("calendar")]
        case .staffCalendar(let library): Self.library(library) + [.fixed("loans"), .fixed("calendar")]
        case .reminders(let library): Self.library(library) + [.fixed("reminders")]
        case .mailServer(let library): Self.library(library) + [.fixed("reminders"), .fixed("server")]
        case .mailServerRemove(let library): Self.library(library) + [.fixed("reminders"), .fixed("server"), .fixed("remove")]
        case .installationMailServer(let library): Self.library(library) + [.fixed("reminders"), .fixed("server"), .fixed("all")]
        case .mailTest(let library): Self.library(library) + [.fixed("reminders"), .fixed("test")]
        case .mailTemplate(let library): Self.library(library) + [.fixed("reminders"), .fixed("texts")]
        case .mailLog(let library): Self.library(library) + [.fixed("reminders"), .fixed("sent")]
        case .mailRetry(let library, let message): Self.library(library) + [.fixed("reminders"), .fixed("sent"), .parameter(name: "messageID", value: message.uuidString), .fixed("retry")]
        case .memberRemind(let library, let member): Self.member(library: library, member: member).segments + [.fixed("remind")]
        case .memberFinePay(let library, let member): Self.member(library: library, member: member).segments + [.fixed("fines"), .fixed("pay")]
        case .memberFineWaive(let library, let member): Self.member(library: library, member: member).segments + [.fixed("fines"), .fixed("waive")]
        case .holdCancel(let library, let hold): Self.library(library) + [.fixed("holds"), .parameter(name: "holdID", value: hold.uuidString), .fixed("cancel")]
        case .dashboard(let library): Self.library(library) + [.fixed("dashboard")]
        case .activity(let library): Self.library(library) + [.fixed("activity")]
        case .background(let library): Self.library(library) + [.fixed("background")]
        case .settings(let library): Self.library(library) + [.fixed("settings")]
        case .staff(let library): Self.library(library) + [.fixed("staff")]
        case .staffRole(let library, let user): Self.library(library) + [.fixed("staff"), .parameter(name: "userID", value: user.uuidString), .fixed("role")]
        case .staffRemove(let library, let user): Self.library(library) + [.fixed("staff"), .parameter(name: "userID", value: user.uuidString), .fixed("remove")]
        case .staffPassword(let library, let user): Self.library(library) + [.fixed("staff"), .parameter(name: "userID", value: user.uuidString), .fixed("password")]
        case .staffEmail(let library, let user): Self.library(library) + [.fixed("staff"), .parameter(name: "userID", value: user.uuidString), .fixed("email")]
        case .createLibrary(let library): Self.library(library) + [.fixed("libraries")]
        case .server(let library): Self.library(library) + [.fixed("server")]
        case .backups(let library): Self.library(library) + [.fixed("backups")]
        case .backupsRun(let library): Self.library(library) + [.fixed("backups"), .fixed("run")]
        case .backupsDrill(let library): Self.library(library) + [.fixed("backups"), .fixed("drill")]
        case .schoolSignInSettings(let library): Self.library(library) + [.fixed("school-sign-in")]
        case .bookSources(let library): Self.library(library) + [.fixed("book-sources")]
        case .wishlist(let library): Self.library(library) + [.fixed("wishlist")]
        case .wishlistAcquire(let library, let title): Self.library(library) + [.fixed("wishlist"), .parameter(name: "titleID", value: title.uuidString), .fixed("acquire")]
        case .wishlistDelete(let library, let title): Self.library(library) + [.fixed("wishlist"), .parameter(name: "titleID", value: title.uuidString), .fixed("delete")]
        case .reading(let library): Self.library(library) + [.fixed("reading")]
        case .readingStats(let library): Self.library(library) + [.fixed("reading"), .fixed("stats")]
        case .readingClass(let library): Self.library(library) + [.fixed("reading"), .fixed("class")]
        case .readingShare(let library): Self.library(library) + [.fixed("reading"), .fixed("share")]
        case .sharedYear(let token): [.fixed("shared"), .fixed("year"), .parameter(name: "token", value: token)]
        case .readingGoal(let library): Self.library(library) + [.fixed("reading"), .fixed("goal")]
        case .titleProgress(let library, let title): Self.title(library: library, title: title).segments + [.fixed("progress")]
        case .titleReadStatus(let library, let title): Self.title(library: library, title: title).segments + [.fixed("reading-status")]
        case .titleMemberRead(let library, let title): Self.title(library: library, title: title).segments + [.fixed("member-read")]
        case .readDelete(let library, let read): Self.library(library) + [.fixed("reading"), .parameter(name: "readID", value: read.uuidString), .fixed("delete")]
        case .readRating(let library, let read): Self.library(library) + [.fixed("reading"), .parameter(name: "readID", value: read.uuidString), .fixed("rating")]
        case .titlePhotos(let library, let title): Self.title(library: library, title: title).segments + [.fixed("photos")]
        case .photo(let library, let photo): Self.library(library) + [.fixed("photos"), .parameter(name: "photoID", value: photo.uuidString)]
        case .photoCorners(let library, let photo): Self.photo(library: library, photo: photo).segments + [.fixed("corners")]
        case .photoMarkup(let library, let photo): Self.photo(library: library, photo: photo).segments + [.fixed("markup")]
        case .photoDelete(let library, let photo): Self.photo(library: library, photo: photo).segments + [.fixed("delete")]
        case .photoQuote(let library, let photo): Self.photo(library: library, photo: photo).segments + [.fixed("quote")]
        case .quotes(let library): Self.library(library) + [.fixed("reading"), .fixed("quotes")]
        case .quoteDelete(let library, let quote): Self.library(library) + [.fixed("reading"), .fixed("quotes"), .parameter(name: "quoteID", value: quote.uuidString), .fixed("delete")]
        case .publicCatalog(let library): Self.open(library)
        case .publicTitle(let library, let title): Self.open(library) + [.fixed("titles"), .parameter(name: "titleID", value: title.uuidString)]
        case .publicWishlist(let library): Self.open(library) + [.fixed("wishlist")]
        case .publicHold(let library, let title): Self.publicTitle(library: library, title: title).segments + [.fixed("hold")]
        case .publicSignIn(let library): Self.open(library) + [.fixed("sign-in")]
        case .publicEmailLink(let library): Self.open(library) + [.fixed("sign-in"), .fixed("email")]
        case .publicSchoolSignIn(let library): Self.open(library) + [.fixed("sign-in"), .fixed("school")]
        case .publicLink(let library, let token): Self.open(library) + [.fixed("sign-in"), .fixed("link"), .parameter(name: "token", value: token)]
        case .publicAccount(let library): Self.open(library) + [.fixed("account")]
        case .publicRenew(let library, let loan): Self.open(library) + [.fixed("account"), .fixed("loans"), .parameter(name: "loanID", value: loan.uuidString), .fixed("renew")]
        case .publicHoldCancel(let library, let hold): Self.open(library) + [.fixed("account"), .fixed("holds"), .parameter(name: "holdID", value: hold.uuidString), .fixed("cancel")]
        case .publicCalendar(let library): Self.open(library) + [.fixed("account"), .fixed("calendar")]
        case .publicSignOut(let library): Self.open(library) + [.fixed("sign-out")]
        case .kioskSetup(let library): Self.library(library) + [.fixed("kiosk")]
        case .kiosk(let library): [.fixed("kiosk"), .parameter(name: "libraryID", value: library.uuidString)]
        case .kioskMember(let library): Self.kiosk(library: library).segments + [.fixed("member")]
        case .kioskEnd(let library): Self.kiosk(library: library).segments + [.fixed("end")]
        }
    }

    /// A public catalog's pages: `/public/libraries/{id}` (the API's list is `/api/v1/public/libraries/{id}/titles`).
    private static func open(_ id: UUID) -> [Segment] {
        [.fixed("public"), .fixed("libraries"), .parameter(name: "libraryID", value: id.uuidString)]
    }

    private static func library(_ id: UUID) -> [Segment] {
        [.fixed("libraries"), .parameter(name: "libraryID", value: id.uuidString)]
    }

    /// The link: `/libraries/…/exchange/jobs/…`.
    var path: String { "/" + segments.joinedPath }

    /// The link with a query: `WebRoute.loans(library: id).path(query: [("show", "overdue")])`; values are
    /// percent-encoded, pairs in the order given, a nil or empty value left out.
    func path(query: [(String, String?)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let pairs = query.compactMap { key, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// The route to register: parameters by name (the values are ignored: write `.pattern` ids).
    var pattern: [PathComponent] { segments.pattern }
}

extension Array where Element == WebRoute.Segment {
    /// The segments as a path (without its leading slash), each value percent-encoded.
    var joinedPath: String {
        map { segment in
            switch segment {
            case .fixed(let text): text
            case .parameter(_, let value): value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? value
            }
        }.joined(separator: "/")
    }

    /// The segments to register: parameters by name.
    var pattern: [PathComponent] {
        map { segment in
            switch segment {
            case .fixed(let text): .constant(text)
            case .parameter(let name, _): .parameter(name)
            }
        }
    }
}

extension UUID {
    /// Stands for any id when a `WebRoute` is registered (`WebRoute.job(library: .pattern, job: .pattern)`).
    static let pattern = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
}

extension RoutesBuilder {
    @discardableResult
    func get<Response: AsyncResponseEncodable>(_ route: WebRoute, use handler: @escaping @Sendable (Request) async throws -> Response) -> Route {
        on(.GET, route.pattern, use: handler)
    }

    @discardableResult
    func post<Response: AsyncResponseEncodable>(_ route: WebRoute, use handler: @escaping @Sendable (Request) async throws -> Response) -> Route {
        on(.POST, route.pattern, use: handler)
    }
}
