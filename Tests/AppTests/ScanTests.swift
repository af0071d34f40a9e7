@testable import App
import Foundation
@testable import ShelfmarkImaging
import Testing
import Vapor

private func post(_ f: Fixture, _ path: String = "/api/v1/scan", body: Data, contentType: String) async throws -> Client.Reply {
    var headers = HTTPHeaders()
    headers.bearerAuthorization = .init(token: f.owner.token!)
    headers.replaceOrAdd(name: .contentType, value: contentType)
    let response = try await f.app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(data: body))
    return Client.Reply(status: response.status, body: response.body, headers: response.headers)
}

private func multipart(_ data: Data, field: String, boundary: String = "shelfmark-boundary") -> (Data, String) {
    var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(field)\"; filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
    body += data
    body += Data("\r\n--\(boundary)--\r\n".utf8)
    return (body, "multipart/form-data; boundary=\(boundary)")
}

@Suite struct ScanAPITests {
    @Test func aBookBarcodePhotoAnswersItsISBN() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let png = try BarcodeRenderer.render(.isbn, "9780306406157").png
            let raw = try await post(f, body: png, contentType: "image/png")
            #expect(raw.status == .ok, "\(raw.json)")
            #expect(raw["found"] as? Bool == true)
            let isbn = try #require(raw["isbn"] as? [String: Any])
            #expect(isbn["isbn13"] as? String == "9780306406157")
            #expect(isbn["hyphenated"] as? String == "978-0-306-40615-7")
            let code = try #require((raw["barcodes"] as? [[String: Any]])?.first)
            #expect(code["symbology"] as? String == "EAN-13")
            #expect(raw["ocr"] == nil)  // a code was found: no text recognition

            let (form, type) = multipart(png, field: "image")
            let viaForm = try await post(f, body: form, contentType: type)
            #expect((viaForm["isbn"] as? [String: Any])?["isbn13"] as? String == "9780306406157")
            let (wrongField, type2) = multipart(png, field: "picture")
            let missing = try await post(f, body: wrongField, contentType: type2)
            #expect(missing.status == .unprocessableEntity)
            #expect(missing.errorField == "image")
        }
    }

    @Test func withoutABarcodeTheTextIsReadForISBNs() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let page = try #require(Bitmap.text(["The back cover of a book", "ISBN 978-0-306-40615-7"]))
            let png = PNG.gray(width: page.width, height: page.height, pixels: page.packedGray())
            let reply = try await post(f, body: png, contentType: "image/png")
            #expect(reply.status == .ok)
            #expect((reply["barcodes"] as? [Any])?.isEmpty == true)
            let ocr = try #require(reply["ocr"] as? [String: Any], "\(reply.json)")
            #expect((ocr["text"] as? String)?.contains("back cover") == true)
            #expect(((ocr["isbns"] as? [[String: Any]])?.first)?["isbn13"] as? String == "9780306406157")
            #expect((reply["isbn"] as? [String: Any])?["isbn13"] as? String == "9780306406157")

            let blank = PNG.gray(width: 200, height: 100, pixels: [UInt8](repeating: 255, count: 20_000))
            let nothing = try await post(f, body: blank, contentType: "image/png")
            #expect(nothing.status == .ok)
            #expect(nothing["found"] as? Bool == false)
            #expect(nothing.string("message").contains("closer"))
            let noOCR = try await post(f, "/api/v1/scan?ocr=false", body: png, contentType: "image/png")
            #expect(noOCR["ocr"] == nil)
            #expect(noOCR["found"] as? Bool == false)
            // A live frame never reads text: the printed ISBN is not a code in view.
            let liveText = try await post(f, "/api/v1/scan?live=true", body: png, contentType: "image/png")
            #expect(liveText["ocr"] == nil)
            #expect(liveText["found"] as? Bool == false)
        }
    }

    @Test func aLiveFrameIsOneQuickLookThatReadsTheCodeInView() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let code = try Bitmap.decodeGray(try BarcodeRenderer.render(.isbn, "9780306406157").png)
            var canvas = [UInt8](repeating: 170, count: 1280 * 720)
            let src = code.packedGray()
            for y in 0..<code.height { for x in 0..<code.width { canvas[(y + 200) * 1280 + x + 400] = src[y * code.width + x] } }
            let frame = try #require(Bitmap.fromGray(width: 1280, height: 720, pixels: canvas)?.jpeg(quality: 80))
            let reply = try await post(f, "/api/v1/scan?live=true", body: frame, contentType: "image/jpeg")
            #expect(reply.status == .ok)
            #expect((reply["isbn"] as? [String: Any])?["isbn13"] as? String == "9780306406157")
            #expect(reply["width"] as? Int == 1280)
        }
    }

    @Test func badUploadsGetAClear4xxNeverA500() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let png = try BarcodeRenderer.render(.isbn, "9780306406157").png
            let empty = try await post(f, body: Data(), contentType: "image/jpeg")
            #expect(empty.status == .badRequest)
            #expect(empty.errorMessage?.contains("empty") == true)
            let text = try await post(f, body: Data("not a photo at all".utf8), contentType: "image/jpeg")
            #expect(text.status == .unsupportedMediaType)
            #expect(text.errorMessage?.contains("not a photo") == true)
            let truncated = try await post(f, body: png.prefix(png.count / 2), contentType: "image/png")
            #expect(truncated.status == .unprocessableEntity)
            #expect(truncated.errorMessage?.contains("cut short") == true)
            var jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x41, count: 4000)
            let cutJPEG = try await post(f, body: jpeg, contentType: "image/jpeg")
            #expect(cutJPEG.status == .unprocessableEntity)
            jpeg += Data([0xFF, 0xD9])
            let brokenJPEG = try await post(f, body: jpeg, contentType: "image/jpeg")
            #expect(brokenJPEG.status == .unprocessableEntity)
            let huge = try await post(f, body: Data(repeating: 0xFF, count: 50 << 20), contentType: "image/jpeg")
            #expect(huge.status == .payloadTooLarge)
            #expect(huge.errorCode == "too_large")
            #expect(huge.errorMessage?.contains("10 MB") == true)
        }
    }

    @Test func labelsCardsAndShelfCodesAreDrawnAndReadBack() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", isbn: "9783522202602")
            let detail = try await f.owner.get("\(f.lib)/titles/\(titleID)")
            let copy = try #require((detail["copies"] as? [[String: Any]])?.first)
            let copyID = try #require(copy["id"] as? String)
            let barcode = try #require(copy["barcode"] as? String)

            let svg = try await f.owner.get("\(f.lib)/copies/\(copyID)/barcode.svg")
            #expect(svg.status == .ok)
            #expect(svg.headers.first(name: .contentType)?.hasPrefix("image/svg+xml") == true)
            #expect(String(buffer: svg.body).contains(barcode))
            let png = try await f.owner.get("\(f.lib)/copies/\(copyID)/barcode.png")
            #expect(try BarcodeReader().read(Data(buffer: png.body)).barcodes.first?.text == barcode)

            let memberID = try await f.addMember("S12345", "Ada", "Lovelace")
            let card = try await f.owner.get("\(f.lib)/members/\(memberID)/barcode.png")
            #expect(try BarcodeReader().read(Data(buffer: card.body)).barcodes.first?.text == "S12345")

            let book = try await f.owner.get("\(f.lib)/titles/\(titleID)/barcode.png")
            #expect(try BarcodeReader().read(Data(buffer: book.body)).barcodes.first?.isbn == "9783522202602")
            let noISBN = try await f.addTitle("Handwritten notes")
            let missing = try await f.owner.get("\(f.lib)/titles/\(noISBN)/barcode.svg")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "no_isbn")

            let shelf = try await f.owner.get("\(f.lib)/shelves/qr.png?location=Fiction%20A%E2%80%93F")
            let shelfCode = try BarcodeReader().read(Data(buffer: shelf.body)).barcodes.first
            #expect(shelfCode?.text == "shelfmark:shelf:Fiction A–F", "\(String(describing: shelfCode)) \(shelf.status) \(shelf.json)")
            let noShelf = try await f.owner.get("\(f.lib)/shelves/qr.svg")
            #expect(noShelf.status == .unprocessableEntity)
            #expect(noShelf.errorField == "location")
        }
    }
}

@Suite struct ScanCommandTests {
    @Test func scanPrintsOneTabSeparatedLinePerFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let book = dir.appendingPathComponent("book.png").path
        let card = dir.appendingPathComponent("card.png").path
        let blank = dir.appendingPathComponent("blank.png").path
        let notes = dir.appendingPathComponent("notes.txt").path
        try BarcodeRenderer.render(.isbn, "9780306406157").png.write(to: URL(fileURLWithPath: book))
        try BarcodeRenderer.render(.code128, "S12345").png.write(to: URL(fileURLWithPath: card))
        try PNG.gray(width: 50, height: 50, pixels: [UInt8](repeating: 255, count: 2500)).write(to: URL(fileURLWithPath: blank))
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notes))
        var lines: [String] = []
        let status = ScanCheck.run([book, card, blank, notes, dir.appendingPathComponent("missing.png").path]) { lines.append($0) }
        #expect(lines.count == 5)
        #expect(lines[0] == "\(book)\tEAN-13\t9780306406157")
        #expect(lines[1] == "\(card)\tCode 128\tS12345")
        #expect(lines[2] == "\(blank)\tnone")
        #expect(lines[3].hasPrefix("\(notes)\terror\tThis is not an image"))
        #expect(lines[4].hasPrefix("\(dir.path)/missing.png\terror\tcannot read the file"))
        #expect(status == 1)
        var timed: [String] = []
        _ = ScanCheck.run(["--timing", book]) { timed.append($0) }
        #expect(timed.first?.split(separator: "\t").count == 4)
    }
}
