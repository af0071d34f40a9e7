import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Testing
import Vapor
import VaporTesting
@testable import App

/// Label sheets and member cards (issue 26, F4): PDFs read back with poppler — every label's text where
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
}
