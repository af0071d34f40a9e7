import Foundation
@testable import ShelfmarkImaging
import Testing

/// A photographed page's corners are found against the desk it lies on, and only where there is a page.
@Suite struct PageEdgesTests {
    /// A 900×700 photo: a noisy desk of grey `desk`, a page of grey `page` inside `quad` (clockwise on
    /// screen) with dark lines of text, as grey pixels.
    static func photo(quad: [(Double, Double)], desk: Int = 95, page: Int = 228, seed: UInt32 = 7) -> (pixels: [UInt8], width: Int, height: Int) {
        let w = 900, h = 700
        var state = seed
        func inside(_ x: Double, _ y: Double) -> Bool {
            for i in 0..<4 {
                let a = quad[i], b = quad[(i + 1) % 4]
                if (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0) < 0 { return false }
            }
            return true
        }
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 27) - 16
                var value = desk + noise
                if inside(Double(x), Double(y)) {
                    value = page + noise / 2
                    // Lines of text across the page's middle.
                    if y % 26 < 9, x % 19 < 15, x > 300, x < 620, y > 200, y < 520 { value = 35 + noise }
                }
                pixels[y * w + x] = UInt8(max(0, min(255, value)))
            }
        }
        return (pixels, w, h)
    }

    static func expectCorners(_ found: PageImage.Corners?, _ quad: [(Double, Double)], within tolerance: Double = 0.015) throws {
        let corners = try #require(found)
        for (i, (x, y)) in quad.enumerated() {
            let (fx, fy) = (corners.points[2 * i], corners.points[2 * i + 1])
            #expect(abs(fx - x / 899) < tolerance && abs(fy - y / 699) < tolerance,
                    "corner \(i): found \(fx),\(fy), drawn \(x / 899),\(y / 699)")
        }
    }

    @Test func aTiltedPageInPerspectiveIsFoundAtItsCorners() throws {
        let quad = [(190.0, 110.0), (700.0, 150.0), (760.0, 610.0), (120.0, 580.0)]
        let photo = Self.photo(quad: quad)
        try Self.expectCorners(PageEdges.find(gray: photo.pixels, width: photo.width, height: photo.height), quad)
        // Through the photo's whole path (JPEG, then the working image): straightened at those corners.
        let jpeg = try #require(Bitmap.fromGray(width: photo.width, height: photo.height, pixels: photo.pixels)?.jpeg(quality: 88))
        let page = try PageImage.process(jpeg, straighten: .foundEdges)
        try Self.expectCorners(page.corners, quad, within: 0.02)
        #expect(abs(page.width - 640) < 20 && abs(page.height - 490) < 20, "\(page.width)×\(page.height)")
        // Asked for nothing, nothing is done.
        let whole = try PageImage.process(jpeg, straighten: .none)
        #expect(whole.corners == nil && whole.width == 900 && whole.height == 700)
    }

    @Test func aPageTurnedTheOtherWayIsFound() throws {
        let turned = [(330.0, 60.0), (820.0, 250.0), (600.0, 660.0), (100.0, 430.0)]
        let photo = Self.photo(quad: turned, seed: 11)
        try Self.expectCorners(PageEdges.find(gray: photo.pixels, width: photo.width, height: photo.height), turned)
        // The bench's synthetic phone photo: a page turned by 4° on a grey desk.
        let synthetic = try Bitmap.decodeGray(PageImage.syntheticPhoto(width: 800, height: 600))
        #expect(PageEdges.find(synthetic) != nil)
    }

    @Test func withoutAPageSetOffFromItsDeskNothingIsFound() throws {
        // All page: nothing to straighten.
        let all = Self.photo(quad: [(-10.0, -10.0), (910.0, -10.0), (910.0, 710.0), (-10.0, 710.0)])
        #expect(PageEdges.find(gray: all.pixels, width: all.width, height: all.height) == nil)
        // A page hardly lighter than the desk.
        let quad = [(190.0, 110.0), (700.0, 150.0), (760.0, 610.0), (120.0, 580.0)]
        let faint = Self.photo(quad: quad, desk: 150, page: 170)
        #expect(PageEdges.find(gray: faint.pixels, width: faint.width, height: faint.height) == nil)
        // A light blob that is not four-sided: a disc.
        var disc = [UInt8](repeating: 90, count: 900 * 700)
        for y in 0..<700 { for x in 0..<900 where (x - 450) * (x - 450) + (y - 350) * (y - 350) < 280 * 280 { disc[y * 900 + x] = 230 } }
        #expect(PageEdges.find(gray: disc, width: 900, height: 700) == nil)
        // Noise.
        var state: UInt32 = 3
        let noise = (0..<(900 * 700)).map { _ -> UInt8 in state = state &* 1_664_525 &+ 1_013_904_223; return UInt8(state >> 24) }
        #expect(PageEdges.find(gray: noise, width: 900, height: 700) == nil)
    }
}
