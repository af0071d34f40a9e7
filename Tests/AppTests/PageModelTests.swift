@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// The main pages' models, built by their one function straight from a test database
/// (set up, make the model, check its values), not only read back through HTML.
@Suite struct PageModelTests {
    struct Library {
        let f: Fixture
        let ctx: LibraryContext
        let momo: UUID, krabat: UUID, ada: UUID, grace: UUID
    }

    /// Two books (Momo: 2 copies, one lent to Ada and overdue; Krabat: 1 copy), two members, a wish.
    static func library(_ app: Application, clock: TestClock) async throws -> Library {
        let f = try await Fixture.make(app)
        let momo = try #require(UUID(uuidString: try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 2)))
        let krabat = try #require(UUID(uuidString: try await f.addTitle("Krabat", authors: ["Otfried Preußler"], copies: 1)))
        _ = try await f.owner.post("\(f.lib)/wishlist", ["title": "Emil und die Detektive"])
        let ada = try #require(UUID(uuidString: try await f.addMember("S1", "Ada", "Lovelace")))
        let grace = try #require(UUID(uuidString: try await f.addMember("S2", "Grace", "Hopper")))
        #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": momo.uuidString, "days": 7]).status == .created)
        clock.advance(days: 10)
        let user = try #require(try await User.query(on: app.db).first()?.requireID())
        let ctx = LibraryContext(libraryID: try #require(UUID(uuidString: f.libraryID)), name: "Room 12", policy: LoanPolicy(), role: .owner,
                                 user: AuthenticatedUser(id: user, username: "owner", displayName: "Owner"))
        return Library(f: f, ctx: ctx, momo: momo, krabat: krabat, ada: ada, grace: grace)
    }

    @Test func theCatalogListsBooksNotWishesWithAvailabilityAndSections() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await Self.library(app, clock: clock)
            let page = try await CatalogPage.make(q: nil, chip: "all", grid: false, sort: .title, paging: Paging(1), seek: nil, library: l.ctx,
                                                  now: clock.now, on: app.db)
            #expect(page.result.items.map(\.title) == ["Krabat", "Momo"])
            #expect(page.result.total == 2)
            let momo = try #require(page.result.items.first { $0.id == l.momo })
            #expect(momo.availability == Availability(total: 2, available: 1, onLoan: 1))
            #expect(momo.overdue)
            #expect(page.result.sections?.map(\.letter) == ["K", "M"])
            let searched = try await CatalogPage.make(q: "ende", chip: "all", grid: false, sort: .title, paging: Paging(1), seek: nil, library: l.ctx,
                                                      now: clock.now, on: app.db)
            #expect(searched.searching && searched.result.items.map(\.id) == [l.momo])
        }
    }

    @Test func aBooksPageHasItsCopiesAndWhoBorrowedIt() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await Self.library(app, clock: clock)
            let page = try await TitlePage.make(titleID: l.momo, library: l.ctx, now: clock.now, on: app.db)
            #expect(page.detail.title == "Momo" && page.detail.copies.count == 2)
            #expect(page.detail.availability.onLoan == 1)
            #expect(page.history.map(\.memberCardId) == ["S1"])
            #expect(page.canEdit && page.canLend)
            await #expect(throws: CatalogError.titleNotFound) {
                _ = try await TitlePage.make(titleID: UUID(), library: l.ctx, now: clock.now, on: app.db)
            }
        }
    }

    @Test func aMembersPageHasTheirLoansAndTheLoansPageTheOverdueOnes() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await Self.library(app, clock: clock)
            let ada = try await MemberPage.make(memberID: l.ada, library: l.ctx, now: clock.now, on: app.db)
            #expect(ada.detail.member.cardId == "S1")
            #expect(ada.detail.loans.map(\.title) == ["Momo"] && ada.detail.loans.first?.overdue == true)
            #expect(ada.detail.loans.first?.daysOverdue == 3)
            let grace = try await MemberPage.make(memberID: l.grace, library: l.ctx, now: clock.now, on: app.db)
            #expect(grace.detail.loans.isEmpty)
            let overdue = try await LoansPage.make(overdueOnly: true, paging: Paging(1), library: l.ctx, now: clock.now, on: app.db)
            #expect(overdue.total == 1 && overdue.loans.map(\.memberCardId) == ["S1"])
            let members = try await MembersPage.make(q: "hop", sort: .name, paging: Paging(1), form: FormState(), library: l.ctx, on: app.db)
            #expect(members.members.map(\.cardId) == ["S2"] && members.total == 1)
        }
    }

    @Test func theDashboardCountsTheLibrary() async throws {
        let clock = TestClock()
        try await withTestApp(clock: clock.appClock) { app in
            let l = try await Self.library(app, clock: clock)
            let d = try await DashboardPage.make(library: l.ctx, now: clock.now, on: app.db).dashboard
            #expect(d.titles == 2 && d.copies == 3 && d.onLoan == 1 && d.overdue == 1 && d.members == 2 && d.wishlist == 1)
            #expect(d.recentActivity.first?.type == ActivityType.checkout.rawValue)
        }
    }
}
