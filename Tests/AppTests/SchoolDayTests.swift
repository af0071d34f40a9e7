@testable import App
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor
import VaporTesting

/// Issue 16: a school library's day at real size.
@Suite struct SchoolDayTests {
    /// `count` titles straight into the library, named so their A–Z order is known: "Aello 00001" …,
    /// the letters in turn ("Aello …" for the first 26th, then "Bello …").
    static func seedTitles(_ count: Int, library: UUID, app: Application) async throws -> [TitleRow] {
        let now = Date()
        var rows: [TitleRow] = []
        rows.reserveCapacity(count)
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for i in 0..<count {
            let letter = letters[i * letters.count / count]
            var record = ImportRecord(line: i + 2)
            record.title = "\(letter)ello \(String(format: "%05d", i + 1))"
            record.authors = ["Author \(i % 97)"]
            rows.append(try TitleRow(importing: record, id: UUID(), now: now.addingTimeInterval(Double(i))))
        }
        let all = rows
        try await app.writeGate.transaction(on: app.db) { db in
            for chunk in stride(from: 0, to: all.count, by: 2_000) {
                try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: Array(all[chunk..<min(chunk + 2_000, all.count)]),
                                         values: { $0.values(library: library) }, on: db)
            }
        }
        return rows
    }

    @Test func theCatalogPagesToItsLastTitleAndEveryLetterAt20000Titles() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let library = try #require(UUID(uuidString: catalog.split(separator: "/")[1].description))
            let rows = try await Self.seedTitles(20_000, library: library, app: app)

            let first = try await browser.get(catalog)
            #expect(first.status == .ok)
            #expect(first.html.contains("Aello 00001") && !first.html.contains("Aello 00051"))
            #expect(first.html.contains("Page 1 of 400"), "\(first.html.suffix(800))")
            #expect(first.html.contains("rel=\"next\""))

            // The last page holds the last title; its pager leads back, not on.
            let last = try await browser.get(catalog + "?page=400")
            #expect(last.html.contains("Zello 20000"))
            #expect(last.html.contains("rel=\"prev\"") && !last.html.contains("rel=\"next\""))

            // W from the index: to the page where W starts, at its heading, whatever comes before it.
            #expect(first.html.contains(WebRoute.catalog(library: library).path(query: [("letter", "W")])))
            let jump = try await browser.get(catalog + "?letter=W")
            #expect(jump.status == .seeOther || jump.status == .found)
            let firstW = try #require(rows.firstIndex { $0.title.hasPrefix("W") })
            let target = try #require(jump.location)
            #expect(target.hasSuffix("page=\(firstW / 50 + 1)#sec-W"), "\(target)")
            let wPage = try await browser.get(String(target.split(separator: "#")[0]))
            #expect(wPage.html.contains(rows[firstW].title))
            #expect(wPage.html.contains("id=\"sec-W\""))

            // Sorted newest first, the last one added leads.
            let newest = try await browser.get(catalog + "?sort=newest")
            #expect(newest.html.contains("Zello 20000") && !newest.html.contains("Aello 00001"))
            // A page past the end is empty, not an error.
            #expect(try await browser.get(catalog + "?page=999999").status == .ok)
        }
    }
}
