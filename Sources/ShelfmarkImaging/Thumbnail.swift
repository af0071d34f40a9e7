import CImaging
import Foundation

/// A small colour picture of a stored image (a cover in a printed catalog): decoded through the one
/// door every image comes in by, scaled down so its longer side is at most `maxSide` pixels, as 32-bit
/// words 0x00RRGGBB row by row (what cairo draws).
public struct Thumbnail: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt32]

    public static func make(_ data: Data, maxSide: Int) throws(ImageError) -> Thumbnail {
        let (decoded, format) = try Bitmap.decode(data)
        guard let rgb = decoded.depth == 32 ? decoded : Bitmap(pixConvertTo32(decoded.pointer)) else { throw .undecodable(format) }
        let factor = min(1, Double(max(1, maxSide)) / Double(max(rgb.width, rgb.height)))
        guard let small = factor < 1 ? rgb.scaled(factor) : rgb else { throw .undecodable(format) }
        let (w, h) = (small.width, small.height)
        guard let data = pixGetData(small.pointer) else { throw .undecodable(format) }
        let wpl = Int(pixGetWpl(small.pointer))
        var pixels = [UInt32](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w { pixels[y * w + x] = (data[y * wpl + x] >> 8) & 0xFF_FFFF }
        }
        return Thumbnail(width: w, height: h, pixels: pixels)
    }
}
