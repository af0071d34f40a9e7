@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// Web pages and refusals in the reader's language.
extension WebTests {
    /// What the activity log says about an entry is said in the reader's language, numbers and dates
    /// localised; the English text (the API's `info`) is the one the log stored before.
    @Test func activityDetailsAreInTheReadersLanguage() {
        let due = Date(timeIntervalSince1970: 1_796_000_000)
        let details: [ActivityDetail] = [
            .copies(2), .copiesAdded(1), .copiesChanged(from: 2, to: 3), .lent(barcode: "B0001", due: due), .overdue(days: 4),
            .renewed(due: due), .returnedOnMemberDeletion, .staffAdded(username: "ada", role: .volunteer),
            .roleChanged(username: "ada", role: .librarian), .settings(loanDays: 21, renewals: 2), .renamed(from: "Musik", to: "Lieder"),
            .imported(titles: 1200, copies: 1500, format: .goodreads), .favorite(true), .favorite(false),
        ]
        #expect(ActivityDetail.copies(2).english == "2 copies")
        #expect(ActivityDetail.lent(barcode: "B0001", due: due).english.hasPrefix("copy B0001, due 2026-"))
        let englishWords = ["copy", "copies", "due", "days", "overdue", "renewals", "loan", "period", "titles", "returned", "deleted", "now", "as"]
        for detail in details {
            #expect(ActivityDetail(json: detail.json) == detail)
            for lang in [Lang.de, .ga, .zh] {
                let text = Strings(lang: lang).message(detail)
                let words = Set(text.lowercased().split { !$0.isLetter }.map(String.init))
                #expect(!text.isEmpty && !text.contains("%") && words.isDisjoint(with: englishWords), "\(detail) in \(lang): \(text)")
            }
        }
        #expect(Strings(lang: .de).message(ActivityDetail.imported(titles: 1200, copies: 1500, format: .goodreads)).contains("1.200"))
    }

    /// Refusals reach a German, Irish or Chinese reader in their language, with the values in place.
    @Test func refusalsAreInTheReadersLanguage() async throws {
        let id = UUID()
        // One of every domain error's cases: none of them may reach a reader in English.
        let errors: [any DomainError] = [
            CirculationError.noCopyAvailable(title: "Momo"), CirculationError.memberNotFound("S9"), CirculationError.titleIsWishlistItem,
            CirculationError.loanAlreadyReturned, CirculationError.dueDateInPast, CirculationError.loanPeriodOutOfRange(400),
            CirculationError.copiesBelowOnLoan(requested: 1, onLoan: 2), CirculationError.titleHasCopiesOnLoan(3), CirculationError.copyOnLoan,
            CirculationError.renewalLimitReached(2),
            CatalogError.titleNotFound, CatalogError.copyNotFound, CatalogError.categoryNotFound, CatalogError.coverNotFound,
            CatalogError.ratingOutOfRange(7.5), CatalogError.wishlistHasNoCopies, CatalogError.wishlistItem(title: "Momo"),
            CatalogError.notWishlist(title: "Momo"), CatalogError.duplicateBarcode("B1"), CatalogError.loanedByEditing,
            CatalogError.duplicateCategory("Musik"), CatalogError.duplicateISBN(title: "Momo", titleID: id, library: id),
            CatalogError.tooManyCategories(max: 50), CatalogError.tooManyAuthors(max: 50),
            CatalogError.tooManyCopiesAtOnce(max: 500, from: 1, to: 900), CatalogError.noISBNToDraw(title: "Momo"),
            CatalogError.cover(.tooLarge(maxMB: 5)), CatalogError.cover(.notAnImage),
            MemberError.notFound, MemberError.duplicateCard(card: "S1", holder: "Ada"), MemberError.cardHasSpaces("S 1"),
            MemberError.hasLoans(name: "Ada", count: 2),
            AccountError.alreadySetUp, AccountError.duplicateUsername("ada"), AccountError.tooManyAttempts(waitSeconds: 30),
            AccountError.badCredentials, AccountError.tokenNotFound, AccountError.libraryNotFound, AccountError.staffNotFound,
            AccountError.staffPasswordNeeded(min: 8), AccountError.cannotAddStaff, AccountError.alreadyStaff("ada"), AccountError.lastOwner,
            AccountError.badUsername("a b"), AccountError.passwordTooShort(min: 8), AccountError.passwordTooLong(max: 72),
            AccountError.roleTooLow(.volunteer, needs: .librarian), AccountError.creationRestricted(adminOnly: true),
            AccountError.creationRestricted(adminOnly: false), AccountError.serverSettingsAdminOnly,
            LoanError.loanNotFound, LoanError.noCopyWithBarcode("B1"), LoanError.notOnLoan(barcode: "B1"), LoanError.sayWhichLoan,
            LoanError.memberIDNotFound, LoanError.sayWhoBorrows, LoanError.noTitleWithISBN("9783522202602"), LoanError.sayWhichBook,
            LoanError.copyNotAvailable(title: "Momo"),
            CatalogError.publishedDateWithoutYear("yesterday"),
            ReadingError.readNotFound, ReadingError.quoteNotFound, ReadingError.shareNotFound, ReadingError.photoNotFound,
            ReadingError.photo(.notAnImage), ReadingError.photo(.tooLarge(maxMB: 20)), ReadingError.photo(.damaged), ReadingError.photo(.empty),
            ReadingError.cornersInvalid, ReadingError.pageBeyondEnd(page: 400, pages: 320), ReadingError.noPageHeard(phrase: "hello"),
            ReadingError.heardOutOfRange(12_000), ReadingError.sayOneProgress, ReadingError.momentInFuture, ReadingError.unknownStatus("x"),
            ExchangeError.emptyFile, ExchangeError.noMARCRecords, ExchangeError.marcXMLUnreadable(detail: "line 3"), ExchangeError.notJSON,
            ExchangeError.notLibraryThingJSON, ExchangeError.csv(.unterminatedQuote(line: 4, column: 2)),
            ExchangeError.csv(.strayQuote(line: 4, column: 2)), ExchangeError.unknownFormat, ExchangeError.missingColumns(["Title"]),
            ExchangeError.cannotOpen(path: "/x.csv"), ExchangeError.notABackup, ExchangeError.newerBackup(version: 9),
            ExchangeError.backupTooLarge(rows: 9_000_000, max: 2_000_000), ExchangeError.unreadableBackup(at: "titles › 3"),
            ExchangeError.unreadableBackup(at: nil), ExchangeError.backupSettingOutOfRange(field: "maxRenewals", value: 1_000_000),
            ExchangeError.backupLibraryName, ExchangeError.backupCover(number: 2, .notAnImage),
            JobError.notFound, JobError.busy, JobError.interrupted,
            InputProblem.empty(field: "title"), InputProblem.tooLong(field: "title", max: 500),
            InputProblem.outOfRange(field: "totalCopies", min: 0, max: 2000, got: -2), InputProblem.notEmail(field: "email", value: "x"),
            InputProblem.notCoverURL(field: "coverUrl"), InputProblem.notANumber(field: "pageCount"),
            ISBN.Invalid.badChecksum, ISBN.Invalid.wrongLength(7),
            CatalogError.mergeIntoItself, AccountError.cannotResetPassword, AccountError.duplicateLibraryName("Room 12"),
            LibraryError.unknownTimeZone("Mars/Olympus"), ExchangeError.backupChosenAsImport, ExchangeError.memberListTooLarge(maxMB: 2),
        ]
        for error in errors {
            // The status is the refusal's; the API's English message is the strings table's English row.
            #expect(error.answered.status == error.refusal.status && error.answered.code == error.code, "\(error)")
            #expect(error.answered.message == Strings(lang: .en).message(error), "\(error)")
            let english = Strings(lang: .en).message(error)
            #expect(!english.contains("%") && !english.isEmpty, "\(error)")
            for lang in [Lang.de, .ga, .zh] {
                let text = Strings(lang: lang).message(error)
                #expect(text != english && !text.isEmpty && !text.contains("%"), "\(error) in \(lang)")
            }
        }
        #expect(Strings(lang: .de).message(CirculationError.noCopyAvailable(title: "Momo")).contains("„Momo“"))
        #expect(Strings(lang: .de).message(ISBN.Invalid.badChecksum).contains("Prüfziffer"))
        try await withTestApp { app in
            var browser = Browser(app: app)
            _ = try await browser.setUp()
            _ = try await browser.post("/logout", [:])
            browser.language = "de"
            _ = try await browser.get("/login")
            let wrong = try await browser.post("/login", ["username": "teacher", "password": "not the password"])
            #expect(wrong.status == .unauthorized)
            #expect(wrong.html.contains("Falscher Benutzername oder falsches Passwort."))
            #expect(!wrong.html.contains("Wrong username"))
            // A value out of range, named by the field's German label with the numbers in place.
            _ = try await browser.post("/login", ["username": "teacher", "password": "a long password"])
            let home = try await browser.get("/")
            let base = String(try #require(home.location).dropLast("/catalog".count))
            let member = try await browser.post(base + "/members", ["cardId": "S1", "firstName": "  "])
            #expect(member.html.contains("Vorname: bitte ausfüllen."), "\(member.html.prefix(3000))")
            let settings = try await browser.post(base + "/settings", ["name": "Room 12", "loanPeriodDays": "400", "maxRenewals": "2"])
            #expect(settings.html.contains("Leihfrist (Tage) muss zwischen 1 und 365 liegen (eingegeben: 400)."), "\(settings.status)")
        }
    }
}
