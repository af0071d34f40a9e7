import CImaging
import Foundation

/// A photographed book page made readable. The phone's rotation (EXIF orientation) is applied,
/// a large photo is brought down to a working size, and — given the page's four corners — the page is
/// straightened with a real projective transform (leptonica's `pixProjectivePtaColor`, interpolated).
/// Answers a JPEG of the page and a small JPEG thumbnail. The original bytes are the caller's to keep.
public enum PageImage {
    /// The page's corners as fractions of the (upright) photo's width and height, clockwise from
    /// the top left: top left, top right, bottom right, bottom left.
    public struct Corners: Sendable, Equatable, Codable {
        public var points: [Double]

        public init?(_ points: [Double]) {
            guard points.count == 8, points.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }) else { return nil }
            self.points = points
            // A quadrilateral with an area, its corners in clockwise order (no crossing edges).
            guard Self.isConvexClockwise(points), Self.area(points) > 0.01 else { return nil }
        }

        /// "x1,y1,x2,y2,…" as a form sends it.
        public init?(text: String) {
            let values = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            self.init(values)
        }

        public var text: String { points.map { String(format: "%.4f", $0) }.joined(separator: ",") }

        static func area(_ p: [Double]) -> Double {
            var sum = 0.0
            for i in 0..<4 {
                let j = (i + 1) % 4
                sum += p[2 * i] * p[2 * j + 1] - p[2 * j] * p[2 * i + 1]
            }
            return abs(sum) / 2
        }

        static func isConvexClockwise(_ p: [Double]) -> Bool {
            // In image coordinates (y down), clockwise on screen has a positive cross product at each corner.
            for i in 0..<4 {
                let a = (p[2 * i], p[2 * i + 1])
                let b = (p[2 * ((i + 1) % 4)], p[2 * ((i + 1) % 4) + 1])
                let c = (p[2 * ((i + 2) % 4)], p[2 * ((i + 2) % 4) + 1])
                let cross = (b.0 - a.0) * (c.1 - b.1) - (b.1 - a.1) * (c.0 - b.0)
                if cross <= 0 { return false }
            }
            return true
        }
    }

    public struct Processed: Sendable {
        public var jpeg: Data
        public var width: Int
        public var height: Int
        public var thumbnail: Data
        /// The corners the page was straightened by: those given, or those found.
        public var corners: Corners?
        /// The photo's size as the phone showed it (after its EXIF orientation), for the corner editor.
        public var uprightWidth: Int
        public var uprightHeight: Int
    }

    /// What to straighten the page by: nothing, the corners given, or the page's edges where they are found.
    public enum Straighten: Sendable, Equatable {
        case none
        case corners(Corners)
        case foundEdges
    }

    /// Longest side of the working image: a 12-megapixel photo (4,000 px) comes down to this, which
    /// keeps text sharp for reading and OCR and the transform fast.
    public static let workingSide = 2_800
    public static let thumbnailSide = 360
    public static let maxBytes = 20 << 20

    public static func process(_ data: Data, straighten: Straighten) throws(ImageError) -> Processed {
        _ = Bitmap.quiet
        guard data.count <= maxBytes else { throw .tooLarge(bytes: data.count, limit: maxBytes) }
        var image = try decodeColor(data)
        if let turned = oriented(image, orientation: exifOrientation(data)) { image = turned }
        let upright = (width: image.width, height: image.height)
        let long = max(image.width, image.height)
        if long > workingSide, let smaller = image.scaled(Double(workingSide) / Double(long)) { image = smaller }
        var corners: Corners?
        switch straighten {
        case .none: corners = nil
        case .corners(let given): corners = given
        case .foundEdges: corners = PageEdges.find(image)
        }
        if let chosen = corners, let straight = straightened(image, chosen) { image = straight } else { corners = nil }
        guard let jpeg = image.jpeg(quality: 85) else { throw .undecodable("JPEG") }
        let factor = Double(thumbnailSide) / Double(max(image.width, image.height))
        guard let small = factor < 1 ? image.scaled(factor) : image, let thumbnail = small.jpeg(quality: 75) else { throw .undecodable("JPEG") }
        return Processed(jpeg: jpeg, width: image.width, height: image.height, thumbnail: thumbnail, corners: corners,
                         uprightWidth: upright.width, uprightHeight: upright.height)
    }

    /// 32-bit colour, through the scanner's decoder (whole file, sane size).
    static func decodeColor(_ data: Data) throws(ImageError) -> Bitmap {
        let (pix, format) = try Bitmap.decode(data)
        if pix.depth == 32 { return pix }
        guard let color = Bitmap(pixConvertTo32(pix.pointer)) else { throw .undecodable(format) }
        return color
    }

    /// The page's quadrilateral mapped onto an upright rectangle as wide as its longer horizontal
    /// edge and as tall as its longer vertical edge.
    static func straightened(_ image: Bitmap, _ corners: Corners) -> Bitmap? {
        let w = Double(image.width), h = Double(image.height)
        let p = (0..<4).map { (corners.points[2 * $0] * (w - 1), corners.points[2 * $0 + 1] * (h - 1)) }
        func dist(_ a: (Double, Double), _ b: (Double, Double)) -> Double { ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot() }
        var outW = max(dist(p[0], p[1]), dist(p[3], p[2]))
        var outH = max(dist(p[0], p[3]), dist(p[1], p[2]))
        // The transform draws into a canvas the size of the photo: keep the page within it.
        let fit = min(1, (w - 1) / outW, (h - 1) / outH)
        outW = (outW * fit).rounded(.down)
        outH = (outH * fit).rounded(.down)
        guard outW >= 16, outH >= 16,
              let source = ptaCreate(4), let target = ptaCreate(4) else { return nil }
        defer {
            var s: UnsafeMutablePointer<PTA>? = source, t: UnsafeMutablePointer<PTA>? = target
            ptaDestroy(&s); ptaDestroy(&t)
        }
        for (x, y) in p { ptaAddPt(source, Float(x), Float(y)) }
        for (x, y) in [(0.0, 0.0), (outW - 1, 0.0), (outW - 1, outH - 1), (0.0, outH - 1)] { ptaAddPt(target, Float(x), Float(y)) }
        guard let warped = Bitmap(pixProjectivePtaColor(image.pointer, target, source, 0xFFFF_FF00)) else { return nil }
        return warped.cropped(x: 0, y: 0, width: Int(outW), height: Int(outH))
    }

    /// EXIF orientation (1–8) of a JPEG, 1 when absent.
    static func exifOrientation(_ data: Data) -> Int {
        let b = [UInt8](data.prefix(128 * 1024))
        guard b.count > 4, b[0] == 0xFF, b[1] == 0xD8 else { return 1 }
        var i = 2
        while i + 4 < b.count, b[i] == 0xFF {
            let marker = b[i + 1]
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            if marker == 0xDA || length < 2 { break }
            if marker == 0xE1, i + 10 < b.count, b[(i + 4)..<(i + 10)] == [0x45, 0x78, 0x69, 0x66, 0, 0] {
                let tiff = i + 10
                guard tiff + 8 < b.count else { return 1 }
                let little = b[tiff] == 0x49
                func u16(_ at: Int) -> Int { at + 1 < b.count ? (little ? Int(b[at]) | Int(b[at + 1]) << 8 : Int(b[at]) << 8 | Int(b[at + 1])) : 0 }
                func u32(_ at: Int) -> Int { (little ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2)) }
                let ifd = tiff + u32(tiff + 4)
                let entries = u16(ifd)
                for e in 0..<min(entries, 64) {
                    let entry = ifd + 2 + e * 12
                    if u16(entry) == 0x0112 {
                        let value = u16(entry + 8)
                        return (1...8).contains(value) ? value : 1
                    }
                }
                return 1
            }
            i += 2 + length
        }
        return 1
    }

    /// The photo as the phone showed it.
    static func oriented(_ image: Bitmap, orientation: Int) -> Bitmap? {
        switch orientation {
        case 2: return Bitmap(pixFlipLR(nil, image.pointer))
        case 3: return Bitmap(pixRotateOrth(image.pointer, 2))
        case 4: return Bitmap(pixFlipTB(nil, image.pointer))
        case 5: return Bitmap(pixRotateOrth(image.pointer, 1)).flatMap { Bitmap(pixFlipLR(nil, $0.pointer)) }
        case 6: return Bitmap(pixRotateOrth(image.pointer, 1))
        case 7: return Bitmap(pixRotateOrth(image.pointer, 3)).flatMap { Bitmap(pixFlipLR(nil, $0.pointer)) }
        case 8: return Bitmap(pixRotateOrth(image.pointer, 3))
        default: return nil
        }
    }
}

extension Bitmap {
    func jpeg(quality: Int32) -> Data? {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        guard pixWriteMemJpeg(&bytes, &size, pointer, quality, 0) == 0, let bytes else { return nil }
        defer { lept_free(bytes) }
        return Data(bytes: bytes, count: size)
    }
}

extension PageImage {
    /// A synthetic phone photo for benchmarks: a grey desk with noise and a light, tilted page with
    /// lines of dark marks, as a JPEG of `width`×`height` pixels.
    public static func syntheticPhoto(width: Int, height: Int) -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height)
        var state: UInt32 = 12345
        let a = 0.07, cx = Double(width) / 2, cy = Double(height) / 2
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 28)
                // The page: a rectangle turned by 4°.
                let dx = Double(x) - cx, dy = Double(y) - cy
                let u = dx * cos(a) + dy * sin(a), v = -dx * sin(a) + dy * cos(a)
                var value = 90 + noise
                if abs(u) < Double(width) * 0.35, abs(v) < Double(height) * 0.4 {
                    value = 235 + noise
                    if Int(v + 10_000) % 60 < 18, Int(u + 10_000) % 37 < 30 { value = 40 + noise }
                }
                pixels[y * width + x] = UInt8(min(255, value))
            }
        }
        return Bitmap.fromGray(width: width, height: height, pixels: pixels)?.jpeg(quality: 90) ?? Data()
    }
}
