import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Testing
import Vapor
import VaporTesting
@testable import App

/// The printed catalog and a book's PDF: A–Z under letters or grouped, "page X of Y",
/// narrowed by shelf, covers drawn (read back from the rendered page), Chinese and Irish intact.
@Suite(.serialized) struct CatalogPrintTests {
    @Test func thePrintedCatalogListsEveryBookWithItsPageNumbers() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            for n in 0..<60 {
                _ = try await f.addTitle(String(format: "Book %02d", n), authors: ["Author \(n)"],
                                         extra: ["location": n % 2 == 0 ? "Room 12" : "Hall", "readingLevel": "AR \(3 + n % 3).\(n % 10)"])
            }
            _ = try await f.addTitle("Zázaí na Gaeilge", authors: ["Máire Ní Bhriain"], extra: ["location": "Hall", "categories": ["Gaeilge"]])
            _ = try await f.addTitle("西游记", authors: ["吴承恩"], extra: ["language": "zh"])
            let (reply, pdf) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.pdf")
            #expect(reply.status == .ok && reply.headers.first(name: "X-Item-Count") == "62")
            let words = try PrintTests.words(pdf)
            let pages = try PrintTests.pageCount(pdf)
            // 62 books and their letters at 10.5 mm on 263 mm a page: three pages, each saying which of three it is.
            #expect(pages == CatalogLayout(groupSizes: [60, 1, 1], usable: 297 - 18 - 16, headingHeight: 10, entryHeight: 10.5).pages && pages == 3)
            let text = words.map(\.text).joined(separator: " ")
            for n in 1...pages { #expect(text.contains("Page \(n) of \(pages)"), "\(n)") }
            #expect(text.contains("Zázaí") && text.contains("Bhriain") && text.contains("西游记") && text.contains("Book 59") && text.contains("Author 59"), "\(text)")
            #expect(words.contains { $0.text == "Shelf" } && words.contains { $0.text == "B" && $0.page == 0 })
            // The footer is at the foot of the page.
            let footer = try #require(words.first { $0.text == "Page" })
            #expect(footer.y > 280 && footer.y < 290, "\(footer)")

            // By shelf: "Hall" before "Room 12", only the Hall's books with the shelf filter.
            let (_, byShelf) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.pdf?group=shelf")
            let shelfWords = try PrintTests.words(byShelf)
            // (Below the header, which names the library: Room 12.)
            let body = shelfWords.filter { $0.y > 15 && $0.y < 280 }
            let hall = try #require(body.first { $0.text == "Hall" }), room = try #require(body.first { $0.text == "Room" })
            #expect((hall.page, hall.y) < (room.page, room.y))
            let (hallOnly, _) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.pdf?shelf=Hall")
            #expect(hallOnly.headers.first(name: "X-Item-Count") == "31")
            // By level: AR 3, AR 4, AR 5, then the books without one.
            let (_, byLevel) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.pdf?group=level")
            let levelText = try PrintTests.words(byLevel).map(\.text).joined(separator: " ")
            let ar3 = try #require(levelText.range(of: "AR 3")), ar5 = try #require(levelText.range(of: "AR 5")),
                none = try #require(levelText.range(of: "No reading level"))
            #expect(ar3.lowerBound < ar5.lowerBound && ar5.lowerBound < none.lowerBound)
            // A preview of each page; none past the last; bad options refused by name.
            let (preview, png) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.png?page=3")
            #expect(preview.status == .ok && png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(try await PrintTests.download(owner, "\(f.lib)/print/catalog.png?page=4").0.status == .notFound)
            #expect(try await owner.get("\(f.lib)/print/catalog.pdf?group=colour").errorField == "group")
            #expect(try await owner.get("\(f.lib)/print/catalog.pdf?collection=\(UUID())").status == .notFound)

            // On the web: the options, the count and the first pages.
            var browser = Browser(app: app)
            _ = try await browser.get("/login")
            _ = try await browser.post("/login", ["username": "owner", "password": "correct horse"])
            let page = try await browser.get("/libraries/\(f.libraryID)/print-catalog?group=shelf")
            #expect(page.status == .ok && page.html.contains("Books: 62 · pages: ") && page.html.contains("print/catalog.png?group=shelf&amp;paper=a4&amp;page=1"),
                    "\(page.html)")
        }
    }

    /// A book's PDF: its facts, its copies with their barcodes (read back), and its cover — a QR code
    /// drawn as the cover, found again on the rendered page.
    @Test func aBooksPDFCarriesItsCoverFactsAndCopies() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            let momo = try await f.addTitle("Momo", authors: ["Michael Ende"], isbn: "9783522202602", copies: 2,
                                            extra: ["location": "Room 12", "publisher": "Thienemann", "description": "Die grauen Herren stehlen die Zeit.",
                                                    "readingLevel": "AR 5.3"])
            let cover = try BarcodeRenderer.render(.qr, "the cover of Momo", scale: 8).png
            let coverID = try await CoverStore.store(cover, sourceURL: nil, now: Date(), gate: app.writeGate, on: app.db)
            _ = try await f.owner.patch("\(f.lib)/titles/\(momo)", ["coverUrl": CoverStore.localURL(coverID)])
            let (reply, pdf) = try await PrintTests.download(owner, "\(f.lib)/titles/\(momo)/book.pdf")
            #expect(reply.status == .ok && reply.headers.contentType?.subType == "pdf")
            let text = try PrintTests.words(pdf).map(\.text).joined(separator: " ")
            for piece in ["Momo", "Michael Ende", "Thienemann", "978-3-522-20260-2", "Zeit.", "AR 5.3", "C000001", "C000002", "Shelf Room 12"] {
                #expect(text.contains(piece), "\(piece): \(text)")
            }
            // The cover is drawn where the page puts it (20 mm in, 50 × 75 mm): its QR code reads back.
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("book-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            try pdf.write(to: dir.appendingPathComponent("book.pdf"))
            let px = { (mm: Double) in String(Int((mm / 25.4 * 150).rounded())) }
            _ = try PrintTests.run("/usr/bin/pdftoppm", ["-r", "150", "-f", "1", "-l", "1", "-x", px(15), "-y", px(15), "-W", px(60), "-H", px(85),
                                                         "-png", "-singlefile", dir.appendingPathComponent("book.pdf").path, dir.appendingPathComponent("cover").path])
            let read = try BarcodeReader(symbologies: [.qr]).read(try Data(contentsOf: dir.appendingPathComponent("cover.png"))).barcodes.map(\.text)
            #expect(read == ["the cover of Momo"], "\(read)")
            #expect(try await PrintTests.download(owner, "\(f.lib)/titles/\(momo)/book.png").0.status == .ok)
            #expect(try await owner.get("\(f.lib)/titles/\(UUID())/book.pdf").status == .notFound)
            // The catalog as CSV with the cover inside, as CodexScan writes it: the same bytes come back out.
            let (csvReply, csv) = try await PrintTests.download(owner, "\(f.lib)/export?format=csv&covers=true")
            let lines = String(decoding: csv, as: UTF8.self).components(separatedBy: "\r\n")
            #expect(csvReply.status == .ok && lines.first?.hasSuffix(",Cover") == true, "\(lines.first ?? "")")
            let embedded = try #require(lines.first { $0.contains("Momo") }?.components(separatedBy: "data:image/png;base64,").last)
            #expect(Data(base64Encoded: embedded.trimmingCharacters(in: CharacterSet(charactersIn: "\"\r"))) == cover)
            #expect(try await owner.get("\(f.lib)/export?format=marcxml&covers=true").status == .ok, "covers go only into the CSV")
            #expect(try await owner.get("\(f.lib)/export?format=csv&covers=maybe").errorField == "covers")
            // The catalog with covers draws it too.
            let (withCovers, coversPDF) = try await PrintTests.download(owner, "\(f.lib)/print/catalog.pdf?covers=true")
            #expect(withCovers.status == .ok && coversPDF.count > pdf.count / 4)
        }
    }

    /// Past the bound (2,000 books with covers) the catalog is refused with the count, from the count.
    @Test func aCatalogPastItsBoundIsRefusedWithTheCount() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await BenchPrintCommand.fill(try #require(UUID(uuidString: f.libraryID)), copies: CatalogSheets.maxWithCovers + 1, app: app)
            let refused = try await f.owner.get("\(f.lib)/print/catalog.pdf?covers=true")
            #expect(refused.status == .unprocessableEntity && refused.errorCode == "too_many_books", "\(refused.json)")
            #expect(((refused.json["error"] as? [String: Any])?["details"] as? [String: Any])?["count"] as? String == "2001")
            #expect(try await f.owner.get("\(f.lib)/print/catalog.png?page=1&shelf=Shelf%201&covers=true").status == .ok)
        }
    }
}
