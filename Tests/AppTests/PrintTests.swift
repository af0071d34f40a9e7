import Foundation
import SQLKit
import ShelfmarkCore
import ShelfmarkImaging
import Testing
import Vapor
import VaporTesting
@testable import App

/// Label sheets and member cards: PDFs read back with poppler — every label's text where
/// the sheet's measures put it (within 0.5 mm), the barcodes on the rendered page read back by the
/// project's own reader, Irish and Chinese intact, page counts right.
@Suite(.serialized) struct PrintTests {
    /// One word of a PDF page as `pdftotext -bbox` finds it, in millimetres from the page's top left.
    struct Word {
        var page: Int
        var text: String
        var x: Double, y: Double, right: Double, bottom: Double
    }

    static func words(_ pdf: Data) throws -> [Word] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let html = try run("/usr/bin/pdftotext", ["-bbox", "-enc", "UTF-8", file.path, "-"])
        var words: [Word] = []
        var page = -1
        let mm = 25.4 / 72
        for line in html.components(separatedBy: "\n") {
            if line.contains("<page ") { page += 1 }
            guard line.contains("<word ") else { continue }
            func attribute(_ name: String) -> Double {
                guard let range = line.range(of: " \(name)=\"") else { return .nan }
                return Double(line[range.upperBound...].prefix { $0 != "\"" }) ?? .nan
            }
            let text = line.components(separatedBy: ">").dropFirst().first?.components(separatedBy: "<").first ?? ""
            words.append(Word(page: page, text: text.replacingOccurrences(of: "&amp;", with: "&"), x: attribute("xMin") * mm, y: attribute("yMin") * mm,
                              right: attribute("xMax") * mm, bottom: attribute("yMax") * mm))
        }
        return words
    }

    static func pageCount(_ pdf: Data) throws -> Int {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString).pdf")
        try pdf.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let info = try run("/usr/bin/pdfinfo", [file.path])
        return Int(info.components(separatedBy: "\n").first { $0.hasPrefix("Pages:") }?.dropFirst(6).trimmingCharacters(in: .whitespaces) ?? "") ?? -1
    }

    /// The barcodes our reader finds in one rectangle (mm) of a page rendered at 300 dpi by `pdftoppm`.
    static func barcodes(_ pdf: Data, page: Int, x: Double, y: Double, width: Double, height: Double) throws -> [String] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try pdf.write(to: dir.appendingPathComponent("sheet.pdf"))
        let px = { (mm: Double) in String(Int((mm / 25.4 * 300).rounded())) }
        _ = try run("/usr/bin/pdftoppm", ["-r", "300", "-f", String(page + 1), "-l", String(page + 1), "-x", px(x), "-y", px(y), "-W", px(width), "-H", px(height),
                                          "-png", "-singlefile", dir.appendingPathComponent("sheet.pdf").path, dir.appendingPathComponent("label").path])
        let png = try Data(contentsOf: dir.appendingPathComponent("label.png"))
        return try BarcodeReader(symbologies: [.code128]).read(png).barcodes.map(\.text)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(tool) \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    static func download(_ client: Client, _ path: String) async throws -> (TestingHTTPResponse, Data) {
        var headers = HTTPHeaders()
        headers.bearerAuthorization = .init(token: client.token!)
        let reply = try await client.app.testing().sendRequest(.GET, path, headers: headers)
        return (reply, Data(buffer: reply.body))
    }

    /// Every layout: each label's title where the sheet puts it (0.5 mm), the barcode beneath it read
    /// back from the rendered page, "start at label N" and the printer offset moving everything.
    @Test func labelsLineUpOnEverySheetAndTheirBarcodesScan() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            // 26 titles "Aa…" to "Az…" (A–Z order is the label order), one copy each on shelf B3.
            var barcodes: [String] = []
            for i in 0..<26 {
                let letter = String(UnicodeScalar(UInt8(97 + i)))
                let id = try await f.addTitle("A\(letter)title", authors: ["Author \(letter)"], extra: ["location": "B3"])
                let copies = try await owner.get("\(f.lib)/titles/\(id)/copies")
                barcodes.append(try #require(copies.array.first?["barcode"] as? String))
            }
            for layout in LabelLayout.allCases {
                for (start, dx, dy) in [(1, 0.0, 0.0), (3, 1.5, -2.0)] {
                    let (reply, pdf) = try await Self.download(owner, "\(f.lib)/print/labels.pdf?layout=\(layout.rawValue)&start=\(start)&offsetX=\(dx)&offsetY=\(dy)")
                    #expect(reply.status == .ok && reply.headers.contentType?.subType == "pdf")
                    // To look at the sheets: SHELFMARK_PRINT_OUT=/some/dir swift test --filter PrintTests
                    if let out = ProcessInfo.processInfo.environment["SHELFMARK_PRINT_OUT"] {
                        try pdf.write(to: URL(fileURLWithPath: out).appendingPathComponent("\(layout.rawValue)-\(start).pdf"))
                    }
                    #expect(reply.headers.first(name: "X-Item-Count") == "26")
                    let sheet = layout.sheet
                    #expect(try Self.pageCount(pdf) == sheet.pages(count: 26, startAt: start))
                    let words = try Self.words(pdf)
                    for i in 0..<26 {
                        let letter = String(UnicodeScalar(UInt8(97 + i)))
                        let place = sheet.place(i, startAt: start, offsetX: dx, offsetY: dy)
                        let expected = layout.isSpine ? "B3" : "A\(letter)title"
                        let candidates = words.filter { $0.page == place.page && $0.text == expected && $0.x >= place.x - 1 && $0.x < place.x + sheet.width
                            && $0.y >= place.y - 1 && $0.y < place.y + sheet.height }
                        let word = try #require(candidates.first, "\(layout) start \(start): “\(expected)” is not on label \(i) at \(place)")
                        if layout.isSpine {
                            // Centred: the shelf mark's middle is the label's.
                            let line = words.filter { $0.page == word.page && abs($0.y - word.y) < 0.2 && $0.x >= place.x - 1 && $0.right <= place.x + sheet.width + 1 }
                            let middle = ((line.map(\.x).min() ?? word.x) + (line.map(\.right).max() ?? word.right)) / 2
                            #expect(abs(middle - (place.x + sheet.width / 2)) < 0.5, "\(layout): the shelf mark is centred at \(middle)")
                        } else {
                            #expect(abs(word.x - (place.x + LabelSheets.padding)) < 0.5, "\(layout) label \(i): the title starts at \(word.x), not \(place.x + LabelSheets.padding)")
                        }
                        #expect(abs(word.y - (place.y + 1.5)) < 0.5 || layout.isSpine, "\(layout) label \(i): the title's top is at \(word.y), not \(place.y + 1.5)")
                        #expect(word.right <= place.x + sheet.width - LabelSheets.padding + 0.3, "\(layout): the text leaves its label")
                    }
                    // The barcode of the first, a middle and the last label, read from the rendered sheet.
                    if !layout.isSpine {
                        for i in [0, 13, 25] {
                            let place = sheet.place(i, startAt: start, offsetX: dx, offsetY: dy)
                            let read = try Self.barcodes(pdf, page: place.page, x: place.x, y: place.y, width: sheet.width, height: sheet.height)
                            #expect(read == [barcodes[i]], "\(layout) label \(i): read \(read), printed \(barcodes[i])")
                        }
                    }
                }
            }
        }
    }

    /// Irish and Chinese titles and names come out whole on labels and cards; cards are read back by
    /// our barcode reader; ten cards a sheet; a class prints alone; who may print.
    @Test func cardsAndLabelsKeepEveryScriptAndOnlyStaffPrintThem() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let owner = Client(app: app, token: try await f.owner.post("/api/v1/tokens", ["name": "desk"]).string("token"))
            _ = try await f.addTitle("An Béal Bocht", authors: ["Myles na gCopaleen"], extra: ["location": "Seilf Á"])
            _ = try await f.addTitle("西游记", authors: ["吴承恩"], extra: ["location": "书架 3"])
            let (reply, pdf) = try await Self.download(owner, "\(f.lib)/print/labels.pdf")
            #expect(reply.status == .ok)
            let text = try Self.words(pdf).map(\.text).joined(separator: " ")
            for expected in ["Béal", "Bocht", "gCopaleen", "Seilf", "Á", "西游记", "吴承恩"] {
                #expect(text.contains(expected), "“\(expected)” is not on the labels: \(text)")
            }
            let (spineReply, spine) = try await Self.download(owner, "\(f.lib)/print/labels.pdf?layout=spine-70x16.9")
            #expect(spineReply.status == .ok)
            let spineText = try Self.words(spine).map(\.text).joined(separator: " ")
            #expect(spineText.contains("GCO") && spineText.contains("吴"), "\(spineText)")

            // Twelve members of 3A and one of 4B: 3A's cards take two sheets, in A4 and in Letter.
            for i in 1...12 {
                #expect(try await owner.post("\(f.lib)/members", ["cardId": String(format: "S%03d", i), "firstName": i == 1 ? "Seán" : "Kind\(i)",
                                                                  "lastName": i == 1 ? "Ó Briain" : "Drei", "grade": "3A"]).status == .created)
            }
            #expect(try await owner.post("\(f.lib)/members", ["cardId": "S100", "firstName": "小明", "lastName": "王", "grade": "4B"]).status == .created)
            for paper in ["a4", "letter"] {
                let (cardsReply, cards) = try await Self.download(owner, "\(f.lib)/print/cards.pdf?q=3A&paper=\(paper)")
                #expect(cardsReply.status == .ok && cardsReply.headers.first(name: "X-Item-Count") == "12")
                #expect(try Self.pageCount(cards) == 2)
                let words = try Self.words(cards)
                #expect(words.contains { $0.text == "Seán" } && words.contains { $0.text == "Briain" } && !words.contains { $0.text == "王小明" })
                // The first card: where the sheet puts it, its barcode read back.
                let sheet = CardLayout.sheet(paper == "a4" ? .a4 : .letter)
                let first = sheet.place(0)
                let read = try Self.barcodes(cards, page: 0, x: first.x, y: first.y, width: sheet.width, height: sheet.height)
                #expect(read.count == 1 && read.first.map { ["S001", "S002", "S003", "S004", "S005", "S006", "S007", "S008", "S009", "S010", "S011", "S012"].contains($0) } == true,
                        "\(read)")
                let name = try #require(words.first { $0.page == 0 && $0.x >= first.x && $0.x < first.x + sheet.width && $0.y >= first.y && $0.y < first.y + sheet.height
                    && $0.text != "Room" && $0.text != "12" })
                #expect(abs(name.x - (first.x + 4)) < 0.5, "the card's text starts at \(name.x)")
            }
            let (oneReply, one) = try await Self.download(owner, "\(f.lib)/print/cards.pdf?q=4B")
            let oneWords = try Self.words(one)
            #expect(oneReply.status == .ok && oneWords.contains { $0.text.contains("王小明") })

            // Bounds: a label past the sheet, an offset too large, an unknown sheet, a day that does not exist.
            for (query, field) in [("layout=avery-l7160&start=22", "start"), ("offsetX=11", "offsetX"), ("offsetY=abc", "offsetY"),
                                   ("offsetX=-1.7976931348623157e%2B308", "offsetX"), ("offsetY=1e308", "offsetY"),
                                   ("layout=a5", "layout"), ("since=2026-02-30", "since"), ("title=nope", "title")] {
                let refused = try await owner.get("\(f.lib)/print/labels.pdf?\(query)")
                #expect((400...422).contains(Int(refused.status.code)) && refused.errorField == field, "\(query): \(refused.status) \(refused.json)")
            }
            #expect(try await owner.get("\(f.lib)/print/labels.pdf?location=nowhere").errorCode == "nothing_to_print")
            #expect(try await owner.get("\(f.lib)/print/labels.png?page=2").status == .notFound)
            // Volunteers print; viewers and strangers do not.
            let volunteer = try await f.staff("vol", role: "volunteer")
            let volunteerCards = try await Self.download(volunteer, "\(f.lib)/print/cards.pdf")
            #expect(volunteerCards.0.status == .ok)
            let viewer = try await f.staff("view", role: "viewer")
            #expect(try await viewer.get("\(f.lib)/print/labels.pdf").status == .forbidden)
            #expect(try await viewer.get("\(f.lib)/print/cards.png").status == .forbidden)
            #expect(try await Client(app: app).get("\(f.lib)/print/labels.pdf").status == .unauthorized)
        }
    }

    /// The labels page: this week's new books at first, the count and one preview image a sheet (the
    /// PNG of the PDF's page), the PDF linked with the same options; a refusal in German next to its field.
    @Test func theLabelsPageShowsThisWeeksBooksAndPreviewsEverySheet() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            for i in 0..<3 {
                let old = try await f.addTitle("Old \(i)", extra: ["location": "A1"])
                try await (app.db as! any SQLDatabase).raw("UPDATE copies SET created_at = \(bind: Date().addingTimeInterval(-30 * 86_400)) WHERE title_id = \(bind: UUID(uuidString: old)!)").run()
            }
            for i in 0..<25 { _ = try await f.addTitle(String(format: "New %02d", i), extra: ["location": "B3"]) }
            var browser = Browser(app: app)
            browser.language = "de"
            _ = try await browser.get("/login")
            #expect(try await browser.post("/login", ["username": "owner", "password": "correct horse"]).status == .seeOther)
            let web = "/libraries/\(f.libraryID)"
            var page = try await browser.get("\(web)/labels")
            // 25 new copies this week: two L7160 sheets (21 a sheet); the old three are not in it.
            #expect(page.status == .ok && page.html.contains("Etiketten: 25 · Bögen: 2"), "\(page.html)")
            #expect(page.html.contains("<datalist id=\"f-locations\"><option value=\"A1\"></option><option value=\"B3\"></option></datalist>"))
            let previews = page.html.components(separatedBy: "<img src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&") }
                .filter { $0.contains("/print/") }
            #expect(previews.count == 2 && previews.allSatisfy { $0.contains("/print/labels.png?layout=avery-l7160&since=") })
            let preview = try await app.testing().sendRequest(.GET, previews[1], headers: ["Cookie": browser.cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")])
            #expect(preview.status == .ok && preview.headers.contentType == .png)
            let png = Data(buffer: preview.body)
            // An A4 page at 96 dpi: 794 × 1123 pixels.
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png[16..<24] == Data([0, 0, 3, 0x1A, 0, 0, 4, 0x63]))
            #expect(page.html.contains("/print/labels.pdf?layout=avery-l7160&amp;since="))
            // Everything on shelf A1 on spine labels from label 50: two sheets.
            page = try await browser.get("\(web)/labels?layout=spine-70x16.9&since=&location=A1&start=50&offsetX=0&offsetY=0")
            #expect(page.html.contains("Etiketten: 3 · Bögen: 2"), "\(page.html)")
            // An offset out of range: refused in German, next to its field, with what was typed.
            page = try await browser.get("\(web)/labels?layout=avery-5160&since=&location=&start=1&offsetX=12&offsetY=0")
            #expect(page.status == .unprocessableEntity && page.html.contains("field invalid") && page.html.contains("value=\"12\""))
            #expect(page.html.contains("Druckerversatz quer"), "\(page.html)")
            // Member cards: the class's count and its sheets.
            _ = try await f.addMember("S1", "Ada")
            page = try await browser.get("\(web)/members/cards?q=&paper=letter&start=10")
            #expect(page.status == .ok && page.html.contains("Ausweise: 1 · Bögen: 1") && page.html.contains("/print/cards.pdf?paper=letter&amp;start=10"))
        }
    }
}
