@testable import App
import CImaging
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Testing
import Vapor
import VaporTesting

/// Page photos (upload, straighten, markup, OCR, delete) and quotes, private to
/// their reader, on the API and the pages.
@Suite struct PhotoQuoteTests {
    static func upload(_ client: Client, _ path: String, _ data: Data, type: String = "image/png") async throws -> Client.Reply {
        var headers = HTTPHeaders()
        headers.bearerAuthorization = .init(token: client.token!)
        headers.replaceOrAdd(name: .contentType, value: type)
        let response = try await client.app.testing().sendRequest(.POST, path, headers: headers, body: ByteBuffer(data: data))
        return Client.Reply(status: response.status, body: response.body, headers: response.headers)
    }

    /// A page with printed words: leptonica's own bitmap font, enlarged so the letters are 40 px tall.
    static func printedPage(_ lines: [String]) throws -> Data {
        let pix = try #require(pixCreate(1000, Int32(60 + 40 * lines.count), 32))
        var page: UnsafeMutablePointer<PIX>? = pix
        defer { pixDestroy(&page) }
        pixSetAll(pix)
        var font: UnsafeMutablePointer<L_BMF>? = try #require(bmfCreate(nil, 20))
        defer { bmfDestroy(&font) }
        for (i, line) in lines.enumerated() {
            var width: Int32 = 0, overflow: Int32 = 0
            _ = pixSetTextline(pix, font, line, 0x0000_0000, 20, Int32(50 + 40 * i), &width, &overflow)
        }
        var big: UnsafeMutablePointer<PIX>? = try #require(pixScale(pix, 2, 2))
        defer { pixDestroy(&big) }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        #expect(pixWriteMemPng(&bytes, &size, big, 0) == 0)
        defer { lept_free(bytes) }
        return Data(bytes: bytes!, count: size)
    }

    @Test func photosAreStraightenedMarkedUpReadAndPrivate() async throws {
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            let titleID = try await f.addTitle("Momo", authors: ["Michael Ende"], extra: ["pageCount": 300])
            let png = try Self.printedPage(["TIME IS LIFE AND LIFE", "LIVES IN THE HEART"])
            let made = try await Self.upload(f.owner, "\(f.lib)/titles/\(titleID)/photos?page=157", png)
            #expect(made.status == .created, "\(made.json)")
            let photoID = made.string("id")
            #expect(made.string("page") == "157" && (made["width"] as? Int ?? 0) > 100)
            let image = try await f.owner.get("\(f.lib)/photos/\(photoID)/image")
            #expect(image.status == .ok && image.headers.contentType?.subType == "jpeg")
            #expect(try await f.owner.get("\(f.lib)/photos/\(photoID)/original").body.readableBytes == png.count)

            // Straighten by corners: a smaller page; bad corners are refused with the reason.
            let cropped = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/corners",
                                                 ["corners": [0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9]])
            #expect(cropped.status == .ok, "\(cropped.json)")
            #expect((cropped["width"] as? Int ?? 0) < (made["width"] as? Int ?? 0))
            let crossing = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/corners", ["corners": [0.1, 0.1, 0.9, 0.9, 0.9, 0.1, 0.1, 0.9]])
            #expect(crossing.status == .unprocessableEntity && crossing.errorField == "corners")
            let undone = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/corners", ["corners": NSNull()])
            #expect(undone["width"] as? Int == made["width"] as? Int && undone["corners"] == nil)

            // Markup: kept as strokes apart from the photo; hostile markup refused.
            let stroke: [String: Any] = ["tool": "highlighter", "color": "#ffeb3b", "width": 0.02, "points": [0.1, 0.5, 0.8, 0.5]]
            let marked = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/markup", ["strokes": [stroke]])
            #expect(((marked["markup"] as? [String: Any])?["strokes"] as? [Any])?.count == 1)
            let script = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/markup",
                                                ["strokes": [["tool": "pen", "color": "red\"/><script>", "width": 0.01, "points": [0, 0, 1, 1]]]])
            #expect(script.status == .unprocessableEntity)
            // A pencil's line and a ruler's (a stroke of two points) are kept; a tool there is none of is refused.
            let pencil: [String: Any] = ["tool": "pencil", "color": "#1565c0", "width": 0.002, "points": [0.1, 0.2, 0.3, 0.25, 0.5, 0.2]]
            let ruled: [String: Any] = ["tool": "pen", "color": "#212121", "width": 0.004, "points": [0.1, 0.9, 0.9, 0.9]]
            let drawn = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/markup", ["strokes": [pencil, ruled]])
            #expect(((drawn["markup"] as? [String: Any])?["strokes"] as? [[String: Any]])?.map { $0["tool"] as? String } == ["pencil", "pen"])
            let brush = try await f.owner.send(.PUT, "\(f.lib)/photos/\(photoID)/markup",
                                               ["strokes": [["tool": "brush", "color": "#000000", "width": 0.01, "points": [0, 0, 1, 1]]]])
            #expect(brush.status == .unprocessableEntity && brush.errorField == "markup")

            // A page lying on a desk is straightened at its edges on upload; undoing the crop gives the whole photo.
            let desk = PageImage.syntheticPhoto(width: 1000, height: 750)
            let onDesk = try await Self.upload(f.owner, "\(f.lib)/titles/\(titleID)/photos", desk)
            #expect(onDesk.status == .created, "\(onDesk.json)")
            let deskCorners = try #require(onDesk["corners"] as? [Double])
            #expect(deskCorners.count == 8 && deskCorners[0] > 0.05 && deskCorners[4] < 0.95, "\(deskCorners)")
            #expect((onDesk["width"] as? Int ?? 0) < 800 && (onDesk["height"] as? Int ?? 0) < 650, "\(onDesk.json)")
            let whole = try await f.owner.send(.PUT, "\(f.lib)/photos/\(onDesk.string("id"))/corners", ["corners": NSNull()])
            #expect(whole["width"] as? Int == 1000 && whole["height"] as? Int == 750 && whole["corners"] == nil)
            // A photo that is all page (the printed one above) was left as it was.
            #expect(made["corners"] == nil)

            // OCR: the words printed on the page.
            let text = try await f.owner.post("\(f.lib)/photos/\(photoID)/text")
            #expect(text.status == .ok)
            #expect(text.string("text").uppercased().contains("HEART"), "\(text.string("text"))")

            // A quote from it, and by hand; found by words across books.
            let quote = try await f.owner.post("\(f.lib)/quotes", ["titleId": titleID, "text": "Zeit ist Leben, und das Leben wohnt im Herzen.",
                                                                   "page": "157", "photoId": photoID, "note": "Meister Hora"])
            #expect(quote.status == .created, "\(quote.json)")
            #expect(try await f.owner.post("\(f.lib)/quotes", ["titleId": titleID, "text": "   "]).status == .unprocessableEntity)
            let found = try await f.owner.get("\(f.lib)/quotes?q=herzen")
            #expect((found["items"] as? [[String: Any]])?.count == 1 && found["total"] as? Int == 1)
            #expect(try await f.owner.get("\(f.lib)/quotes?q=hora")["total"] as? Int == 1)
            #expect(try await f.owner.get("\(f.lib)/quotes?q=bastian")["total"] as? Int == 0)
            // Chinese writes no spaces: a word from inside the quote finds it.
            let chinese = try await f.owner.post("\(f.lib)/quotes", ["titleId": titleID, "text": "时间就是生命"])
            #expect(chinese.status == .created)
            #expect(try await f.owner.get("\(f.lib)/quotes?q=\("生命".addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)")["total"] as? Int == 1)
            #expect(try await f.owner.delete("\(f.lib)/quotes/\(chinese.string("id"))").status == .noContent)

            // Private: another account sees neither.
            let other = try await f.staff("lena", role: "librarian")
            #expect(try await other.get("\(f.lib)/photos/\(photoID)").status == .notFound)
            #expect(try await other.get("\(f.lib)/photos/\(photoID)/original").status == .notFound)
            #expect(try await other.get("\(f.lib)/quotes")["total"] as? Int == 0)
            #expect(try await other.delete("\(f.lib)/quotes/\(quote.string("id"))").status == .notFound)

            // Not an image, or too large.
            let notImage = try await Self.upload(f.owner, "\(f.lib)/titles/\(titleID)/photos", Data("<svg onload=alert(1)>".utf8), type: "image/svg+xml")
            #expect(notImage.status == .unprocessableEntity && notImage.errorCode == "invalid_image")
            let huge = try await Self.upload(f.owner, "\(f.lib)/titles/\(titleID)/photos", Data(count: PagePhotos.maxBytes + 100_000), type: "image/jpeg")
            // (The real server stops the body at its bound, 413; the in-memory test server passes it on to the check.)
            #expect(huge.status == .payloadTooLarge || (huge.status == .unprocessableEntity && huge.errorMessage?.contains("MB") == true))

            // Deleting the photo keeps its quote.
            #expect(try await f.owner.delete("\(f.lib)/photos/\(photoID)").status == .noContent)
            #expect(try await f.owner.get("\(f.lib)/photos/\(photoID)").status == .notFound)
            #expect(try await f.owner.get("\(f.lib)/quotes")["total"] as? Int == 1)
        }
    }

    @Test func thePhotoAndQuotePages() async throws {
        try await withTestApp { app in
            var browser = Browser(app: app)
            let catalog = try await browser.setUp()
            let lib = String(catalog.dropLast("/catalog".count))
            let libraryID = String(lib.split(separator: "/")[1])
            let api = Client(app: app, token: browser.cookies[Credential.cookieName])
            let titleID = try await api.post("/api/v1/libraries/\(libraryID)/titles", ["title": "Momo", "copies": 1]).string("id")
            let book = "\(lib)/titles/\(titleID)"
            let page = try await browser.get(book)
            #expect(page.html.contains("capture=\"environment\"") && page.html.contains("accept=\"image/*\""))
            #expect(page.html.contains("id=\"quotes\""))

            let png = try BarcodeRenderer.render(.isbn, "9780306406157", scale: 4).png
            let uploaded = try await browser.upload(book + "/photos", file: (field: "photo", name: "page.png", data: png), fields: ["page": "12"])
            #expect(uploaded.status == .seeOther)
            let photoPath = try #require(uploaded.location)
            let photoPage = try await browser.get(photoPath)
            #expect(photoPage.html.contains("data-zoom") && photoPage.html.contains("data-crop=\"f-corners\"") && photoPage.html.contains("data-markup"))
            #expect(photoPage.html.contains("Page 12"))
            _ = try await browser.post(photoPath + "/corners", ["corners": "0.05,0.05,0.95,0.05,0.95,0.95,0.05,0.95"])
            #expect(try await browser.get(photoPath).html.contains("Page straightened."))
            _ = try await browser.post(photoPath + "/corners", ["corners": "1,2,3"])
            #expect(try await browser.get(photoPath).html.contains("clockwise"))
            let ocr = try await browser.post(photoPath + "/quote", [:])
            #expect(ocr.status == .ok && ocr.html.contains("name=\"photoId\""))
            let saved = try await browser.post(lib + "/reading/quotes", ["titleId": titleID, "text": "Eine Seite aus Momo", "page": "12"])
            #expect(saved.status == .seeOther)
            let quotes = try await browser.get(lib + "/reading/quotes?q=momo")
            #expect(quotes.html.contains("Eine Seite aus Momo"))
            let bad = try await browser.upload(book + "/photos", file: (field: "photo", name: "x.txt", data: Data("hello".utf8)))
            #expect(bad.status == .seeOther && bad.location == book + "#photos")
        }
    }
}
