import Foundation
@testable import ShelfmarkImaging
import Testing

/// The scan-line EAN-13 decoder (`EANProfileReader`), on codes we draw and then distort.
@Suite struct ProfileReaderTests {
    /// Bars stretched unevenly along the code, as on a curved or creased wrapper: each output column
    /// samples the source at x + amplitude·sin(π·x/width), so modules drift between narrow and wide.
    static func warped(_ p: Bitmap, amplitude: Double) -> Bitmap? {
        let src = p.packedGray(), w = p.width, h = p.height
        var out = [UInt8](repeating: 255, count: w * h)
        for x in 0..<w {
            let sx = Double(x) + amplitude * sin(.pi * Double(x) / Double(w))
            let x0 = min(w - 1, max(0, Int(sx))), x1 = min(w - 1, x0 + 1), f = sx - Double(Int(sx))
            for y in 0..<h {
                let v = Double(src[y * w + x0]) * (1 - f) + Double(src[y * w + x1]) * f
                out[y * w + x] = UInt8(max(0, min(255, v.rounded())))
            }
        }
        return Bitmap.fromGray(width: w, height: h, pixels: out)
    }

    static func votes(_ p: Bitmap) -> [String: Int] {
        EANProfileReader.read(gray: p.packedGray(), width: p.width, height: p.height)
    }

    @Test func aDrawnISBNReadsOnManyRows() throws {
        let base = try Degrade.bitmap(try BarcodeRenderer.render(.isbn, "9780306406157", scale: 2).png)
        let votes = Self.votes(base)
        #expect(Array(votes.keys) == ["9780306406157"])
        #expect(votes["9780306406157", default: 0] >= 10)
        // Upside down, each row is read backwards.
        let upsideDown = try #require(base.quarterTurned()?.quarterTurned())
        #expect(Self.votes(upsideDown) == votes)
    }

    @Test func warpedBlurredAndNoisyCodesReadAsTheirOwnNumberOnly() throws {
        for isbn in ["9780316452502", "9783161484100", "9791090636071"] {
            let base = try Degrade.bitmap(try BarcodeRenderer.render(.isbn, isbn, scale: 3).png)
            let variants: [(String, Bitmap?)] = [
                ("warped", Self.warped(base, amplitude: 18)),
                ("warped and blurred", Self.warped(base, amplitude: 12).flatMap { Degrade.blur($0, 0.65) }),
                ("blurred and noisy", Degrade.blur(base, 0.45).flatMap { Degrade.noise($0, amplitude: 25) }),
                ("low contrast", Degrade.lowContrast(base)),
            ]
            for (name, pix) in variants {
                let votes = Self.votes(try #require(pix, "\(name): degradation failed"))
                #expect(Array(votes.keys) == [isbn], "\(isbn) \(name): \(votes)")
                // The whole reader believes it too: the rows corroborate each other.
                #expect(BarcodeReader().read(try #require(pix)).barcodes.map(\.text) == [isbn], "\(isbn) \(name)")
            }
        }
    }

    @Test func noiseAndTextAreNotCodes() throws {
        let flat = try #require(Bitmap.fromGray(width: 400, height: 200, pixels: [UInt8](repeating: 200, count: 80_000)))
        #expect(Self.votes(try #require(Degrade.noise(flat, amplitude: 90))).isEmpty)
        #expect(Self.votes(try #require(Bitmap.text(["ISBN 978-0-306-40615-7", "|||| | || ||| | ||||"]))).isEmpty)
    }

    /// One bar made wider: the digit it belongs to no longer matches any pattern, or the check digit
    /// fails. Either way no row may return a number other than the one drawn.
    @Test func aDamagedBarGivesNoReadRatherThanAWrongOne() throws {
        let base = try Degrade.bitmap(try BarcodeRenderer.render(.isbn, "9780306406157", scale: 2).png)
        var pixels = base.packedGray()
        let w = base.width
        // Darken a 3-pixel column band a third of the way along the code.
        for y in 0..<base.height { for x in (w / 3)..<(w / 3 + 3) { pixels[y * w + x] = 0 } }
        let damaged = try #require(Bitmap.fromGray(width: w, height: base.height, pixels: pixels))
        let votes = Self.votes(damaged)
        #expect(votes.keys.allSatisfy { $0 == "9780306406157" }, "\(votes)")
    }

    /// Run lengths straight from a row we know: the guards and digits of 9780306406157.
    @Test func runsOfAKnownRowDecode() {
        let l: [[Int]] = [[3, 2, 1, 1], [2, 2, 2, 1], [2, 1, 2, 2], [1, 4, 1, 1], [1, 1, 3, 2],
                          [1, 2, 3, 1], [1, 1, 1, 4], [1, 3, 1, 2], [1, 2, 1, 3], [3, 1, 1, 2]]
        // First digit 9: the left six use L G G L G L (parity 0x1A = 011010).
        let left = [7, 8, 0, 3, 0, 6], right = [4, 0, 6, 1, 5, 7]
        let parity = [false, true, true, false, true, false]
        var runs = [10, 1, 1, 1]
        for (d, g) in zip(left, parity) { runs += g ? l[d].reversed() : l[d] }
        runs += [1, 1, 1, 1, 1]
        for d in right { runs += l[d] }
        runs += [1, 1, 1, 10]
        let scaled = runs.map { $0 * 3 }
        #expect(EANProfileReader.decode(runs: scaled) == ["9780306406157"])
        // The same row with the last digit changed fails its check digit.
        var wrong = runs
        wrong.replaceSubrange((wrong.count - 8)..<(wrong.count - 4), with: l[8])
        #expect(EANProfileReader.decode(runs: wrong.map { $0 * 3 }).isEmpty)
    }
}
