import CImaging
import Foundation
@testable import ShelfmarkImaging
import Testing

/// Degradations a phone camera adds: what we draw must still read after them.
enum Degrade {
    static func bitmap(_ png: Data) throws -> Bitmap { try Bitmap.decodeGray(png) }

    /// Blur: down to a fraction and back up (loses the sharp edges).
    static func blur(_ p: Bitmap, _ factor: Double) -> Bitmap? { p.scaled(factor)?.scaled(1 / factor) }

    /// Deterministic noise of ± amplitude on every pixel.
    static func noise(_ p: Bitmap, amplitude: Int, seed: UInt64 = 42) -> Bitmap? {
        var state = seed
        var bytes = p.packedGray()
        for i in bytes.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let delta = Int((state >> 33) % UInt64(2 * amplitude + 1)) - amplitude
            bytes[i] = UInt8(clamping: Int(bytes[i]) + delta)
        }
        return Bitmap.fromGray(width: p.width, height: p.height, pixels: bytes)
    }

    /// Low contrast, as under poor light: greys between 90 and 170.
    static func lowContrast(_ p: Bitmap) -> Bitmap? {
        let bytes = p.packedGray().map { UInt8(90 + Int($0) * 80 / 255) }
        return Bitmap.fromGray(width: p.width, height: p.height, pixels: bytes)
    }

    /// Placed small, off-centre in a larger grey "photo".
    static func embedded(_ p: Bitmap, canvas: (Int, Int), at origin: (Int, Int)) -> Bitmap? {
        var canvasBytes = [UInt8](repeating: 160, count: canvas.0 * canvas.1)
        let src = p.packedGray()
        for y in 0..<p.height where y + origin.1 < canvas.1 {
            for x in 0..<p.width where x + origin.0 < canvas.0 {
                canvasBytes[(y + origin.1) * canvas.0 + x + origin.0] = src[y * p.width + x]
            }
        }
        return Bitmap.fromGray(width: canvas.0, height: canvas.1, pixels: canvasBytes)
    }
}

@Suite struct ImageInputTests {
    @Test func emptyAndNonImagesAreRefusedWithAReason() {
        #expect(throws: ImageError.empty) { try BarcodeReader().read(Data()) }
        #expect(throws: ImageError.notAnImage) { try BarcodeReader().read(Data("hello, world".utf8)) }
        #expect(throws: ImageError.notAnImage) { try BarcodeReader().read(Data(repeating: 0, count: 5000)) }
    }

    @Test func truncatedFilesAreRefusedNotGuessed() throws {
        let png = try BarcodeRenderer.render(.isbn, "9780306406157").png
        #expect(throws: ImageError.truncated("PNG")) { try BarcodeReader().read(png.prefix(png.count / 2)) }
        // A JPEG that stops half way (no end-of-image marker).
        let jpegHead = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00]) + Data(repeating: 0x55, count: 3000)
        #expect(throws: ImageError.truncated("JPEG")) { try BarcodeReader().read(jpegHead) }
        // A whole header with garbage after it.
        var garbage = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + Data(repeating: 7, count: 100)
        garbage += Data("IEND".utf8) + Data(repeating: 0, count: 4)
        #expect(throws: ImageError.undecodable("PNG")) { try BarcodeReader().read(garbage) }
    }

    @Test(arguments: [(1, 1), (3, 2), (2, 900), (900, 2)])
    func tinyAndOddlyShapedImagesReadAsNothingWithoutCrashing(size: (Int, Int)) throws {
        let png = PNG.gray(width: size.0, height: size.1, pixels: [UInt8](repeating: 128, count: size.0 * size.1))
        #expect(try BarcodeReader().read(png).barcodes.isEmpty)
        #expect(try TextReader.shared.read(png).isbns.isEmpty)
    }

    @Test func anImageWithoutCodesReadsAsNothing() throws {
        let flat = try #require(Bitmap.fromGray(width: 300, height: 200, pixels: [UInt8](repeating: 200, count: 60_000)))
        let noisy = try #require(Degrade.noise(flat, amplitude: 60))
        #expect(BarcodeReader().read(noisy).barcodes.isEmpty)
    }
}

@Suite struct RoundTripTests {
    @Test(arguments: ["9780306406157", "978-3-16-148410-0", "979-10-90636-07-1"])
    func anISBNWeDrawReadsBackAsThatISBN(_ isbn: String) throws {
        let out = try BarcodeRenderer.render(.isbn, isbn)
        let result = try BarcodeReader().read(out.png)
        let code = try #require(result.barcodes.first)
        let digits = isbn.filter(\.isNumber)
        #expect(code.symbology == .ean13)
        #expect(code.text == digits)
        #expect(code.isbn == digits)
        #expect(out.svg.hasPrefix("<svg"))
        #expect(out.svg.contains(">\(digits.prefix(1))<") || out.svg.contains(String(digits.dropFirst().prefix(6))))  // human-readable digits
    }

    @Test(arguments: ["C000042", "S12345", "Room 12/Shelf-B"])
    func aCode128LabelReadsBack(_ text: String) throws {
        let out = try BarcodeRenderer.render(.code128, text)
        let code = try #require(try BarcodeReader().read(out.png).barcodes.first)
        #expect(code.symbology == .code128)
        #expect(code.text == text)
        #expect(code.isbn == nil)
        #expect(out.svg.contains(text.replacingOccurrences(of: "/", with: "/")))
    }

    /// Older library labels carry the ISBN in Code 39 or Code 128: taken as the book's ISBN when it says
    /// "ISBN" or its ranges are assigned; a copy number that only passes the check digit is not.
    @Test func anISBNOnAnOldLibraryLabelIsTakenAsTheISBN() throws {
        let out = try BarcodeRenderer.render(.code128, "0306406152")
        let code = try #require(try BarcodeReader().read(out.png).barcodes.first)
        #expect(code.symbology == .code128 && code.text == "0306406152" && code.isbn == "9780306406157")
        #expect(Barcode(symbology: .code39, text: "ISBN 0-306-40615-2").isbn == "9780306406157")
        #expect(Barcode(symbology: .code39, text: "9780306406157").isbn == "9780306406157")
        #expect(Barcode(symbology: .code39, text: "030640615X").isbn == nil, "a wrong check digit")
        // Group 978-69… is not assigned: a 10-digit copy number with a valid check digit (6900000002) is no book.
        #expect(Barcode(symbology: .code39, text: "6900000002").isbn == nil)
        #expect(Barcode(symbology: .codabar, text: "0306406152").isbn == nil, "Codabar is a library's own card or copy code")
    }

    @Test func aShelfQRCodeReadsBack() throws {
        let text = "shelfmark:shelf:Room 12 — Fiction A–F"
        let out = try BarcodeRenderer.render(.qr, text)
        let code = try #require(try BarcodeReader().read(out.png).barcodes.first)
        #expect(code.symbology == .qr)
        #expect(code.text == text)
        #expect(out.svg.contains("viewBox"))
    }

    @Test func degradedRendersStillReadAndNeverMisread() throws {
        let isbn = "9780316452502"
        let base = try Degrade.bitmap(try BarcodeRenderer.render(.isbn, isbn, scale: 2).png)
        let variants: [(String, Bitmap?)] = [
            ("rotated 7°", base.rotated(degrees: 7)),
            ("rotated -12°", base.rotated(degrees: -12)),
            ("rotated 90°", base.quarterTurned()),
            ("upside down", base.quarterTurned()?.quarterTurned()),
            ("rotated 35°", base.rotated(degrees: 35)),
            ("blurred", Degrade.blur(base, 0.5)),
            ("noisy", Degrade.noise(base, amplitude: 50)),
            ("low contrast", Degrade.lowContrast(base)),
            ("scaled down", base.scaled(0.7)),
            ("small in a large photo", Degrade.embedded(base, canvas: (1600, 1200), at: (900, 700))),
            ("blurred, noisy and tilted", Degrade.blur(base, 0.6).flatMap { Degrade.noise($0, amplitude: 30) }?.rotated(degrees: 4)),
        ]
        for (name, pix) in variants {
            let p = try #require(pix, "\(name): degradation failed")
            let codes = BarcodeReader().read(p).barcodes
            #expect(codes.map(\.text) == [isbn], "\(name): read \(codes)")
        }
    }

    @Test func theAddOnOfABookBarcodeIsReportedWithIt() throws {
        // zint draws an EAN-13 with a 5-digit add-on from "ISBN+ADDON".
        let out = try BarcodeRenderer.renderForTesting(addOnOf: "9780306406157", addOn: "51299")
        let code = try #require(try BarcodeReader().read(out).barcodes.first)
        #expect(code.text == "9780306406157")
        #expect(code.addOn == "51299")
    }

    @Test func badInputToTheRendererIsRefused() {
        #expect(throws: BarcodeRenderer.Failure.self) { try BarcodeRenderer.render(.isbn, "9780306406158") }
        #expect(throws: BarcodeRenderer.Failure.self) { try BarcodeRenderer.render(.code128, "Bücher") }
        #expect(throws: BarcodeRenderer.Failure.self) { try BarcodeRenderer.render(.qr, "") }
        #expect(throws: BarcodeRenderer.Failure.tooLong(201)) { try BarcodeRenderer.render(.qr, String(repeating: "x", count: 201)) }
    }
}

@Suite struct TextReaderTests {
    @Test func printedISBNsAreFoundInTheTextOfAPhoto() throws {
        let page = try #require(Bitmap.text([
            "Signals and Shelves",
            "Call us: +353 1 234 5678  Price 12.99",
            "ISBN 978-0-306-40615-7",
        ]))
        let result = try TextReader.shared.read(page)
        #expect(result.text.contains("Signals"))
        #expect(result.isbns.map(\.isbn13) == ["9780306406157"])
        // The phone number and the price are not ISBNs.
        let noISBN = try TextReader.shared.read(try #require(Bitmap.text(["Call 0306 406152 today", "Only 9.99"])))
        #expect(noISBN.isbns.isEmpty)
    }

    // MARK: - Belief: one family for EAN-13 and UPC-A, two looks, a disagreement is nothing

    typealias Read = BarcodeReader.Read
    typealias Evidence = BarcodeReader.Evidence

    @Test func aUPCAndTheSameDigitsAsAnEANAreOneRead() {
        // zbar names the UPC-A; the profile reader reads the same bars as the EAN-13 "0" + its digits.
        let evidence: [Read: Evidence] = [
            Read(symbology: .upcA, text: "036602301467"): Evidence(quality: 5, looks: [0]),
            Read(symbology: .ean13, text: "0036602301467"): Evidence(quality: 3, looks: [BarcodeReader.profileLook]),
        ]
        #expect(BarcodeReader.accept(evidence) == [Barcode(symbology: .upcA, text: "036602301467")])
    }

    @Test func aUPCBesideAWrongEANReadsAsNothing() {
        // What the issue measured on US paperbacks: the right UPC-A and a wrong 13-digit EAN with a
        // valid check digit from the same bars. Before, both were believed and the EAN answered first.
        let evidence: [Read: Evidence] = [
            Read(symbology: .upcA, text: "024543136538"): Evidence(quality: 8, looks: [0, 1]),
            Read(symbology: .ean13, text: "4075534136538"): Evidence(quality: 6, looks: [0, 2]),
        ]
        #expect(BarcodeReader.accept(evidence).isEmpty)
        // A one-look rival on one line is outweighed by a value read in two looks on many lines.
        let weak: [Read: Evidence] = [
            Read(symbology: .upcA, text: "024543136538"): Evidence(quality: 12, looks: [0, 1]),
            Read(symbology: .ean13, text: "4075534136538"): Evidence(quality: 1, looks: [1]),
        ]
        #expect(BarcodeReader.accept(weak).map(\.text) == ["024543136538"])
    }

    @Test func manyLinesOfOneLookAreNotTwoLooks() {
        // zbar read a blurred EAN wrongly on 31 adjacent lines of one frame (ean13-1/37 as a 1280×720
        // frame): lines of one image are not independent evidence.
        let evidence: [Read: Evidence] = [Read(symbology: .ean13, text: "2041813002834"): Evidence(quality: 31, looks: [0])]
        #expect(BarcodeReader.accept(evidence).isEmpty)
        // Two looks that agree: believed.
        let agreed: [Read: Evidence] = [Read(symbology: .ean13, text: "5000213002834"): Evidence(quality: 9, looks: [0, 3])]
        #expect(BarcodeReader.accept(agreed).map(\.text) == ["5000213002834"])
    }

    @Test func partOfAUPCReadAsAnEAN8IsARival() {
        // A UPC-A's bars, part of them read as a valid EAN-8 in two looks: neither is believed.
        let both: [Read: Evidence] = [
            Read(symbology: .upcA, text: "012546619592"): Evidence(quality: 10, looks: [0, 1]),
            Read(symbology: .ean8, text: "02212166"): Evidence(quality: 4, looks: [1, 2]),
        ]
        #expect(BarcodeReader.accept(both).isEmpty)
        // A one-look EAN-8 beside a UPC-A of many lines and looks: the UPC-A.
        let weak: [Read: Evidence] = [
            Read(symbology: .upcA, text: "012546619592"): Evidence(quality: 10, looks: [0, 1]),
            Read(symbology: .ean8, text: "02212166"): Evidence(quality: 3, looks: [2]),
        ]
        #expect(BarcodeReader.accept(weak).map(\.text) == ["012546619592"])
        // A small UPC-E beside a product's UPC-A (upca-5/27), outweighed three to one: the UPC-A alone.
        let small: [Read: Evidence] = [
            Read(symbology: .upcA, text: "625034201058"): Evidence(quality: 167, looks: [0, 1, 2, 8, 11]),
            Read(symbology: .upcE, text: "00870340"): Evidence(quality: 26, looks: [0, 1, 5]),
        ]
        #expect(BarcodeReader.accept(small).map(\.text) == ["625034201058"])
        // A library's Code 39 label beside a book's EAN-13 is no rival: both are read.
        let label: [Read: Evidence] = [
            Read(symbology: .ean13, text: "9780306406157"): Evidence(quality: 10, looks: [0, 1]),
            Read(symbology: .code39, text: "C000042"): Evidence(quality: 6, looks: [0, 2]),
        ]
        #expect(BarcodeReader.accept(label).map(\.text) == ["9780306406157", "C000042"])
    }

    @Test func theSamePixelsPreparedTwiceAreOneLook() throws {
        // zbar read this blurred UPC-A's left half wrongly in the image and in it sharpened (made by
        // scripts/make-hard-barcodes.py: tilt, perspective, blur, glare, JPEG 37): one look, not two.
        let evidence: [Read: Evidence] = [Read(symbology: .ean13, text: "6012814437204"): Evidence(quality: 12, looks: [0])]
        #expect(BarcodeReader.accept(evidence).isEmpty)
    }

    @Test func aShortCodeNeedsTwoSamplingsOfItsBarsAndNoRival() throws {
        let upcE = Read(symbology: .upcE, text: "01127461")
        // The working image and it under local contrast: the same pixels, one sampling.
        #expect(BarcodeReader.accept([upcE: Evidence(quality: 13, looks: [0, 11])]).isEmpty)
        // Another scale samples the bars anew: believed.
        #expect(BarcodeReader.accept([upcE: Evidence(quality: 13, looks: [0, 2])]).map(\.text) == ["01127461"])
        // Any other value of the kind read at all, even once and faintly: nothing.
        let rival = Read(symbology: .upcE, text: "01195460")
        #expect(BarcodeReader.accept([upcE: Evidence(quality: 19, looks: [0, 5, 11]), rival: Evidence(quality: 4, looks: [2])]).isEmpty)
        // A 13-digit EAN with the same evidence is believed: its rival is outweighed three to one.
        let ean = Read(symbology: .ean13, text: "9780306406157"), other = Read(symbology: .ean13, text: "9780306406164")
        #expect(BarcodeReader.accept([ean: Evidence(quality: 19, looks: [0, 5, 11]), other: Evidence(quality: 4, looks: [2])]).map(\.text) == ["9780306406157"])
    }

    @Test func aRenderedCodeReadsAsALiveFrame() throws {
        // A printed book barcode as the camera sees it: small in a 1280×720 frame, a little blurred.
        let png = try BarcodeRenderer.render(.isbn, "9780306406157").png
        let code = try #require(Degrade.blur(try Degrade.bitmap(png), 0.7))
        let frame = try #require(Degrade.embedded(code, canvas: (1280, 720), at: (420, 260)))
        let jpeg = try #require(frame.jpeg(quality: 80))
        #expect(try BarcodeReader().readFrame(jpeg).barcodes.map(\.text) == ["9780306406157"])
        // A frame with no code: nothing, quickly.
        let empty = try #require(Bitmap.fromGray(width: 1280, height: 720, pixels: [UInt8](repeating: 128, count: 1280 * 720))?.jpeg(quality: 80))
        #expect(try BarcodeReader().readFrame(empty).barcodes.isEmpty)
    }
}
