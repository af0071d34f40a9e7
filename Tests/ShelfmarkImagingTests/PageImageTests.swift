import CImaging
import Foundation
@testable import ShelfmarkImaging
import Testing

/// A photographed page is straightened by its corners with a projective transform.
@Suite struct PageImageTests {
    /// A white 800×600 photo with a dark, tilted quadrilateral (the "page") and a light square in
    /// the page's top-left area, as PNG (or JPEG).
    static func photo(quad: [(Double, Double)], jpeg: Bool = false) throws -> Data {
        let w = 800, h = 600
        var pixels = [UInt8](repeating: 250, count: w * h)
        func inside(_ x: Double, _ y: Double) -> Bool {
            for i in 0..<4 {
                let a = quad[i], b = quad[(i + 1) % 4]
                if (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0) < 0 { return false }
            }
            return true
        }
        for y in 0..<h { for x in 0..<w where inside(Double(x), Double(y)) { pixels[y * w + x] = 20 } }
        let bitmap = try #require(Bitmap.fromGray(width: w, height: h, pixels: pixels))
        if jpeg { return try #require(bitmap.jpeg(quality: 90)) }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        #expect(pixWriteMemPng(&bytes, &size, bitmap.pointer, 0) == 0)
        defer { lept_free(bytes) }
        return Data(bytes: bytes!, count: size)
    }

    /// The share of dark pixels in a JPEG.
    static func darkShare(_ jpeg: Data) throws -> Double {
        let gray = try Bitmap.decodeGray(jpeg)
        let pixels = gray.packedGray()
        return Double(pixels.filter { $0 < 100 }.count) / Double(pixels.count)
    }

    @Test func theCornersStraightenThePage() throws {
        let quad = [(200.0, 100.0), (650.0, 160.0), (600.0, 520.0), (150.0, 450.0)]   // clockwise on screen
        let data = try Self.photo(quad: quad)
        // Uncropped: the page is about a third of the photo.
        let whole = try PageImage.process(data, straighten: .none)
        #expect(whole.width == 800 && whole.height == 600)
        let before = try Self.darkShare(whole.jpeg)
        #expect(before > 0.25 && before < 0.45, "\(before)")
        // Cropped by its corners: the page fills the picture, upright.
        let corners = try #require(PageImage.Corners(quad.flatMap { [$0.0 / 799, $0.1 / 599] }))
        let page = try PageImage.process(data, straighten: .corners(corners))
        let after = try Self.darkShare(page.jpeg)
        #expect(after > 0.97, "\(after)")
        // As wide as the longer horizontal edge (≈ 455 px), as tall as the longer vertical one (≈ 363 px).
        #expect(abs(page.width - 455) <= 3 && abs(page.height - 363) <= 3, "\(page.width)×\(page.height)")
        #expect(page.thumbnail.count > 100 && page.thumbnail.count < page.jpeg.count)
    }

    @Test func cornersMustEncloseAPageClockwise() {
        #expect(PageImage.Corners([0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9]) != nil)
        #expect(PageImage.Corners([0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.1]) == nil)   // anticlockwise
        #expect(PageImage.Corners([0.1, 0.1, 0.9, 0.9, 0.9, 0.1, 0.1, 0.9]) == nil)   // crossing edges
        #expect(PageImage.Corners([0.1, 0.1, 0.12, 0.1, 0.12, 0.12, 0.1, 0.12]) == nil) // no area
        #expect(PageImage.Corners([0, 0, 1.2, 0, 1, 1, 0, 1]) == nil)
        #expect(PageImage.Corners(text: "0.1,0.1,0.9,0.1,0.9,0.9,0.1,0.9")?.points.count == 8)
        #expect(PageImage.Corners(text: "nonsense") == nil)
    }

    @Test func refusesWhatIsNotAWholePhoto() throws {
        #expect(throws: ImageError.empty) { try PageImage.process(Data(), straighten: .none) }
        #expect(throws: ImageError.notAnImage) { try PageImage.process(Data("hello".utf8), straighten: .none) }
        let jpeg = try Self.photo(quad: [(10, 10), (100, 10), (100, 100), (10, 100)], jpeg: true)
        #expect(throws: ImageError.truncated("JPEG")) { try PageImage.process(jpeg.prefix(jpeg.count / 2), straighten: .none) }
    }

    /// A phone's portrait photo is stored sideways with an EXIF orientation: it is turned upright.
    @Test func theExifOrientationIsApplied() throws {
        let jpeg = try Self.photo(quad: [(10, 10), (100, 10), (100, 100), (10, 100)], jpeg: true)
        // An APP1 Exif segment (big-endian TIFF, one IFD entry: Orientation = 6) after SOI.
        var exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x22, 0x45, 0x78, 0x69, 0x66, 0x00, 0x00,
                             0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08,
                             0x00, 0x01, 0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06, 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        exif = Array(exif.prefix(2 + 0x22))
        let rotated = Data([0xFF, 0xD8] + exif) + jpeg.dropFirst(2)
        #expect(PageImage.exifOrientation(rotated) == 6)
        let upright = try PageImage.process(rotated, straighten: .none)
        #expect(upright.width == 600 && upright.height == 800)
        #expect(upright.uprightWidth == 600 && upright.uprightHeight == 800)
    }
}
