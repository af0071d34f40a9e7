@testable import App
import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor
import VaporTesting

/// Every list order answers on both databases from its own index, and the counts the
/// catalog shows (total, A–Z, favourites, where a letter starts) are the kept ones, equal to counting
/// the titles after any kind of write.
@Suite struct CatalogListTests {
    /// On SQLite every list order is read off an index that ends in the rowid instead of repeating the
    /// text id (`LeanListIndexes`), in order, without a sort; and a count under a filter that names a
    /// title's id is read off the narrow ids index, not the rows.
    @Test func theListOrdersAreReadOffLeanIndexes() async throws {
        try await withTestApp { app in
            guard Dialect(app.db) == .sqlite else { return }
            let f = try await Fixture.make(app)
            let library = try #require(UUID(uuidString: f.libraryID))
            struct Column: Decodable { var name: String? }
            for (name, _) in LeanListIndexes.indexes {
                let columns = try await app.db.sql.raw("SELECT name FROM pragma_index_info(\(bind: name))").all(decoding: Column.self).compactMap(\.name)
                #expect(columns.first == "library_no" && !columns.contains("id"), "\(name): \(columns)")
            }
            struct Step: Decodable { var detail: String }
            func plan(_ query: SQLQueryString) async throws -> String {
                try await app.db.sql.raw("EXPLAIN QUERY PLAN " + query).all(decoding: Step.self).map(\.detail).joined(separator: " | ")
            }
            let index: [TitleSort: String] = [.title: "titles_list_title", .author: "titles_list_author", .newest: "titles_list_newest",
                                              .borrowed: "titles_list_borrowed", .shelf: "titles_list_shelf"]
            for sort in TitleSort.allCases {
                let page = try await plan("SELECT t.rowid FROM titles t WHERE t.library_no = \(LibraryNumber.of(library)) AND t.wishlist = \(bind: false)"
                                          + TitleQuery.orderBy(sort, sqlite: true) + " LIMIT 50")
                #expect(page.contains("COVERING INDEX \(index[sort] ?? "?")") && !page.contains("TEMP B-TREE"), "\(sort): \(page)")
            }
            let count = try await plan("""
                SELECT COUNT(*) FROM titles t WHERE t.library_no = \(LibraryNumber.of(library)) AND t.wishlist = \(bind: false)
                AND t.id NOT IN (SELECT r.title_id FROM reads r WHERE r.user_id = \(bind: UUID()) AND r.title_id IS NOT NULL)
                """)
            #expect(count.contains("COVERING INDEX titles_library_ids"), "\(count)")
            // Favourites and reading levels are indexed only where a title has them, and the filters
            // still read those indexes: a page of favourites in A–Z order without a sort.
            let favourites = try await plan("SELECT t.rowid FROM titles t WHERE " + TitleQuery.whereClause(
                TitleQuery.Filters(favorites: true), libraryID: library, now: Date(), withSection: false) + TitleQuery.orderBy(.title, sqlite: true) + " LIMIT 50")
            #expect(favourites.contains("INDEX titles_library_favorite") && !favourites.contains("TEMP B-TREE"), "\(favourites)")
            let levels = try await plan("SELECT t.rowid FROM titles t WHERE " + TitleQuery.whereClause(
                TitleQuery.Filters(levelScheme: .lexile), libraryID: library, now: Date(), withSection: false) + " LIMIT 50")
            #expect(levels.contains("INDEX titles_library_level"), "\(levels)")
            // The titles on loan, from the partial index of them, in A–Z order: no probe of the loans.
            let onLoan = try await plan("SELECT t.rowid FROM titles t WHERE " + TitleQuery.whereClause(
                TitleQuery.Filters(onLoan: true), libraryID: library, now: Date(), withSection: false) + TitleQuery.orderBy(.title, sqlite: true) + " LIMIT 50")
            #expect(onLoan.contains("INDEX titles_on_loan") && !onLoan.contains("TEMP B-TREE") && !onLoan.contains("loans"), "\(onLoan)")
            struct Listed: Decodable { var name: String; var partial: Int }
            let partial = try await app.db.sql.raw("SELECT name, partial FROM pragma_index_list('titles')").all(decoding: Listed.self)
            for index in ["titles_library_favorite", "titles_library_level", "titles_on_loan"] {
                #expect(partial.first { $0.name == index }?.partial == 1, "\(index) holds every title, not only those it finds")
            }
        }
    }

    /// PostgreSQL compares the order keys byte by byte, as SQLite does and as they are built: a list
    /// comes out in the same order on both, whatever the database's own collation.
    @Test func theOrderKeysCompareAsBytesOnPostgreSQL() async throws {
        try await withTestApp { app in
            guard Dialect(app.db) == .postgresql else { return }
            struct Collated: Decodable { var column_name: String; var collation_name: String? }
            let columns = try await app.db.sql.raw("""
                SELECT column_name, collation_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'titles' AND column_name IN ('sort_key', 'author_key', 'call_number_sort')
                ORDER BY column_name
                """).all(decoding: Collated.self)
            #expect(columns.map(\.column_name) == ["author_key", "call_number_sort", "sort_key"])
            #expect(columns.allSatisfy { $0.collation_name == "C" }, "\(columns)")
        }
    }

    @Test func everyOrderAnswersOnBothDatabasesInItsOrder() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let zebra = try await f.addTitle("Zebra", authors: ["Anna Zorn"])
            let apple = try await f.addTitle("apple pie", authors: ["Émile Bernard"], copies: 2)
            _ = try await f.addTitle("1984", authors: ["George Orwell"])
            _ = try await f.addTitle("Anonymous Tales")
            try await f.addMember("S1", "Ada")
            for _ in 0..<2 {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": apple]).status == .created)
            }
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": zebra]).status == .created)
            func titles(_ sort: String) async throws -> [String] {
                let reply = try await f.owner.get("\(f.lib)/titles?sort=\(sort)")
                #expect(reply.status == .ok, "sort=\(sort): \(reply.json)")
                return ((reply["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
            }
            #expect(try await titles("title") == ["1984", "Anonymous Tales", "apple pie", "Zebra"])
            // By author as written, folded (É with E); a title without authors after every name.
            #expect(try await titles("author") == ["Zebra", "apple pie", "1984", "Anonymous Tales"])
            #expect(try await titles("newest") == ["Anonymous Tales", "1984", "apple pie", "Zebra"])
            #expect(try await titles("borrowed") == ["apple pie", "Zebra", "1984", "Anonymous Tales"])
            // The web's sort chips on the same orders.
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            for sort in TitleSort.allCases {
                #expect(try await browser.get("/libraries/\(f.libraryID)/catalog?sort=\(sort.rawValue)").status == .ok)
            }
        }
    }

    @Test func keptCountsEqualTheTitlesAfterEveryKindOfWrite() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            var ids: [String] = []
            for name in ["Momo", "Die unendliche Geschichte", "1984", "Борис Годунов", "Mara", "Zorro", "Emil", "42"] {
                ids.append(try await f.addTitle(name))
            }
            let wish = try await f.owner.post("\(f.lib)/wishlist", ["title": "Krabat"])
            #expect(wish.status == .created)
            try await Self.expectKeptCountsTrue(app)
            // A title renamed into another letter, a favourite, a deletion, a wish acquired.
            #expect(try await f.owner.patch("\(f.lib)/titles/\(ids[0])", ["title": "Wolkenkuckucksheim"]).status == .ok)
            #expect(try await f.owner.patch("\(f.lib)/titles/\(ids[4])", ["favorite": true]).status == .ok)
            #expect(try await f.owner.delete("\(f.lib)/titles/\(ids[5])").status == .noContent)
            #expect(try await f.owner.post("\(f.lib)/wishlist/\(wish.string("id"))/acquire", ["copies": 1]).status == .ok)
            // A copy lent (no count changes), one lost (out of circulation), one added.
            try await f.addMember("S1", "Ada")
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[1]]).status == .created)
            // Two copies of one title lent, one back: still on loan, once in the chip's counts.
            #expect(try await f.owner.post("\(f.lib)/titles/\(ids[6])/copies", ["count": 1]).status.code < 300)
            let first = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[6]])
            #expect(first.status == .created)
            #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[6]]).status == .created)
            try await Self.expectKeptCountsTrue(app)
            #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": first.string("copyBarcode")]).status == .ok)
            let lent = try await f.owner.get("\(f.lib)/titles?onLoan=true&sections=true")
            #expect(lent["total"] as? Int == 2)
            #expect(((lent["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String } == ["Emil", "Die unendliche Geschichte"])
            #expect(((lent["sections"] as? [[String: Any]]) ?? []).compactMap { "\($0["letter"] ?? "")\($0["count"] ?? "")" } == ["E1", "U1"])
            let copies = try await f.owner.get("\(f.lib)/titles/\(ids[2])/copies").array
            let copyID = try #require(copies.first?["id"] as? String)
            #expect(try await f.owner.patch("\(f.lib)/copies/\(copyID)", ["status": "lost"]).status == .ok)
            #expect(try await f.owner.post("\(f.lib)/titles/\(ids[3])/copies", ["count": 2]).status.code < 300)
            try await Self.expectKeptCountsTrue(app)
            let dashboard = try await f.owner.get("\(f.lib)/dashboard")
            #expect(dashboard["copies"] as? Int == (try await Copy.query(on: app.db).filter(\.$status ~~ ["available", "on_loan"]).count()))
            // An import in bulk.
            let csv = "ISBN,Title,Author,Total Copies,Available Copies\n,Amos,A. Writer,1,1\n,Berta,B. Writer,1,1\n,3 Musketiere,Dumas,1,1\n"
            let upload = try await f.owner.send(.POST, "\(f.lib)/import", rawBody: Data(csv.utf8), contentType: "text/csv")
            #expect(upload.status == .accepted, "\(upload.json)")
            let job = try await f.owner.finished(upload)
            #expect(job.status == .ok, "\(job.json)")
            #expect(try await Title.query(on: app.db).filter(\.$title == "Berta").count() == 1)
            try await Self.expectKeptCountsTrue(app)

            let list = try await f.owner.get("\(f.lib)/titles?sections=true&limit=2")
            let inCatalog = try await Title.query(on: app.db).filter(\.$wishlist == false).count()
            #expect(list["total"] as? Int == inCatalog)
            // Where each letter starts, from the kept counts, equals counting the titles before it.
            guard let libraryID = UUID(uuidString: f.libraryID) else { return }
            let titles = try await Title.query(on: app.db).filter(\.$wishlist == false).all()
                .sorted { ($0.sortKey, $0.id!.uuidString) < ($1.sortKey, $1.id!.uuidString) }
            for letter in Set(titles.map(\.section)) {
                let position = try await TitleQuery.position(ofSection: letter, TitleQuery.Filters(), libraryID: libraryID, now: Date(), on: app.db)
                let expected = titles.firstIndex { $0.section == letter }
                if Dialect(app.db) == .sqlite || letter != "#" {
                    #expect(position == expected, "letter \(letter)")
                }
            }
            #expect(try await TitleQuery.position(ofSection: "Q", TitleQuery.Filters(), libraryID: libraryID, now: Date(), on: app.db) == nil)
        }
    }

    /// Keyset paging: following "next" from the first page, or "previous" from the last, in every order,
    /// gives exactly the list read whole (ties in every key included), and a letter jump lands on the
    /// page a reader paging from the start would see, found by seeking. The web's pager links carry it.
    @Test func seekingThroughEveryOrderGivesTheWholeListOnce() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let names = ["Momo", "Emil", "emil", "Krabat", "1984", "Anna", "Bert", "Bert", "Zorro", "Mara", "Carl", "Dora", "Edda", "Fritz",
                         "Борис Годунов", "42", "Ödön"]
            var ids: [String] = []
            for (i, name) in names.enumerated() { ids.append(try await f.addTitle(name, authors: [i % 3 == 0 ? "Same Author" : "Writer \(i)"])) }
            try await f.addMember("S1", "Ada")
            for i in [2, 5, 5, 9] {
                let loan = try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": ids[i]])
                #expect(loan.status == .created)
                #expect(try await f.owner.post("\(f.lib)/returns", ["copyBarcode": loan.string("copyBarcode")]).status.code < 300)
            }
            let libraryID = try #require(UUID(uuidString: f.libraryID))
            for sort in TitleSort.allCases {
                var filters = TitleQuery.Filters()
                filters.sort = sort
                filters.limit = 1000
                let whole = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                #expect(whole.count == names.count)
                filters.limit = 4
                var forward = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                while forward.count < whole.count + 4, let last = forward.last {
                    filters.seek = .after(last)
                    let page = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db)
                    #expect(page.total == names.count)
                    if page.items.isEmpty { break }
                    forward += page.items.map(\.id)
                }
                #expect(forward == whole, "\(sort) forward")
                filters.seek = .end
                var backward = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                #expect(backward.count == names.count % 4, "\(sort): the last page holds what the count leaves")
                while backward.count < whole.count + 4, let first = backward.first {
                    filters.seek = .before(first)
                    let page = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                    if page.isEmpty { break }
                    backward = page + backward
                }
                #expect(backward == whole, "\(sort) backward")
            }
            // A page typed by its number, found from the kept counts and its part of the list: every
            // offset, pages crossing from one letter to the next and "#" before "a" and after "z" among them.
            for favorites in [false, true] {
                if favorites {
                    for i in [0, 4, 6, 7, 12, 14, 15] { #expect(try await f.owner.patch("\(f.lib)/titles/\(ids[i])", ["favorite": true]).status == .ok) }
                }
                var filters = TitleQuery.Filters(favorites: favorites)
                filters.limit = 1000
                let whole = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                #expect(whole.count == (favorites ? 7 : names.count))
                for limit in [3, 4] {
                    filters.limit = limit
                    for offset in 0...whole.count {
                        filters.offset = offset
                        let page = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
                        #expect(page == Array(whole[offset..<min(whole.count, offset + limit)]), "offset \(offset) of \(limit), favourites \(favorites)")
                        let start = try await TitleQuery.pageStart(atOffset: offset, filters, libraryID: libraryID, now: Date(), on: app.db.sql)
                        #expect(start == (offset > 0 && offset < whole.count ? whole[offset] : nil), "the page at \(offset) starts from its part")
                    }
                }
            }
            // A letter's page starts at the page boundary before the letter, as paging by number would.
            var filters = TitleQuery.Filters()
            filters.limit = 4
            let position = try #require(try await TitleQuery.position(ofSection: "K", filters, libraryID: libraryID, now: Date(), on: app.db))
            let start = try #require(try await TitleQuery.pageStart(ofSection: "K", position: position, filters, libraryID: libraryID,
                                                                     now: Date(), on: app.db.sql))
            filters.offset = (position / 4) * 4
            let byNumber = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
            filters.seek = .from(start)
            let bySeek = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id)
            #expect(bySeek == byNumber && !bySeek.isEmpty)
            // A seek from a title of another library, or a deleted one, is the page by its number.
            filters.seek = .after(UUID())
            #expect(try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).items.map(\.id) == byNumber)

            // The web: the next link carries the page's last title, and following it pages on.
            var browser = Browser(app: app)
            browser.cookies[Credential.cookieName] = try #require(f.owner.token)
            for n in 0..<110 { _ = try await f.addTitle(String(format: "Band %03d", n)) }
            let first = try await browser.get("/libraries/\(f.libraryID)/catalog")
            let next = try #require(first.html.firstMatch(of: /href="([^"]*after=[^"]*)" rel="next"/)?.1)
            let second = try await browser.get(String(next).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(second.status == .ok)
            #expect(second.html.contains("51–"))
            let last = try #require(first.html.firstMatch(of: /href="([^"]*end=1[^"]*)"/)?.1)
            let lastPage = try await browser.get(String(last).replacingOccurrences(of: "&amp;", with: "&"))
            #expect(lastPage.status == .ok && lastPage.html.contains("101–127"))
        }
    }

    /// The titles' open loans counted from the loans a library already has when the update comes, and
    /// the update taken back and made again: the on-loan chip lists the same titles with the same counts.
    @Test func theOpenLoansOfAnExistingLibraryAreCountedByTheUpdate() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let momo = try await f.addTitle("Momo", copies: 2)
            let emil = try await f.addTitle("Emil")
            _ = try await f.addTitle("Krabat")
            try await f.addMember("S1", "Ada")
            for title in [momo, momo, emil] {
                #expect(try await f.owner.post("\(f.lib)/checkouts", ["cardId": "S1", "titleId": title]).status == .created)
            }
            func lent() async throws -> [String] {
                let list = try await f.owner.get("\(f.lib)/titles?onLoan=true&sections=true")
                let titles = ((list["items"] as? [[String: Any]]) ?? []).compactMap { $0["title"] as? String }
                let sections = ((list["sections"] as? [[String: Any]]) ?? []).compactMap { "\($0["letter"] ?? "")\($0["count"] ?? "")" }
                return titles + sections + ["\(list["total"] ?? "")"]
            }
            #expect(try await lent() == ["Emil", "Momo", "E1", "M1", "2"])
            try await onOneConnection(app) { try await LoansByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().revert(on: $0) }
            try await onOneConnection(app) { try await AddOpenLoanCounts().revert(on: $0) }
            try await onOneConnection(app) { try await AddOpenLoanCounts().prepare(on: $0) }
            try await onOneConnection(app) { try await TitlesByLibraryNumber().prepare(on: $0) }
            try await onOneConnection(app) { try await LoansByLibraryNumber().prepare(on: $0) }
            try await Self.expectKeptCountsTrue(app)
            #expect(try await lent() == ["Emil", "Momo", "E1", "M1", "2"])
        }
    }

    /// `title_counts` holds, for each library, list, section, favourite, side of "a" and whether on loan,
    /// exactly the number of titles there are; each title's `open_loans` is its loans not yet returned.
    static func expectKeptCountsTrue(_ app: Application, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        struct Count: Decodable, Hashable { var section: String; var wishlist: Bool; var favorite: Bool; var on_loan: Bool; var n: Int }
        let kept = try await app.db.sql.raw("""
            SELECT section, wishlist, favorite, on_loan, CAST(SUM(n) AS BIGINT) AS n FROM title_counts
            GROUP BY section, wishlist, favorite, on_loan HAVING SUM(n) <> 0
            """).all(decoding: Count.self)
        let counted = try await app.db.sql.raw("""
            SELECT section, wishlist, favorite, open_loans > 0 AS on_loan, CAST(COUNT(*) AS BIGINT) AS n FROM titles
            GROUP BY section, wishlist, favorite, open_loans > 0
            """).all(decoding: Count.self)
        #expect(Set(kept) == Set(counted), sourceLocation: sourceLocation)
        let miscounted = try await app.db.sql.raw("""
            SELECT CAST(COUNT(*) AS BIGINT) AS n FROM titles t
            WHERE t.open_loans <> (SELECT COUNT(*) FROM loans l WHERE l.title_id = t.id AND l.returned_at IS NULL)
            """).first()?.decode(column: "n", as: Int.self)
        #expect(miscounted == 0, "titles whose open loans are miscounted", sourceLocation: sourceLocation)
        struct Copies: Decodable, Hashable { var circulating: Bool; var n: Int }
        let keptCopies = try await app.db.sql.raw("SELECT circulating, CAST(SUM(n) AS BIGINT) AS n FROM copy_counts GROUP BY circulating HAVING SUM(n) <> 0")
            .all(decoding: Copies.self)
        let countedCopies = try await app.db.sql.raw("""
            SELECT status IN ('available', 'on_loan') AS circulating, CAST(COUNT(*) AS BIGINT) AS n FROM copies GROUP BY 1
            """).all(decoding: Copies.self)
        #expect(Set(keptCopies) == Set(countedCopies), sourceLocation: sourceLocation)
    }
}
